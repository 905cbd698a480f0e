"""The every_impl package."""
