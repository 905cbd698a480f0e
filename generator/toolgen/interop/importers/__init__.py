"""`toolgen import`: existing tool definitions into contract drafts.

One reader per source format (`openai`: function definitions; `mcp`: a server's `tools/list`
output; `openapi`: an OpenAPI 3 document's operations; `pyfunctions`: a Python module of
`@function_tool` functions) turns a file into `SourceTool`s; `draft` turns each into a
contract that carries what the source states and marks the rest TODO; this module writes the
catalogue. Every source is JSON but an OpenAPI document (JSON or YAML) and a Python module
(run to be read).

Nothing is overwritten: an existing tool file stops the import before anything is written,
and an existing catalogue.yaml is kept (the tools join that catalogue). Every file is read
back with toolgen's own loader before it is moved into place.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

import toolgen
from toolgen.interop.importers import emit, mcp, openai, openapi, pyfunctions
from toolgen.interop.importers.draft import NAME_RULE, TODO, Draft, draft, legal_name
from toolgen.interop.importers.source import (
    MAX_SOURCE_BYTES,
    Loss,
    SourceError,
    SourceFile,
    SourceTool,
)
from toolgen.names import MODEL_NAME_RE, is_identifier, module_name
from toolgen.spec.limits import MAX_TOOLS, size_words
from toolgen.spec.load import load_document
from toolgen.text import json_text, json_value, printable

__all__ = [
    "SOURCES",
    "ImportReport",
    "Refused",
    "SourceError",
    "import_file",
    "read_path",
    "read_source",
]

SOURCES: Mapping[str, Callable[[object], SourceFile]] = {
    openai.KIND: openai.read,
    mcp.KIND: mcp.read,
    openapi.KIND: openapi.read,
    pyfunctions.KIND: pyfunctions.read,
}
TODO_CATALOGUE = f"{TODO}: what this catalogue is for, in a sentence."
_SCHEMAS = Path(toolgen.__file__).resolve().parent / "spec" / "schemas"


class Refused(Exception):
    """The import would overwrite a file or cannot name the catalogue; nothing was written."""


@dataclass(frozen=True, slots=True)
class ImportReport:
    drafts: tuple[Draft, ...]
    skipped: tuple[tuple[str, str], ...]  # (tool name, why it was not imported)
    catalogue_written: bool

    @property
    def losses(self) -> int:
        return sum(len(d.losses) for d in self.drafts)

    @property
    def todos(self) -> int:
        return sum(len(d.todos) for d in self.drafts) + int(self.catalogue_written)


def _no_constants(name: str) -> object:
    raise SourceError(f"{name} is not a JSON number")


def _json(text: str) -> object:
    try:
        return json_value(text, parse_constant=_no_constants)
    except ValueError as exc:
        raise SourceError(f"not JSON: {exc}") from exc


def _yaml(text: str) -> object:
    """JSON or YAML, as OpenAPI documents come. JSON is read as JSON: YAML's reader takes
    18 s over GitHub's 13 MB description, json 0.2 s. The safe loader builds no Python
    objects; libyaml's, where PyYAML was built with it, is the same loader in C."""
    if text.lstrip().startswith("{"):
        with contextlib.suppress(SourceError):
            return _json(text)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:  # ValueError: an integer of 5,000 digits, a date of February 30
        data = yaml.load(text, Loader=loader)
    except (yaml.YAMLError, ValueError) as exc:
        raise SourceError(f"not YAML or JSON: {exc}") from exc
    if _holds_itself(data):  # as `&a [*a]` makes: reading it would never end
        raise SourceError(
            "a YAML alias inside its own anchor makes a value that holds itself"
        )
    return data


def _holds_itself(data: object) -> bool:
    """Whether a list or mapping holds itself. Each is looked at once, however many aliases
    share it (walking it as a tree costs what an alias bomb multiplies)."""
    inside: set[int] = set()  # the path from the top to the value looked at
    done: set[int] = set()
    stack: list[tuple[object, bool]] = [(data, False)]
    while stack:
        node, leaving = stack.pop()
        if leaving:
            inside.discard(id(node))
            done.add(id(node))
        elif isinstance(node, dict | list) and id(node) not in done:
            if id(node) in inside:
                return True
            inside.add(id(node))
            stack.append((node, True))
            values = node.values() if isinstance(node, dict) else node
            stack.extend((value, False) for value in values)
    return False


def read_source(kind: str, text: str) -> SourceFile:
    """Read the text of a data source (every kind but pyfunctions, which is a module)."""
    return SOURCES[kind](_yaml(text) if kind == openapi.KIND else _json(text))


def read_path(kind: str, path: Path) -> SourceFile:
    if kind == pyfunctions.KIND:
        # not data: the module is run (in a subprocess) to be read
        return pyfunctions.read(pyfunctions.run_module(path))
    # as the user named it (a pipe too), but no more than a source can be
    with open(path, "rb") as file:
        data = file.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise SourceError(f"it is larger than {size_words(MAX_SOURCE_BYTES)}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"not UTF-8 text: {exc.reason} at byte {exc.start:,}"
        ) from exc
    return read_source(kind, text)


def _head(folder: Path, schema: str, origin: str, kind: str) -> list[str]:
    """An imported file's first lines: its schema (the project's in spec/, else toolgen's,
    for editors) and its source."""
    spec = next((p for p in folder.resolve().parents if p.name == "spec"), _SCHEMAS)
    found = spec / schema if (spec / schema).is_file() else _SCHEMAS / schema
    relative = os.path.relpath(found, folder.resolve()).replace(os.sep, "/")
    return [
        f"# yaml-language-server: $schema={relative}",
        # a file name may hold a line break, which would end the comment
        f"# Imported by `toolgen import --from {kind}` from {printable(origin)}.",
    ]


