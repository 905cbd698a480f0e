"""The Jinja templates of toolgen: one per output kind (shipped inside the wheel)."""
