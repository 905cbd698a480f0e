"""The bounds every input is held to, so a hostile or broken spec costs seconds, not hours.

Each limit is checked before the work it protects (a file's size before it is read, the node
count while the tree is walked, the number of tools before any is checked), and going over one
is a located TG011 diagnostic, never a crash. docs/spec.md lists them and docs/builds.md says
why each value was chosen; a catalogue that needs more than these is better split.
"""

from __future__ import annotations

from typing import Final

# One tool file or catalogue.yaml.
MAX_FILE_BYTES: Final = 1024 * 1024
# All spec files of one catalogue together.
MAX_CATALOGUE_BYTES: Final = 32 * 1024 * 1024
# Keys, values and list items of one file, counted as the tree is walked.
MAX_NODES: Final = 100_000
# Levels of nesting in one file (a parameter nested in an object parameter is two levels of
# the contract, and about four of YAML).
MAX_DEPTH: Final = 64
# Tool files in one catalogue's tools/ folder.
MAX_TOOLS: Final = 10_000
# Parameters of one tool, nested properties included.
MAX_PARAMETERS: Final = 10_000
# Examples of one tool.
MAX_EXAMPLES: Final = 200
# One implementation file: the implementation check reads no more, and the build's stamp
# knows a larger file in the implementation folder by its status instead of its bytes.
MAX_IMPLEMENTATION_BYTES: Final = 4 * 1024 * 1024


def size_words(size: int) -> str:
    """256 KiB, 32 MiB, 900 bytes."""
    for unit, scale in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size:,} bytes"
