"""Read a catalogue's spec files safely and remember where every key and value starts.

This module reads the files (a catalogue folder: catalogue.yaml and tools/, each file within
its limits) and makes each one a `Document`: its plain data and the place of every node in
it. The YAML itself is read in three steps, one module each (their docstrings say how):
`yaml_compose` (a node tree, never objects from tags), `yaml_scalars` (the YAML 1.2 core
schema) and `yaml_data` (the tree as plain data). Every problem becomes a ``Diagnostic``
instead of an exception.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from toolgen.diagnostics import Diagnostic, Span, error
from toolgen.paths import file_digest
from toolgen.spec import limits
from toolgen.spec.comments import import_todos
from toolgen.spec.specfile import read_text
from toolgen.spec.yaml_data import PathKey, Place, read_yaml

__all__ = ["Document", "PathKey", "SourceMap", "load_document"]


class _SpanTable(Mapping[PathKey, Span]):
    """Read-only spans of one file, built only when asked for.

    A catalogue holds a hundred thousand nodes and most spans are never read;
    keeping bare (line, column) pairs halves the walk and spares the garbage
    collector a hundred thousand tracked objects.
    """

    __slots__ = ("_file", "_places")

    def __init__(self, file: str, places: dict[PathKey, Place]) -> None:
        self._file = file
        self._places = places

    def __getitem__(self, path: PathKey) -> Span:
        line, col = self._places[path]
        return Span(self._file, line, col)

    def __contains__(self, path: object) -> bool:
        return path in self._places

    def __iter__(self) -> Iterator[PathKey]:
        return iter(self._places)

    def __len__(self) -> int:
        return len(self._places)

    def __repr__(self) -> str:
        return f"_SpanTable({self._file!r}, {len(self._places)} entries)"


@dataclass(frozen=True, slots=True, eq=False)
class SourceMap:
    """Where every key and value of one file starts: the places, not the data.

    The model keeps one per document so that every later stage can point into the file
    without holding what the file said.
    """

    file: str
    value_spans: Mapping[PathKey, Span]
    key_spans: Mapping[PathKey, Span]

    def span(self, path: Sequence[str | int], *, key: bool = False) -> Span:
        """Best place to point at for ``path``.

        A missing entry falls back to its nearest ancestor, so a check that
        finds a required field absent can still point into the right mapping.
        With ``key=True`` each level offers its key's place before its value's.
        """
        wanted = tuple(path)
        for end in range(len(wanted), -1, -1):
            prefix = wanted[:end]
            if key and prefix in self.key_spans:
                return self.key_spans[prefix]
            if prefix in self.value_spans:
                return self.value_spans[prefix]
        return Span(self.file, 1, 1)

    def has(self, path: Sequence[str | int]) -> bool:
        """Whether the file wrote a value at ``path``."""
        return tuple(path) in self.value_spans


@dataclass(frozen=True, slots=True)
class Document(SourceMap):
    """One parsed spec file: plain data, the place of every node in it (it is the file's
    `SourceMap`), and a digest of the text it was read from."""

    data: object
    digest: str = ""  # of the source text (UTF-8, without a byte-order mark)
    # the comments holding the importer's TODO marker, by the value they stand beside
    import_todos: tuple[tuple[PathKey, str], ...] = ()
    # each .inf and .nan of the data, by its path (`YamlData.non_finite`)
    non_finite: tuple[tuple[PathKey, float], ...] = ()

    @property
    def source(self) -> SourceMap:
        """The places alone, which the IR keeps without the data."""
        return SourceMap(self.file, self.value_spans, self.key_spans)


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A spec file as read, before any YAML: its display path, its text (None when it
    could not be read, `diagnostics` say why) and the digest of that text."""

    file: str
    text: str | None
    diagnostics: tuple[Diagnostic, ...] = ()
    digest: str = ""


@dataclass(frozen=True, slots=True)
class Sources:
    """A catalogue folder as read: catalogue.yaml (None when there is none), every tool
    file of tools/ in order, and what was found about the folder itself (no tools/, too
    many files, too much text)."""

    folder: str
    catalogue: SourceFile | None
    tools: tuple[SourceFile, ...]
    diagnostics: tuple[Diagnostic, ...]


def _encoded(text: str) -> bytes:
    # the bytes of a file's text: the file's own, without a byte-order mark (UTF-8 decoding
    # makes no surrogates, so encoding the text again gives back exactly what was read)
    return text.encode("utf-8", "surrogatepass")


def text_digest(text: str) -> str:
    """The digest of a spec file's text, the same whether its lines end in LF or CR LF."""
    return file_digest(_encoded(text.replace("\r\n", "\n").replace("\r", "\n")))


def load_document(
    path: Path, display: str, root: Path | None = None
) -> tuple[Document | None, list[Diagnostic]]:
    """Read one YAML spec file; problems come back as diagnostics, never raised.

    With `root`, a symbolic link is followed only when it stays inside the project.
    """
    return parse(_read(path, display, root))


