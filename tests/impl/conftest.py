"""Make the project root importable, so the tests can import ``impl`` and ``generated``.

tests/impl has no __init__.py on purpose: as a package it would shadow ``impl``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
