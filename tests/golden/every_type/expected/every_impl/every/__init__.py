"""The every package."""
