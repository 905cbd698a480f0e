"""The spec: its files read with the place of every value, the format's JSON Schemas, and the
model they make (the IR)."""
