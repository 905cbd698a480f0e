"""What a build owns: the manifest of a generated package (`toolgen-manifest.json`: every file
the last build wrote there, with a digest of its content), and what is on disk beside it. What
the manifest proves, and why `__pycache__` and `.ruff_cache` folders are passed over, is
docs/builds.md's (Only its own files)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from toolgen.paths import file_digest, read_regular, safe_relative
from toolgen.text import json_document, json_value

MANIFEST_NAME = "toolgen-manifest.json"
# no generated file comes near this; a bigger one is not toolgen's as it stands
MAX_OWNED_BYTES = 16 * 1024 * 1024
FORMAT = 1
CACHES = frozenset({"__pycache__", ".ruff_cache"})


def content_digest(text: str) -> str:
    """The manifest's digest of a file: the first half of the SHA-256 of its bytes."""
    return file_digest(text.encode("utf-8"))


@dataclass(frozen=True, slots=True)
class Manifest:
    """The files of one generated package, by path inside the package, with digests."""

    catalogue: str
    files: Mapping[str, str]

    def text(self) -> str:
        payload = {
            "toolgen_manifest": FORMAT,
            "catalogue": self.catalogue,
            "files": dict(sorted(self.files.items())),
        }
        return json_document(payload) + "\n"


class ManifestError(Exception):
    """The manifest exists but cannot be read as one."""


def parse_manifest(text: str) -> Manifest:
    try:
        data = json_value(text)
    except ValueError as exc:
        raise ManifestError(f"it is not valid JSON ({exc})") from exc
    if not isinstance(data, dict) or data.get("toolgen_manifest") != FORMAT:
        raise ManifestError("it is not a toolgen manifest of format 1")
    files = data.get("files")
    if not isinstance(files, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and safe_relative(k)
        for k, v in files.items()
    ):
        raise ManifestError("its file list is malformed")
    return Manifest(str(data.get("catalogue", "")), dict(files))


@dataclass(frozen=True, slots=True)
class PackageState:
    """A generated package as found on disk.

    `owned` maps each file the manifest lists and that exists to its current text (None when
    it is not a readable regular file any more); `unknown` lists every other entry, relative
    to the package, that toolgen must not touch.
    """

    exists: bool
    manifest: Manifest | None
    manifest_problem: str | None
    owned: Mapping[str, str | None]
    unknown: tuple[str, ...]


def walk(base: Path) -> list[tuple[str, bool]]:
    """Every entry below `base` except Python's caches, without following links, in no
    particular order: its path and whether it is a regular file (the entry types the
    folder's listing gives, which need no status read)."""
    found: list[tuple[str, bool]] = []
    stack = [""]
    while stack:
        rel = stack.pop()
        with os.scandir(base / rel if rel else base) as entries:
            for entry in entries:
                child = f"{rel}/{entry.name}" if rel else entry.name
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in CACHES:
                        stack.append(child)
                else:
                    found.append((child, entry.is_file(follow_symlinks=False)))
    return found


def owned_text(path: Path) -> str | None:
    """The text of a file of the package as a build compares it (None: not readable), its
    lines ending in LF as written, or in CR LF as git leaves them on Windows (autocrlf)."""
    try:
        data = read_regular(path, limit=MAX_OWNED_BYTES, follow_links=False)
        return data.decode().replace("\r\n", "\n")
    except (OSError, UnicodeDecodeError):
        return None


def read_package(package_dir: Path, *, contents: bool = True) -> PackageState:
    """What is in a generated package folder and which of it the manifest proves is ours;
    with `contents`, the text of each owned file too (else None).

    Raises OSError only when the folder exists but cannot be listed.
    """
    if not os.path.lexists(package_dir):
        return PackageState(False, None, None, {}, ())
    if package_dir.is_symlink() or not package_dir.is_dir():
        return PackageState(True, None, None, {}, (".",))
    manifest: Manifest | None = None
    problem: str | None = None
    text = owned_text(package_dir / MANIFEST_NAME)
    if text is not None:
        try:
            manifest = parse_manifest(text)
        except ManifestError as exc:
            problem = str(exc)
    elif os.path.lexists(package_dir / MANIFEST_NAME):
        problem = "it is not a readable regular file"
    listed = manifest.files if manifest is not None else {}
    owned: dict[str, str | None] = {}
    unknown: list[str] = []
    for rel, regular in walk(package_dir):
        if rel == MANIFEST_NAME and (manifest is not None or problem is not None):
            continue
        if rel in listed and regular:
            owned[rel] = owned_text(package_dir / rel) if contents else None
        else:
            unknown.append(rel)
    return PackageState(True, manifest, problem, owned, tuple(sorted(unknown)))
