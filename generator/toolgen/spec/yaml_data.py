"""A composed YAML tree as plain data: dicts, lists, text, numbers, booleans and null, with
the place of every key and value, and every problem as a diagnostic.

The walk resolves each node's tag with the core schema (`yaml_scalars`), refuses what plain
data cannot hold (any other tag, a key that is not text, a duplicate key, an alias or a merge
key), and stops at the limits of a spec file (`limits.MAX_DEPTH`, `limits.MAX_NODES`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from toolgen.diagnostics import Diagnostic, Span, error
from toolgen.spec import limits, yaml_compose
from toolgen.spec.yaml_compose import (
    ALIAS,
    PLAIN,
    AliasAwareComposer,
    AliasSeen,
    Composer,
    compose,
    span_at,
    too_deep,
)
from toolgen.spec.yaml_scalars import (
    MAP_TAG,
    NULL_TAG,
    SCALAR_TAGS,
    SEQ_TAG,
    SPECIAL_START,
    Misfit,
    plain_value,
    show_tag,
    tagged_value,
)
from toolgen.text import clipped

# the keys and list indexes from the top of a file to a value, and a line and column (from 1)
PathKey = tuple[str | int, ...]
Place = tuple[int, int]


@dataclass(frozen=True, slots=True)
class YamlData:
    """One file's YAML as plain data: its top-level mapping, the place of every value and
    key by its path, the composed root (what reads the text beside the values needs it:
    `comments.import_todos`), and each .inf and .nan of the data by its path (JSON has
    none: the format check reports them)."""

    data: dict[str, object]
    root: MappingNode
    value_places: dict[PathKey, Place]
    key_places: dict[PathKey, Place]
    non_finite: list[tuple[PathKey, float]]


class _TooManyNodes(Exception):
    """The walk met more values than a spec file may hold; it stops there."""

    def __init__(self, node: Node) -> None:
        super().__init__()
        self.node = node


def _snippet(text: str) -> str:
    return clipped(text.replace("\n", " ").strip(), 40)


def _kind_words(node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    return "a single value"


class _Walker:
    """Turns one composed tree into plain data, spans and diagnostics."""

    __slots__ = (
        "diagnostics",
        "file",
        "key_places",
        "nodes",
        "non_finite",
        "seen",
        "value_places",
    )

    def __init__(self, file: str, *, detect_reuse: bool) -> None:
        self.file = file
        self.nodes = 0
        self.diagnostics: list[Diagnostic] = []
        self.value_places: dict[PathKey, Place] = {}
        self.key_places: dict[PathKey, Place] = {}
        self.non_finite: list[tuple[PathKey, float]] = []
        # None switches reuse tracking off; it costs a fifth of the walk.
        self.seen: set[int] | None = set() if detect_reuse else None

    def report(self, code: str, message: str, node: Node, hint: str) -> None:
        self.diagnostics.append(
            error(code, message, span_at(self.file, node.start_mark), hint)
        )

    def check_reuse(self, node: Node) -> None:
        # The fast composer returns the anchored node itself for an alias, so
        # meeting a node twice is the only trace an alias leaves there.
        if self.seen is not None:
            if id(node) in self.seen:
                raise AliasSeen
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
            if node.tag == PLAIN and text and text[0] not in SPECIAL_START:
                return text
            return self.scalar(node, path)
        if depth > limits.MAX_DEPTH:
            self.diagnostics.append(too_deep(self.file, node.start_mark))
            return None
        if node.tag != (MAP_TAG if isinstance(node, MappingNode) else SEQ_TAG):
            self.wrong_tag(node)
            return None
        if isinstance(node, MappingNode):
            return self.mapping(node, path, depth)
        return [
            self.value(item, (*path, index), depth + 1)
            for index, item in enumerate(node.value)
        ]

    def discard(self, node: Node, path: PathKey, depth: int) -> None:
        """Walk a value that will not be kept, for its diagnostics only."""
        kept = self.value_places, self.key_places, self.non_finite
        self.value_places, self.key_places, self.non_finite = {}, {}, []
        try:
            self.value(node, path, depth)
        finally:
            self.value_places, self.key_places, self.non_finite = kept

    def scalar(self, node: ScalarNode, path: PathKey) -> object:
        text: str = node.value
        if node.tag == PLAIN:
            result = plain_value(text)
        elif node.tag == ALIAS:
            self.alias(node)
            return None
        elif node.tag in SCALAR_TAGS:
            result = tagged_value(node.tag, text)
        else:
            self.wrong_tag(node)
            return None
        if isinstance(result, Misfit):
            self.misfit_value(node, text)
            return None
        if isinstance(result, float) and not math.isfinite(result):
            self.non_finite.append((path, result))
        return result

    def mapping(
        self, node: MappingNode, path: PathKey, depth: int
    ) -> dict[str, object]:
        result: dict[str, object] = {}
        for key_node, value_node in node.value:
            # Most keys are plain words; only the rest need the careful path.
            if key_node.tag == PLAIN and key_node.value and self.seen is None:
                key: str | None = key_node.value
            else:
                key = self.key(key_node)
            if key is None:
                self.discard(value_node, path, depth + 1)
                continue
            if key == "<<" and key_node.tag == PLAIN:
                self.report(
                    "TG004",
                    "the merge key '<<' is not supported; toolgen does not read anchors, "
                    "aliases or merges",
                    key_node,
                    "Write the keys out in full in this mapping.",
                )
                continue
            child = (*path, key)
            if key in result:
                self.report(
                    "TG002",
                    f"duplicate key '{_snippet(key)}': it is already defined on line "
                    f"{self.key_places[child][0]}",
                    key_node,
                    "Remove one of them; YAML keeps only one value per key.",
                )
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
        if node.tag == ALIAS:
            self.alias(node)
            return None
        if node.tag == NULL_TAG or (node.tag == PLAIN and text == ""):
            self.report(
                "TG009",
                "this mapping key is empty (null); every key needs a name",
                node,
                "Write the key as plain text before the colon, e.g. 'name:'.",
            )
            return None
        if node.tag != PLAIN and node.tag not in SCALAR_TAGS:
            self.foreign_tag(node)
            return None
        return text

    def alias(self, node: ScalarNode) -> None:
        self.report(
            "TG004",
            f"the alias *{node.value} is not supported; toolgen does not read "
            "anchors and aliases",
            node,
            "Write the value out in full here instead of referring to an anchor.",
        )

    def foreign_tag(self, node: Node) -> None:
        self.report(
            "TG003",
            f"the tag {show_tag(node.tag)} is not plain data; toolgen never builds "
            "objects from tags",
            node,
            "Remove the tag and write the value as text, a number, true/false, "
            "a list or a mapping.",
        )

    def wrong_tag(self, node: Node) -> None:
        """TG010 for a core tag on a value of another kind (`!!map` on a list, `!!int` on a
        mapping), TG003 (`foreign_tag`) for any other tag."""
        if node.tag not in (MAP_TAG, SEQ_TAG) and node.tag not in SCALAR_TAGS:
            self.foreign_tag(node)
            return
        self.report(
            "TG010",
            f"the tag {show_tag(node.tag)} does not fit {_kind_words(node)}",
            node,
            "Remove the tag; toolgen sees from the value itself what type it is.",
        )

    def misfit_value(self, node: ScalarNode, text: str) -> None:
        if node.tag == PLAIN:
            message = f"the number {_snippet(text)} has too many digits to read"
        else:
            message = (
                f"the value '{_snippet(text)}' does not fit its tag "
                f"{show_tag(node.tag)}"
            )
        hint = "Remove the tag, or change the value to one of the type the tag names."
        if node.tag == PLAIN:
            hint = "Put the number in quotes to keep it as text."
        self.report("TG010", message, node, hint)


def _top_level_problem(root: Node | None, file: str) -> Diagnostic:
    hint = "Write the file as 'key: value' lines, for example 'name: find_customer'."
    if root is None or (
        isinstance(root, ScalarNode) and root.tag == PLAIN and root.value == ""
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
        span_at(file, root.start_mark),
        hint,
    )


def _walk(
    text: str, file: str, composer: Composer
) -> tuple[YamlData | None, list[Diagnostic]]:
    root, diagnostics = compose(text, file, composer)
    if root is None and diagnostics:
        return None, diagnostics
    if not isinstance(root, MappingNode):
        return None, [*diagnostics, _top_level_problem(root, file)]
    # An alias is always written with '*'; without one no node can be shared.
    shared = composer is not AliasAwareComposer and "*" in text
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
                span_at(file, exc.node.start_mark),
                "Split the tool, or shorten its lists (examples, enums); a tool contract "
                "is read on every turn and should stay small.",
            ),
        ]
    diagnostics.extend(walker.diagnostics)
    if not isinstance(data, dict):
        return None, diagnostics
    read = YamlData(
        data, root, walker.value_places, walker.key_places, walker.non_finite
    )
    return read, diagnostics


def read_yaml(text: str, file: str) -> tuple[YamlData | None, list[Diagnostic]]:
    """The plain data of one spec file's text and the place of every key and value in it;
    None when the text is not a readable YAML mapping. Every problem is a diagnostic."""
    # the composer is looked up on its module, so a test can make it the pure-Python one
    try:
        return _walk(text, file, yaml_compose.FAST)
    except AliasSeen:
        return _walk(text, file, AliasAwareComposer)
