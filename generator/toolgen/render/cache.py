"""The render cache: which inputs made which files, so a rebuild renders only what changed.

A build renders in units: each tool's module and tests, and the catalogue's own files (the
package, its cards, its context, its catalogue test). Each unit's record holds a digest of its
inputs (the spec files' content digests, where they are, and toolgen itself) and a digest of each
file it made. A unit whose inputs are unchanged, and whose files on disk are still what it made
(nobody edited them), is read back instead of rendered again. The record lives in toolgen's own
cache folder beside the project (never committed); losing it only costs a full render.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from toolgen.ir import Catalogue, Tool
from toolgen.manifest import content_digest_of
from toolgen.paths import CACHE_DIR, Vouch, toolgen_digest


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _digest(parts: Iterable[str]) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def tool_inputs(catalogue: Catalogue, tool: Tool) -> str:
    """What a tool's files are made from: its spec file, the catalogue file, where they are,
    and toolgen itself."""
    return _digest(
        (tool.digest, tool.file, catalogue.digest, catalogue.folder, toolgen_digest())
    )


def catalogue_inputs(catalogue: Catalogue) -> str:
    """What the catalogue's own files are made from: every spec file of it."""
    return _digest(
        (
            catalogue.digest,
            catalogue.folder,
            toolgen_digest(),
            *(f"{t.file}:{t.digest}" for t in catalogue.tools),
        )
    )


class RenderCache:
    def __init__(
        self, root: Path | None, package: str, vouch: Vouch | None = None
    ) -> None:
        self.root = root
        self.rel = f"{CACHE_DIR}/{package}.json"
        self.old: Mapping[str, object] = self._read() if root is not None else {}
        self.new: dict[str, dict[str, object]] = {}
        self._vouch = vouch
        # files reused as they are on disk in this build -> their manifest digest
        self.read_back: dict[str, str] = {}
        # of those, the ones vouched for by their status and not read
        self.unread: set[str] = set()

    def _read(self) -> Mapping[str, object]:
        assert self.root is not None
        try:
            data = json.loads((self.root / self.rel).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        units = data.get("units") if isinstance(data, dict) else None
        return units if isinstance(units, dict) else {}

    def reuse(
        self, unit: str, inputs: str, paths: Iterable[str]
    ) -> dict[str, str] | None:
        """The unit's files as on disk, when they were made from the same inputs and nobody
        changed them since; None when the unit must be rendered again. A file whose status
        vouches for it (`vouch`) is not read: it is in `unread`, not in the texts returned."""
        entry = self.old.get(unit)
        if (
            self.root is None
            or not isinstance(entry, dict)
            or entry.get("inputs") != inputs
        ):
            return None
        files = entry.get("files")
        if not isinstance(files, dict) or sorted(files) != sorted(paths):
            return None
        found = {}
        digests = {}
        unread = []
        for rel, sha in files.items():
            vouched = self._vouch(rel) if self._vouch is not None else None
            if vouched is not None:
                if vouched.digest[:16] != sha:
                    return None
                unread.append(rel)
                digests[rel] = vouched.digest
                continue
            try:
                # the bytes as they are (no newline translation): the text given is what
                # the file holds, which the write stage relies on (`read_back`)
                data = (self.root / rel).read_bytes()
                text = data.decode("utf-8")
            except (OSError, UnicodeDecodeError):
                return None
            digest = hashlib.sha256(data).hexdigest()
            if digest[:16] != sha:
                return None
            found[rel] = text
            digests[rel] = content_digest_of(digest)
        self.new[unit] = entry
        self.read_back.update(digests)
        self.unread.update(unread)
        return found

    def record(self, unit: str, inputs: str, files: Mapping[str, str]) -> None:
        self.new[unit] = {
            "inputs": inputs,
            "files": {p: _sha(t) for p, t in files.items()},
        }

    def text(self) -> str:
        # compact: json's C encoder writes no indented text (indented, 15 ms at 1,000 tools)
        return json.dumps({"units": self.new}, sort_keys=True, separators=(",", ":"))
