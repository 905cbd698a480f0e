"""Which tool files already passed the checks that depend on nothing but themselves.

Checking a document against the format's JSON Schema, and the per-file semantic checks (its
names, its defaults and examples against its own contract) are the slow parts of `check` and
depend only on the file's content (and on toolgen). A build remembers the files that passed
them with no diagnostic at all, by a digest of their content and of the code that checked them
(toolgen's and toolgen_runtime's guards, the key the front cache uses too); the
pipeline then skips those checks for them. Everything else (references between tools, context
fields, layout, lint) runs every time.

The record lives in `.toolgen-cache/` beside the render cache and is written by `build` only:
`check` and `build --check` read nothing from it and write nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from toolgen.diagnostics import Diagnostic
from toolgen.paths import CACHE_DIR, cache_key


def file_key(content_digest: str) -> str:
    """The key a file's checks are remembered under: its content and the code that checked
    it (toolgen's and toolgen_runtime's, as the front cache's key: paths.cache_key)."""
    return cache_key("checked", content_digest)[:24]


class CheckCache:
    def __init__(self, root: Path, folder: str) -> None:
        name = hashlib.sha256(folder.encode()).hexdigest()[:12]
        self.path = root / CACHE_DIR / f"checked-{name}.json"
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.passed = (
                frozenset(data["passed"]) if isinstance(data, dict) else frozenset()
            )
        except (OSError, ValueError, KeyError, TypeError):
            self.passed = frozenset()

    def save(self, keys: Mapping[str, str], diagnostics: Iterable[Diagnostic]) -> bool:
        """Remember the files (`keys`: file -> file_key) with no diagnostic at all in them;
        False when the cache cannot be written (which only costs time)."""
        blamed = {d.span.file for d in diagnostics}
        passed = sorted(key for file, key in keys.items() if file not in blamed)
        temp = self.path.with_name(f"{self.path.stem}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temp.write_text(json.dumps({"passed": passed}) + "\n", encoding="utf-8")
            temp.replace(self.path)
        except OSError:
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)
            return False
        return True
