"""The generated package."""