def parse(source: SourceFile) -> tuple[Document | None, list[Diagnostic]]:
    """The document of a file read, with what reading and parsing it found."""
    file, text = source.file, source.text
    if text is None:
        return None, list(source.diagnostics)
    read, found = read_yaml(text, file)
    found.sort(key=lambda d: d.sort_key)
    if read is None:
        return None, [*source.diagnostics, *found]
    document = Document(
        file=file,
        data=read.data,
        value_spans=_SpanTable(file, read.value_places),
        key_spans=_SpanTable(file, read.key_places),
        digest=source.digest,
        import_todos=import_todos(text, read.root, read.value_places),
        non_finite=tuple(read.non_finite),
    )
    return document, [*source.diagnostics, *found]


def _tool_names(tools: Path) -> list[str]:
    """The name of every entry of tools/ named like a spec, whatever it is, in order: an
    entry that is not a readable regular file is reported when it is read, never skipped
    without a word. Hidden names are editor lock and backup files, never specs."""
    return sorted(
        name
        for name in os.listdir(tools)
        if name.endswith((".yaml", ".yml")) and not name.startswith(".")
    )


def _inside(folder: str, name: str) -> str:
    """A file of the catalogue folder as shown: `spec/x/tools/a.yaml`, or `tools/a.yaml`
    when the catalogue folder is the project root itself."""
    return name if folder in (".", "") else f"{folder}/{name}"


def _missing(folder: str, message: str, hint: str) -> Diagnostic:
    return error("TG008", message, Span(folder, 1, 1), hint)


def _read(path: Path, display: str, root: Path | None) -> SourceFile:
    text, found = read_text(path, display, root)
    digest = "" if text is None else text_digest(text)
    return SourceFile(display, text, tuple(found), digest)


def _catalogue_source(
    folder: Path, shown: str, root: Path | None, diagnostics: list[Diagnostic]
) -> SourceFile | None:
    path = folder / "catalogue.yaml"
    if os.path.lexists(path):
        return _read(path, _inside(shown, "catalogue.yaml"), root)
    hint = "Create catalogue.yaml in this folder, next to tools/."
    if (folder / "catalogue.yml").is_file():
        hint = "Rename catalogue.yml to catalogue.yaml."
    diagnostics.append(
        _missing(shown, "the catalogue folder has no catalogue.yaml", hint)
    )
    return None


def _tool_sources(
    folder: Path, shown: str, root: Path | None, diagnostics: list[Diagnostic]
) -> tuple[SourceFile, ...]:
    tools_folder = folder / "tools"
    if not tools_folder.is_dir():
        diagnostics.append(
            _missing(
                shown,
                "the catalogue folder has no tools/ folder",
                "Create a tools/ folder with one .yaml file per tool.",
            )
        )
        return ()
    try:
        names = _tool_names(tools_folder)
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        diagnostics.append(
            error(
                "TG005",
                f"cannot read the tools/ folder: {reason}",
                Span(_inside(shown, "tools"), 1, 1),
                "Check that you may list the files of the tools/ folder.",
            )
        )
        return ()
    if not names:
        diagnostics.append(
            _missing(
                shown,
                "the tools/ folder has no tool files (*.yaml or *.yml)",
                "Add one .yaml file per tool to the tools/ folder.",
            )
        )
    if len(names) > limits.MAX_TOOLS:
        diagnostics.append(
            error(
                "TG011",
                f"the tools/ folder holds {len(names):,} tool files, more than the "
                f"{limits.MAX_TOOLS:,} a catalogue may have",
                Span(_inside(shown, "tools"), 1, 1),
                "Split the catalogue: an agent holds at most a few dozen tools at once.",
            )
        )
        return ()
    sources: list[SourceFile] = []
    total = 0
    for name in names:
        display = _inside(shown, f"tools/{name}")
        if total > limits.MAX_CATALOGUE_BYTES:
            problem = error(
                "TG011",
                "the catalogue's spec files have more than "
                f"{limits.size_words(limits.MAX_CATALOGUE_BYTES)} together; this "
                "file and the ones after it were not read",
                Span(display, 1, 1),
                "Split the catalogue into smaller ones.",
            )
            sources.append(SourceFile(display, None, (problem,)))
            break
        source = _read(tools_folder / name, display, root)
        if source.text is not None:
            total += len(_encoded(source.text))
        sources.append(source)
    return tuple(sources)


def read_sources(folder: Path, display: str | None, root: Path | None) -> Sources:
    """Read catalogue.yaml and every tools/*.yaml of one catalogue folder, parsing none.

    With `root` (the project root), symbolic links are followed only within the project.
    """
    shown = str(folder) if display is None else display
    if not folder.is_dir():
        problem = _missing(
            shown,
            "the catalogue folder does not exist or is not a folder",
            "Pass the folder that holds catalogue.yaml and tools/.",
        )
        return Sources(shown, None, (), (problem,))
    diagnostics: list[Diagnostic] = []
    catalogue = _catalogue_source(folder, shown, root, diagnostics)
    tools = _tool_sources(folder, shown, root, diagnostics)
    return Sources(shown, catalogue, tools, tuple(diagnostics))
