"""Other formats: the import of existing tool definitions, the export to every runtime, and
the scaffold of a new project."""
