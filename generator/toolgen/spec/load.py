"""Read spec YAML safely and remember where every key and value starts.

PyYAML's loaders build Python objects from tags (a door to code execution),
follow YAML 1.1 (``no`` becomes ``False``, ``2026-10-09`` a date), drop
duplicate keys silently and expand aliases. So the parser only *composes* a
node tree here and this module turns it into plain data itself, with YAML 1.2
core-schema rules, and every problem becomes a ``Diagnostic`` instead of an
exception.
"""

from __future__ import annotations

import gc
import math
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeAlias, cast

import yaml
from yaml.composer import ComposerError
from yaml.error import Mark, MarkedYAMLError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.reader import ReaderError

from toolgen.diagnostics import Diagnostic, Span, error
from toolgen.paths import file_digest
from toolgen.spec import limits
from toolgen.spec.comments import import_todos
from toolgen.spec.specfile import read_text

__all__ = [
    "Document",
    "LoadedCatalogue",
    "PathKey",
    "SourceMap",
    "load_catalogue",
    "load_document",
]

PathKey = tuple[str | int, ...]


_Place = tuple[int, int]


class _SpanTable(Mapping[PathKey, Span]):
    """Read-only spans of one file, built only when asked for.

    A catalogue holds a hundred thousand nodes and most spans are never read;
    keeping bare (line, column) pairs halves the walk and spares the garbage
    collector a hundred thousand tracked objects.
    """

    __slots__ = ("_file", "_places")

    def __init__(self, file: str, places: dict[PathKey, _Place]) -> None:
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
class Document:
    """One parsed spec file: plain data, the place of every node in it, and a digest of the
    text it was read from."""

    file: str
    data: object
    value_spans: Mapping[PathKey, Span]
    key_spans: Mapping[PathKey, Span]
    size: int = 0  # bytes of the source text (UTF-8, without a byte-order mark)
    digest: str = ""  # of the source text
    # the comments holding the importer's TODO marker, by the value they stand beside
    import_todos: tuple[tuple[PathKey, str], ...] = ()

    @property
    def source(self) -> SourceMap:
        return SourceMap(self.file, self.value_spans, self.key_spans)

    def span(self, path: Sequence[str | int], *, key: bool = False) -> Span:
        return self.source.span(path, key=key)


