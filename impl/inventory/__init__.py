"""The inventory catalogue's tools, on a real SQLite database (db.py, store.py)."""
