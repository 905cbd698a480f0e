"""toolgen: compile YAML tool contracts into strict Agents SDK tools, stubs and tests."""

from toolgen import classcode as _classcode

__version__ = "0.1.0"

# before any of toolgen's dataclasses is made (classcode.py)
_classcode.install()