@dataclass(frozen=True, slots=True)
class LoadedCatalogue:
    folder: str
    catalogue: Document | None
    tools: tuple[Document, ...]
    diagnostics: tuple[Diagnostic, ...]
    # every tool entry of tools/, by display path, including those that could not be read
    tool_files: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A spec file as read, before any YAML: its display path, its text (None when it
    could not be read, `diagnostics` say why) and the digest of that text."""

    file: str
    text: str | None
    diagnostics: tuple[Diagnostic, ...] = ()
    digest: str = ""

    @staticmethod
    def of(
        file: str, text: str | None, diagnostics: Sequence[Diagnostic]
    ) -> SourceFile:
        digest = "" if text is None else text_digest(text)
        return SourceFile(file, text, tuple(diagnostics), digest)


@dataclass(frozen=True, slots=True)
class Sources:
    """A catalogue folder as read: catalogue.yaml (None when there is none), every tool
    file of tools/ in order, and what was found about the folder itself (no tools/, too
    many files, too much text)."""

    folder: str
    catalogue: SourceFile | None
    tools: tuple[SourceFile, ...]
    diagnostics: tuple[Diagnostic, ...]


# ---------------------------------------------------------------------------
# Composing: the parser builds nodes only, never objects.

_CORE: Final = "tag:yaml.org,2002:"
_STR: Final = _CORE + "str"
_INT: Final = _CORE + "int"
_FLOAT: Final = _CORE + "float"
_BOOL: Final = _CORE + "bool"
_NULL: Final = _CORE + "null"
_MAP: Final = _CORE + "map"
_SEQ: Final = _CORE + "seq"
_SCALAR_TAGS: Final = frozenset({_STR, _INT, _FLOAT, _BOOL, _NULL})

# Marker tags. They hold a space, which no tag written in YAML can, so a file
# cannot fake them. An untagged plain scalar gets _PLAIN so that it can be
# told apart from one with an explicit tag: `!!bool yes` must fail while a
# bare `yes` is the text "yes".
_PLAIN: Final = "toolgen plain scalar"
_ALIAS: Final = "toolgen alias"

_MAX_DEPTH: Final = limits.MAX_DEPTH


class _CoreSchema:
    """Resolver hooks for the composers; libyaml calls them for every node.

    Tags are resolved by this module after composing, so these only mark
    untagged plain scalars, and path resolvers (never registered here) are
    skipped. Keeping the hooks trivial makes composing about a third faster.
    """

    def resolve(
        self, kind: type[Node], value: object, implicit: tuple[bool, bool]
    ) -> str:
        if kind is ScalarNode:
            return _PLAIN if implicit[0] else _STR
        return _MAP if kind is MappingNode else _SEQ

    def descend_resolver(
        self, current_node: Node | None, current_index: object
    ) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None


class _PySafeComposer(_CoreSchema, yaml.SafeLoader):
    """Pure-Python composer, for when PyYAML was built without libyaml."""


class _AliasAwareComposer(_PySafeComposer):
    """Composer that keeps each alias as a marker node at the alias itself.

    PyYAML's composers hand back the anchored node for an alias, which loses
    where the alias was written and fails outright on an undefined alias or a
    reused anchor name. Only files that use aliases pay for this slower path.
    """

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            # The stubs leave Parser.get_event untyped; this pure-Python parser
            # always gives yaml.error.Mark positions.
            event: yaml.AliasEvent = self.get_event()  # type: ignore[no-untyped-call]
            start, end = cast(Mark, event.start_mark), cast(Mark, event.end_mark)
            return ScalarNode(_ALIAS, event.anchor, start, end)
        # Anchors are never looked up here, so forgetting them keeps a reused
        # anchor name from aborting the whole file.
        self.anchors = {}
        return super().compose_node(parent, index)


# A string: yaml.CSafeLoader does not exist at run time without libyaml.
_Composer: TypeAlias = "type[yaml.SafeLoader] | type[yaml.CSafeLoader]"
_FAST: _Composer = _PySafeComposer
if yaml.__with_libyaml__:

    class _CSafeComposer(_CoreSchema, yaml.CSafeLoader):
        pass

    _FAST = _CSafeComposer


class _AliasSeen(Exception):
    """Internal signal: the fast composer met an alias; recompose slowly."""


_SECOND_DOCUMENT_PROBLEM: Final = "but found another document"

_TOKEN_WORDS: Final = {
    "<block end>": "the end of an indented block",
    "<block mapping start>": "the start of an indented mapping",
    "<block sequence start>": "the start of an indented list",
    "<stream end>": "the end of the file",
    "<document start>": "a new document (---)",
    "<document end>": "a document end (...)",
    "<block collection start>": "the start of an indented block",
    "<scalar>": "a value",
}

_LINE_BREAK: Final = re.compile("\r\n|\r|\n")
_NON_PRINTABLE: Final = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)


def _span(file: str, mark: Mark | None) -> Span:
    if mark is None:
        return Span(file, 1, 1)
    return Span(file, mark.line + 1, mark.column + 1)


def _position(text: str, index: int) -> tuple[int, int]:
    breaks = list(_LINE_BREAK.finditer(text, 0, index))
    line_start = breaks[-1].end() if breaks else 0
    return len(breaks) + 1, index - line_start + 1


def _plain_words(problem: str) -> str:
    for token, words in _TOKEN_WORDS.items():
        problem = problem.replace(f"'{token}'", words).replace(token, words)
    return problem


def _line_at(text: str, mark: Mark | None) -> str:
    if mark is None:
        return ""
    lines = _LINE_BREAK.split(text)
    return lines[mark.line] if mark.line < len(lines) else ""


def _syntax_hint(problem: str, line: str) -> str:
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    if "\t" in indent or "\\t" in problem:
        return "Indent with spaces; YAML does not allow tabs for indentation."
    if "mapping values are not allowed" in problem:
        return (
            "A value seems to contain ': '. Put the whole value in quotes, "
            "or check the indentation of this line."
        )
    if "unknown escape character" in problem:
        return (
            "In double quotes a backslash starts an escape; write a regular "
            "expression in single quotes instead, such as '^\\d+$'."
        )
    return "Check the indentation, colons and quotes at and just before this place."


def _syntax_error(exc: MarkedYAMLError, file: str, text: str) -> Diagnostic:
    problem = _plain_words(exc.problem or exc.context or "the text is not valid YAML")
    message = f"YAML syntax error: {problem}"
    if exc.problem and exc.context and exc.context_mark is not None:
        context = _plain_words(exc.context)
        message += f" ({context} at line {exc.context_mark.line + 1})"
    mark = exc.problem_mark or exc.context_mark
    hint = _syntax_hint(problem, _line_at(text, mark))
    return error("TG001", message, _span(file, mark), hint)


def _reader_error(text: str, file: str) -> Diagnostic:
    found = _NON_PRINTABLE.search(text)
    if found is None:
        return error(
            "TG001",
            "YAML syntax error: the file holds a character YAML does not allow",
            Span(file, 1, 1),
            "Remove control characters from the file.",
        )
    line, col = _position(text, found.start())
    return error(
        "TG001",
        f"YAML syntax error: the character U+{ord(found.group()):04X} "
        "is not allowed in YAML",
        Span(file, line, col),
        "Remove the control character; YAML text may hold only printable "
        "characters, tabs and line breaks.",
    )


def _too_deep(file: str, mark: Mark | None) -> Diagnostic:
    return error(
        "TG011",
        f"values are nested more than {_MAX_DEPTH} levels deep, the limit for a spec file",
        _span(file, mark),
        "Flatten the structure; a spec never needs this much nesting.",
    )


class _TooManyNodes(Exception):
    """The walk met more values than a spec file may hold; it stops there."""

    def __init__(self, node: Node) -> None:
        super().__init__()
        self.node = node


def _compose_first(composer: _Composer, text: str) -> Node | None:
    loader = composer(text)
    try:
        loader.check_node()
        return loader.get_node()
    finally:
        loader.dispose()


def _compose(
    text: str, file: str, composer: _Composer
) -> tuple[Node | None, list[Diagnostic]]:
    """Compose the single document in ``text``.

    Bad input comes back as diagnostics; the only exception is _AliasSeen,
    which asks the caller to retry with the alias-aware composer.
    """
    try:
        return yaml.compose(text, Loader=composer), []
    except ComposerError as exc:
        # ComposerError carries no kind, only its wording.
        if exc.problem != _SECOND_DOCUMENT_PROBLEM:
            # Undefined alias or reused anchor: only the alias-aware composer
            # can place these precisely.
            if composer is not _AliasAwareComposer:
                raise _AliasSeen from exc
            return None, [_syntax_error(exc, file, text)]
        second = error(
            "TG007",
            "the file holds more than one YAML document; a second one starts here",
            _span(file, exc.problem_mark),
            "Keep one document per file: remove this '---' and move what "
            "follows into a file of its own.",
        )
        return _compose_first(composer, text), [second]
    except MarkedYAMLError as exc:
        return None, [_syntax_error(exc, file, text)]
    except ReaderError:
        return None, [_reader_error(text, file)]
    except RecursionError:
        return None, [_too_deep(file, None)]
    except yaml.YAMLError as exc:
        hint = "Check that the file is plain YAML text."
        return None, [
            error("TG001", f"YAML syntax error: {exc}", Span(file, 1, 1), hint)
        ]


# ---------------------------------------------------------------------------
# Scalars: YAML 1.2 core schema, not PyYAML's YAML 1.1 rules.

_NULL_WORDS: Final = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE_WORDS: Final = frozenset({"true", "True", "TRUE"})
_FALSE_WORDS: Final = frozenset({"false", "False", "FALSE"})
_DECIMAL: Final = re.compile(r"[-+]?[0-9]+")
_OCTAL: Final = re.compile(r"0o[0-7]+")
_HEX: Final = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT_TEXT: Final = re.compile(
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
)
_INF: Final = re.compile(r"[-+]?\.(?:inf|Inf|INF)")
_NAN: Final = re.compile(r"\.(?:nan|NaN|NAN)")
# Only these first characters can start a non-string core value; checking it
# first lets ordinary words skip every regex.
_SPECIAL_START: Final = frozenset("0123456789+-.~nNtTfF")


class _Misfit:
    """The text does not fit the type its tag (or its shape) asks for."""


_MISFIT: Final = _Misfit()


def _as_int(text: str) -> int | _Misfit:
    try:
        if _DECIMAL.fullmatch(text):
            return int(text)
        if _OCTAL.fullmatch(text):
            return int(text[2:], 8)
        if _HEX.fullmatch(text):
            return int(text[2:], 16)
    except ValueError:
        # Python refuses to parse integers longer than 4300 digits.
        pass
    return _MISFIT


def _as_float(text: str) -> float | _Misfit:
    if _FLOAT_TEXT.fullmatch(text):
        return float(text)
    if _INF.fullmatch(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.fullmatch(text):
        return math.nan
    return _MISFIT


def _as_bool(text: str) -> bool | _Misfit:
    if text in _TRUE_WORDS:
        return True
    if text in _FALSE_WORDS:
        return False
    return _MISFIT


def _as_null(text: str) -> _Misfit | None:
    return None if text in _NULL_WORDS else _MISFIT


def _plain_value(text: str) -> object:
    if not text:
        return None
    if text[0] not in _SPECIAL_START:
        return text
    if text in _NULL_WORDS:
        return None
    flag = _as_bool(text)
    if not isinstance(flag, _Misfit):
        return flag
    if _DECIMAL.fullmatch(text) or _OCTAL.fullmatch(text) or _HEX.fullmatch(text):
        return _as_int(text)
    number = _as_float(text)
    return text if isinstance(number, _Misfit) else number


def _tagged_value(tag: str, text: str) -> object:
    if tag == _STR:
        return text
    if tag == _INT:
        return _as_int(text)
    if tag == _FLOAT:
        return _as_float(text)
    if tag == _BOOL:
        return _as_bool(text)
    return _as_null(text)


def _show_tag(tag: str) -> str:
    return "!!" + tag[len(_CORE) :] if tag.startswith(_CORE) else tag


def _snippet(text: str) -> str:
    one_line = text.replace("\n", " ").strip()
    return one_line if len(one_line) <= 40 else one_line[:37] + "..."


def _kind_words(node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    return "a single value"


# ---------------------------------------------------------------------------
# Walking the node tree into plain data.


class _Walker:
    """Turns one composed tree into plain data, spans and diagnostics."""

    __slots__ = (
        "diagnostics",
        "file",
        "key_places",
        "nodes",
        "seen",
        "value_places",
    )

    def __init__(self, file: str, *, detect_reuse: bool) -> None:
        self.file = file
        self.nodes = 0
        self.diagnostics: list[Diagnostic] = []
        self.value_places: dict[PathKey, _Place] = {}
        self.key_places: dict[PathKey, _Place] = {}
        # None switches reuse tracking off; it costs a fifth of the walk.
        self.seen: set[int] | None = set() if detect_reuse else None

    def at(self, node: Node) -> Span:
        return _span(self.file, node.start_mark)

    def report(self, code: str, message: str, node: Node, hint: str) -> None:
        self.diagnostics.append(error(code, message, self.at(node), hint))

    def check_reuse(self, node: Node) -> None:
        # The fast composer returns the anchored node itself for an alias, so
        # meeting a node twice is the only trace an alias leaves there.
        if self.seen is not None:
            if id(node) in self.seen:
                raise _AliasSeen
            self.seen.add(id(node))

    def value(self, node: Node, path: PathKey, depth: int) -> object:
        mark = node.start_mark
        self.value_places[path] = (mark.line + 1, mark.column + 1)
        self.nodes += 1
        if self.nodes > limits.MAX_NODES:
            raise _TooManyNodes(node)
        if self.seen is not None:
            self.check_reuse(node)
        if isinstance(node, ScalarNode):
            text: str = node.value
            # Most values are plain words; skip the general path for them.
            if node.tag == _PLAIN and text and text[0] not in _SPECIAL_START:
                return text
            return self.scalar(node)
        if depth > _MAX_DEPTH:
            self.diagnostics.append(_too_deep(self.file, node.start_mark))
            return None
        if not self.collection_tag_ok(node):
            return None
        if isinstance(node, MappingNode):
            return self.mapping(node, path, depth)
        return [
            self.value(item, (*path, index), depth + 1)
            for index, item in enumerate(node.value)
        ]

    def discard(self, node: Node, path: PathKey, depth: int) -> None:
        """Walk a value that will not be kept, for its diagnostics only."""
        kept = self.value_places, self.key_places
        self.value_places, self.key_places = {}, {}
        try:
            self.value(node, path, depth)
        finally:
            self.value_places, self.key_places = kept

    def collection_tag_ok(self, node: Node) -> bool:
        expected = _MAP if isinstance(node, MappingNode) else _SEQ
        if node.tag == expected:
            return True
        if node.tag in (_MAP, _SEQ) or node.tag in _SCALAR_TAGS:
            self.misfit_tag(node)
        else:
            self.foreign_tag(node)
        return False

    def scalar(self, node: ScalarNode) -> object:
        text: str = node.value
        if node.tag == _PLAIN:
            result = _plain_value(text)
        elif node.tag == _ALIAS:
            self.alias(node)
            return None
        elif node.tag in _SCALAR_TAGS:
            result = _tagged_value(node.tag, text)
        elif node.tag in (_MAP, _SEQ):
            self.misfit_tag(node)
            return None
        else:
            self.foreign_tag(node)
            return None
        if isinstance(result, _Misfit):
            self.misfit_value(node, text)
            return None
        return result

    def mapping(
        self, node: MappingNode, path: PathKey, depth: int
    ) -> dict[str, object]:
        result: dict[str, object] = {}
        for key_node, value_node in node.value:
            # Most keys are plain words; only the rest need the careful path.
            if key_node.tag == _PLAIN and key_node.value and self.seen is None:
                key: str | None = key_node.value
            else:
                key = self.key(key_node)
            if key is None:
                self.discard(value_node, path, depth + 1)
                continue
            if key == "<<" and key_node.tag == _PLAIN:
                self.merge_key(key_node)
                continue
            child = (*path, key)
            if key in result:
                self.duplicate(key_node, key, self.key_places[child][0])
                self.discard(value_node, child, depth + 1)
                continue
            mark = key_node.start_mark
            self.key_places[child] = (mark.line + 1, mark.column + 1)
            result[key] = self.value(value_node, child, depth + 1)
        return result

    def key(self, node: Node) -> str | None:
        """The key's source text, or None (reported) when it cannot be a key."""
        self.check_reuse(node)
        if not isinstance(node, ScalarNode):
            self.report(
                "TG009",
                f"a mapping key must be a single word or text, not {_kind_words(node)}",
                node,
                "Write the key as plain text before the colon, e.g. 'name:'.",
            )
            return None
        text: str = node.value
        if node.tag == _ALIAS:
            self.alias(node)
            return None
        if node.tag == _NULL or (node.tag == _PLAIN and text == ""):
            self.report(
                "TG009",
                "this mapping key is empty (null); every key needs a name",
                node,
                "Write the key as plain text before the colon, e.g. 'name:'.",
            )
            return None
        if node.tag != _PLAIN and node.tag not in _SCALAR_TAGS:
            self.foreign_tag(node)
            return None
        return text

    def duplicate(self, node: Node, key: str, first_line: int) -> None:
        self.report(
            "TG002",
            f"duplicate key '{_snippet(key)}': it is already defined on line "
            f"{first_line}",
            node,
            "Remove one of them; YAML keeps only one value per key.",
        )

    def alias(self, node: ScalarNode) -> None:
        self.report(
            "TG004",
            f"the alias *{node.value} is not supported; toolgen does not read "
            "anchors and aliases",
            node,
            "Write the value out in full here instead of referring to an anchor.",
        )

    def merge_key(self, node: Node) -> None:
        self.report(
            "TG004",
            "the merge key '<<' is not supported; toolgen does not read anchors, "
            "aliases or merges",
            node,
            "Write the keys out in full in this mapping.",
        )

    def foreign_tag(self, node: Node) -> None:
        self.report(
            "TG003",
            f"the tag {_show_tag(node.tag)} is not plain data; toolgen never builds "
            "objects from tags",
            node,
            "Remove the tag and write the value as text, a number, true/false, "
            "a list or a mapping.",
        )

    def misfit_tag(self, node: Node) -> None:
        self.report(
            "TG010",
            f"the tag {_show_tag(node.tag)} does not fit {_kind_words(node)}",
            node,
            "Remove the tag; toolgen sees from the value itself what type it is.",
        )

    def misfit_value(self, node: ScalarNode, text: str) -> None:
        if node.tag == _PLAIN:
            message = f"the number {_snippet(text)} has too many digits to read"
        else:
            message = (
                f"the value '{_snippet(text)}' does not fit its tag "
                f"{_show_tag(node.tag)}"
            )
        hint = "Remove the tag, or change the value to one of the type the tag names."
        if node.tag == _PLAIN:
            hint = "Put the number in quotes to keep it as text."
        self.report("TG010", message, node, hint)


