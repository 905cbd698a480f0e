"""toolgen: compile YAML tool contracts into strict Agents SDK tools, stubs and tests."""

__version__ = "0.1.0"
