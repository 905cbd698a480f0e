"""Composing a spec file: PyYAML's parser makes a tree of nodes, never Python objects.

PyYAML's loaders build objects from tags (a door to code execution), so a spec file is only
*composed* here, into nodes that keep the place of everything written; `yaml_data` turns the
tree into plain data with the core schema's rules. Every syntax error comes back as a
diagnostic in plain words, with a hint, never as an exception.

libyaml's composer is the fast one. It hands back the anchored node itself for an alias, which
loses where the alias was written, so a file that uses an alias is composed again with the
alias-aware pure-Python composer (`AliasSeen` asks for that).
"""

from __future__ import annotations

import re
from typing import Final, TypeAlias, cast

import yaml
from yaml.composer import ComposerError
from yaml.error import Mark, MarkedYAMLError
from yaml.nodes import MappingNode, Node, ScalarNode
from yaml.reader import ReaderError

from toolgen.diagnostics import Diagnostic, Span, error
from toolgen.spec import limits
from toolgen.spec.yaml_scalars import MAP_TAG, SEQ_TAG, STR_TAG

# Marker tags. They hold a space, which no tag written in YAML can, so a file
# cannot fake them. An untagged plain scalar gets PLAIN so that it can be
# told apart from one with an explicit tag: `!!bool yes` must fail while a
# bare `yes` is the text "yes".
PLAIN: Final = "toolgen plain scalar"
ALIAS: Final = "toolgen alias"


class _CoreSchema:
    """Resolver hooks for the composers; libyaml calls them for every node.

    Tags are resolved after composing (yaml_data), so these only mark
    untagged plain scalars, and path resolvers (never registered here) are
    skipped. Keeping the hooks trivial makes composing about a third faster.
    """

    def resolve(
        self, kind: type[Node], value: object, implicit: tuple[bool, bool]
    ) -> str:
        if kind is ScalarNode:
            return PLAIN if implicit[0] else STR_TAG
        return MAP_TAG if kind is MappingNode else SEQ_TAG

    def descend_resolver(
        self, current_node: Node | None, current_index: object
    ) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None


class PySafeComposer(_CoreSchema, yaml.SafeLoader):
    """Pure-Python composer, for when PyYAML was built without libyaml."""


class AliasAwareComposer(PySafeComposer):
    """Composer that keeps each alias as a marker node at the alias itself (why: the
    module's docstring), where PyYAML's fail outright on an undefined alias or a reused
    anchor name."""

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            # The stubs leave Parser.get_event untyped; this pure-Python parser
            # always gives yaml.error.Mark positions.
            event: yaml.AliasEvent = self.get_event()  # type: ignore[no-untyped-call]
            start, end = cast(Mark, event.start_mark), cast(Mark, event.end_mark)
            return ScalarNode(ALIAS, event.anchor, start, end)
        # Anchors are never looked up here, so forgetting them keeps a reused
        # anchor name from aborting the whole file.
        self.anchors = {}
        return super().compose_node(parent, index)


# A string: yaml.CSafeLoader does not exist at run time without libyaml.
Composer: TypeAlias = "type[yaml.SafeLoader] | type[yaml.CSafeLoader]"
FAST: Composer = PySafeComposer
if yaml.__with_libyaml__:

    class _CSafeComposer(_CoreSchema, yaml.CSafeLoader):
        pass

    FAST = _CSafeComposer


class AliasSeen(Exception):
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


def span_at(file: str, mark: Mark | None) -> Span:
    """The place a PyYAML mark points at, counted from 1 (the file's start without one)."""
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
        message += f" ({_plain_words(exc.context)} at line {exc.context_mark.line + 1})"
    mark = exc.problem_mark or exc.context_mark
    hint = _syntax_hint(problem, _line_at(text, mark))
    return error("TG001", message, span_at(file, mark), hint)


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


def too_deep(file: str, mark: Mark | None) -> Diagnostic:
    """TG011: values nested deeper than a spec file may hold."""
    return error(
        "TG011",
        f"values are nested more than {limits.MAX_DEPTH} levels deep, the limit for a spec file",
        span_at(file, mark),
        "Flatten the structure; a spec never needs this much nesting.",
    )


def compose(
    text: str, file: str, composer: Composer
) -> tuple[Node | None, list[Diagnostic]]:
    """Compose the single document in ``text``.

    Bad input comes back as diagnostics; the only exception is AliasSeen,
    which asks the caller to retry with the alias-aware composer.
    """
    try:
        return yaml.compose(text, Loader=composer), []
    except ComposerError as exc:
        # ComposerError carries no kind, only its wording.
        if exc.problem != _SECOND_DOCUMENT_PROBLEM:
            # Undefined alias or reused anchor: only the alias-aware composer
            # can place these precisely.
            if composer is not AliasAwareComposer:
                raise AliasSeen from exc
            return None, [_syntax_error(exc, file, text)]
        second = error(
            "TG007",
            "the file holds more than one YAML document; a second one starts here",
            span_at(file, exc.problem_mark),
            "Keep one document per file: remove this '---' and move what "
            "follows into a file of its own.",
        )
        loader = composer(text)  # the first document alone
        try:
            loader.check_node()
            return loader.get_node(), [second]
        finally:
            loader.dispose()
    except MarkedYAMLError as exc:
        return None, [_syntax_error(exc, file, text)]
    except ReaderError:
        return None, [_reader_error(text, file)]
    except RecursionError:
        return None, [too_deep(file, None)]
    except yaml.YAMLError as exc:
        hint = "Check that the file is plain YAML text."
        return None, [
            error("TG001", f"YAML syntax error: {exc}", Span(file, 1, 1), hint)
        ]