def _top_level_problem(root: Node | None, file: str) -> Diagnostic:
    hint = "Write the file as 'key: value' lines, for example 'name: find_customer'."
    if root is None or (
        isinstance(root, ScalarNode) and root.tag == _PLAIN and root.value == ""
    ):
        return error(
            "TG006",
            "the file has no content; it must hold a YAML mapping of keys to values",
            Span(file, 1, 1),
            hint,
        )
    return error(
        "TG006",
        f"the file holds {_kind_words(root)} at the top level; it must be a YAML "
        "mapping of keys to values",
        _span(file, root.start_mark),
        hint,
    )


def _build(
    text: str, file: str, composer: _Composer
) -> tuple[Document | None, list[Diagnostic]]:
    root, diagnostics = _compose(text, file, composer)
    if root is None and diagnostics:
        return None, diagnostics
    if not isinstance(root, MappingNode):
        return None, [*diagnostics, _top_level_problem(root, file)]
    # An alias is always written with '*'; without one no node can be shared.
    shared = composer is not _AliasAwareComposer and "*" in text
    walker = _Walker(file, detect_reuse=shared)
    try:
        data = walker.value(root, (), 0)
    except _TooManyNodes as exc:
        return None, [
            *diagnostics,
            error(
                "TG011",
                f"the file holds more than {limits.MAX_NODES:,} keys, values and list "
                "items, the limit for a spec file",
                _span(file, exc.node.start_mark),
                "Split the tool, or shorten its lists (examples, enums); a tool contract "
                "is read on every turn and should stay small.",
            ),
        ]
    diagnostics.extend(walker.diagnostics)
    if not isinstance(data, dict):
        return None, diagnostics
    encoded = _encoded(text)
    document = Document(
        file=file,
        data=data,
        value_spans=_SpanTable(file, walker.value_places),
        key_spans=_SpanTable(file, walker.key_places),
        size=len(encoded),
        digest=file_digest(encoded),
        import_todos=import_todos(text, root, walker.value_places),
    )
    return document, diagnostics


