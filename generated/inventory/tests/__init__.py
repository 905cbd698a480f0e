"""The generated tests of the inventory catalogue."""
