"""The kitchen package."""