def _parse(text: str, file: str) -> tuple[Document | None, list[Diagnostic]]:
    try:
        return _build(text, file, _FAST)
    except _AliasSeen:
        return _build(text, file, _AliasAwareComposer)


def _encoded(text: str) -> bytes:
    # the bytes of a file's text: the file's own, without a byte-order mark (UTF-8 decoding
    # makes no surrogates, so encoding the text again gives back exactly what was read)
    return text.encode("utf-8", "surrogatepass")


def text_digest(text: str) -> str:
    """The digest of a spec file's text, as `Document.digest` holds it."""
    return file_digest(_encoded(text))


def load_document(
    path: Path, display: str, root: Path | None = None
) -> tuple[Document | None, list[Diagnostic]]:
    """Read one YAML spec file; problems come back as diagnostics, never raised.

    With `root`, a symbolic link is followed only when it stays inside the project.
    """
    text, diagnostics = read_text(path, display, root)
    return parse(SourceFile(display, text, tuple(diagnostics)))


def parse(source: SourceFile) -> tuple[Document | None, list[Diagnostic]]:
    """The document of a file read, with what reading and parsing it found."""
    if source.text is None:
        return None, list(source.diagnostics)
    document, found = _parse(source.text, source.file)
    found.sort(key=lambda d: d.sort_key)
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
    return SourceFile.of(display, text, found)


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


