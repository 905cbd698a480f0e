"""The Jinja environment every output is rendered with.

Templates hold layout only: names, imports and escaped literals are computed in Python and
handed to them ready to print. StrictUndefined makes a missing value an error, never an empty
string in generated code. The environment is built once per process.

A build keeps the compiled templates in the project's cache folder (`keep_compiled`), so a
rebuild after one edit does not compile the nine templates it renders again (some 30 ms of
it): Jinja's bytecode cache, each entry checked against the template's source and toolgen's
code, and an entry that cannot be read or written only costs the compile.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from functools import cache
from importlib import resources
from pathlib import Path

import jinja2

from toolgen.paths import toolgen_digest

# a compiled template is a few kilobytes: a larger entry is not one this wrote
_MAX_COMPILED_BYTES = 4 * 1024 * 1024


@cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resources.files("toolgen.templates"))),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        # the templates ship with toolgen and never change while it runs: no stat of the
        # template file on every render
        auto_reload=False,
    )


def render(template: str, **values: object) -> str:
    return environment().get_template(template).render(**values)


class _CompiledTemplates(jinja2.BytecodeCache):
    """Compiled templates in `folder`, one file per template. An entry holds the checksum
    of the template's source and toolgen's code (the environment's options are code), and
    Jinja's own version marker: any other entry is compiled again and replaced."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, bucket: jinja2.bccache.Bucket) -> Path:
        return self.folder / f"{bucket.key}.jinja-compiled"

    def get_source_checksum(self, source: str) -> str:
        return hashlib.sha256(f"{toolgen_digest()}\0{source}".encode()).hexdigest()

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            with open(self._path(bucket), "rb") as file:
                data = file.read(_MAX_COMPILED_BYTES + 1)
        except OSError:
            return
        if len(data) > _MAX_COMPILED_BYTES:
            return
        try:
            bucket.bytecode_from_string(data)
        except Exception:  # a damaged entry (marshal raises several kinds)
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        temp = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            with open(fd, "wb") as file:
                file.write(bucket.bytecode_to_string())
            os.replace(temp, self._path(bucket))
        except OSError:
            if temp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temp)


def keep_compiled(folder: Path | None) -> None:
    """Keep the compiled templates in `folder` (this build's cache folder) from now on;
    None for a run that keeps no cache (`build --check`), which writes none."""
    env = environment()
    current = env.bytecode_cache
    if folder is None:
        env.bytecode_cache = None
    elif not (isinstance(current, _CompiledTemplates) and current.folder == folder):
        env.bytecode_cache = _CompiledTemplates(folder)
