"""The bounds every input is held to, so a hostile or broken spec costs seconds, not hours.

Each limit is checked before the work it protects (a file's size before it is read, the node
count while the tree is walked, the number of tools before any is checked), and going over one
is a located TG011 diagnostic, never a crash. docs/spec.md lists them; a catalogue that needs
more than these is better split.
"""

from __future__ import annotations

from typing import Final

# One tool file or catalogue.yaml. Real tool contracts are 1-10 KiB; the largest schema the
# OpenAI API takes (5,000 properties) fits. Reading a worst-case file of this size takes about
# a second and 200 MB.
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
# Parameters of one tool, nested properties included: twice the OpenAI API's own limit for a
# strict schema (5,000 properties), so the lint rule about that limit (TG510) speaks first.
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
