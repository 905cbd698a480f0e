"""The every_generated package."""