def catalogue_document(folder: Path, shown: str, root: Path | None) -> Document | None:
    """catalogue.yaml of the catalogue folder, as `load_catalogue` reads it; None when it is
    missing or load finds anything in it (what is found is `load_catalogue`'s to say)."""
    found: list[Diagnostic] = []
    source = _catalogue_source(folder, shown, root, found)
    if source is None or found:
        return None
    document, problems = parse(source)
    return None if problems else document


def tool_entries(folder: Path, shown: str) -> list[tuple[str, str]]:
    """The names of the tool entries of the catalogue folder (in tools/) and their display
    paths, in the order `load_catalogue` reads them; none when tools/ cannot be listed
    (`load_catalogue` says why)."""
    try:
        names = _tool_names(folder / "tools")
    except OSError:
        return []
    return [(name, _inside(shown, f"tools/{name}")) for name in names]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Hold off the cyclic garbage collector while spec files are parsed.

    Composing allocates a hundred or more short-lived nodes per file, and with
    the documents already loaded kept alive the collector rescans them over
    and over: that was 40% of loading 1,000 files. Loading makes no
    reference cycles, so nothing piles up meanwhile.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_catalogue(
    folder: Path, display: str | None = None, root: Path | None = None
) -> LoadedCatalogue:
    """Load catalogue.yaml and every tools/*.yaml of one catalogue folder."""
    sources = read_sources(folder, display, root)
    diagnostics = list(sources.diagnostics)
    with collector_paused():
        catalogue = None
        if sources.catalogue is not None:
            catalogue, found = parse(sources.catalogue)
            diagnostics.extend(found)
        tools = []
        for source in sources.tools:
            document, found = parse(source)
            diagnostics.extend(found)
            if document is not None:
                tools.append(document)
    return LoadedCatalogue(
        sources.folder,
        catalogue,
        tuple(tools),
        tuple(diagnostics),
        tuple(s.file for s in sources.tools),
    )