def _tool_text(d: Draft, folder: Path, origin: str, kind: str) -> str:
    header = [
        *_head(folder / "tools", "tool.v1.json", origin, kind),
        f"# {TODO} marks what the source does not say: `toolgen check` reports",
        "# each one (TG313) until a person writes it.",
    ]
    if d.effect_basis:
        header.append(f"# effect {d.document['effect']}: {d.effect_basis}.")
    if d.losses:
        header.append("# Not carried (the format cannot express it):")
        header.extend(f"#   {x.where}: {x.what}: {x.reason}" for x in d.losses)
    return "\n".join([*header, *emit.lines(d.document, comments=d.comments)]) + "\n"


def _written_back(path: Path, expected: object) -> str | None:
    """Why the draft written cannot be a spec file, or None."""
    document, problems = load_document(path, path.name)
    for problem in problems:
        if problem.code == "TG011":  # a spec file's limits: the source says too much
            return f"its draft would break a limit: {problem.message}"
    if document is None or problems or document.data != expected:
        raise RuntimeError(
            f"toolgen import wrote {path.name} that does not read back as written"
        )
    return None


def _unwritable(d: Draft) -> str | None:
    """Why the draft cannot be a file, or None: JSON's "\\ud800" reads as half of a
    surrogate pair, which no UTF-8 text holds."""
    try:
        json_text(d.document).encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"it holds {exc.object[exc.start]!r}, which UTF-8 text cannot hold"
    return None


def _renamed(tool: SourceTool) -> SourceTool:
    """The tool under a legal name, the rename reported first among its losses."""
    name = legal_name(tool.name)
    if name in (tool.name, ""):
        return tool
    rename = Loss(
        "the tool",
        f"name {tool.name!r}",
        f"{NAME_RULE}, so the draft is named {name!r}",
    )
    return dataclasses.replace(tool, name=name, losses=(rename, *tool.losses))


def import_file(kind: str, source: Path, out: Path) -> ImportReport:
    """Read `source` as `kind` and write its tools under `out` (a catalogue folder)."""
    name = out.resolve().name
    if not is_identifier(name):  # as TG140 judges it: `class` is a keyword
        raise Refused(
            f"the catalogue folder {out} must be named like a Python identifier "
            "(it names the catalogue)"
        )
    read = read_path(kind, source)
    if len(read.tools) > MAX_TOOLS:  # a catalogue cannot hold them: nothing is written
        raise Refused(
            f"it defines {len(read.tools):,} tools, more than the {MAX_TOOLS:,} a "
            "catalogue may have; import a part of it"
        )
    skipped: list[tuple[str, str]] = list(read.skipped)
    drafts: list[Draft] = []
    modules: dict[str, str] = {}
    as_given = {tool.name for tool in read.tools}
    for tool in read.tools:
        renamed = _renamed(tool)
        why = None if MODEL_NAME_RE.fullmatch(renamed.name) else NAME_RULE
        if why is None and renamed is not tool and renamed.name in as_given:
            why = f"renamed, it would be {renamed.name!r}, the name of another tool"
        module = module_name(renamed.name)
        if why is None and module in modules:
            why = f"it would share a Python module with {modules[module]!r}"
        if why is None:
            drafted = draft(renamed)
            why = _unwritable(drafted)
        if why is not None:
            skipped.append((tool.name, why))
            continue
        modules[module] = tool.name
        drafts.append(drafted)
    tools_dir = out / "tools"
    clashes = [tools_dir / f"{d.name}.yaml" for d in drafts]
    clashes = [p for p in clashes if p.exists() or p.with_suffix(".yml").exists()]
    if clashes:
        raise Refused(
            "these files exist and are never overwritten: "
            + ", ".join(str(p) for p in clashes)
        )
    write_catalogue = not (out / "catalogue.yaml").exists()
    staged: list[tuple[Path, str, object, Draft | None]] = []
    if write_catalogue:
        catalogue = {"format": 1, "name": name, "description": TODO_CATALOGUE}
        header = _head(out, "catalogue.v1.json", source.name, kind)
        text = "\n".join([*header, *emit.lines(catalogue)]) + "\n"
        staged.append((out / "catalogue.yaml", text, catalogue, None))
    for d in drafts:
        text = _tool_text(d, out, source.name, kind)
        staged.append((tools_dir / f"{d.name}.yaml", text, d.document, d))
    # drafted and read back beside `out` (a refused draft leaves no folder), then moved
    beside = next(folder for folder in (out, *out.parents) if folder.is_dir())
    kept: list[tuple[Path, Draft | None]] = []
    with tempfile.TemporaryDirectory(dir=beside) as scratch:
        for target, text, data, held in staged:
            trial = Path(scratch) / target.relative_to(out)
            trial.parent.mkdir(parents=True, exist_ok=True)
            trial.write_text(text, encoding="utf-8")
            why = _written_back(trial, data)
            if why is None:
                kept.append((target, held))
            else:  # a tool's draft: the catalogue's is a few lines
                skipped.append((target.stem, why))
        tools_dir.mkdir(parents=True, exist_ok=True)
        for target, _ in kept:
            shutil.move(Path(scratch) / target.relative_to(out), target)
    written = tuple(d for _, d in kept if d is not None)
    return ImportReport(written, tuple(skipped), write_catalogue)
