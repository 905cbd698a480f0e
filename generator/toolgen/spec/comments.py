"""The one comment a spec check reads: `toolgen import`'s TODO beside a value it had to guess.

Comments are not data, and checks read data. But where a contract needs a value its source
does not state and the format has no room for a TODO text (the `effect` of a tool whose
source does not say what a call does: the format takes read, write or destructive, nothing
else), `toolgen import` writes a placeholder value with a `# TODO(toolgen import): ...`
comment beside it. The comment is the mark that no source stated the value, and it must stay
reported until a person edits that line, whatever else of the file they write. So load keeps
each comment holding that marker with the path of the value it stands beside, and the model
adds it to the file's strings, where TG313 reports it like any TODO text.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from toolgen.spec.yaml_data import PathKey, Place

IMPORT_TODO = "TODO(toolgen import):"


def _scalars(root: Node, first: int, last: int) -> Iterator[tuple[Place, Place]]:
    """Where each scalar that reaches into lines `first` to `last` starts and ends
    (0-based, as PyYAML marks them); a collection outside those lines is not entered."""
    stack = [root]
    while stack:
        node = stack.pop()
        start, end = node.start_mark, node.end_mark
        if start.line > last or end.line < first:
            continue
        if isinstance(node, ScalarNode):
            yield (start.line, start.column), (end.line, end.column)
        elif isinstance(node, MappingNode):
            stack.extend(part for pair in node.value for part in pair)
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)


def _comment_start(line: str, number: int, inside: list[tuple[Place, Place]]) -> int:
    """The column (0-based) where the line's comment starts, or -1: a '#' at the start of
    the line or after a blank that no scalar holds."""
    for column, char in enumerate(line):
        if char != "#" or (column and line[column - 1] not in " \t"):
            continue
        if not any(start <= (number, column) < end for start, end in inside):
            return column
    return -1


def _hash_before_marker(line: str) -> bool:
    at = line.find(IMPORT_TODO)
    return at >= 0 and "#" in line[:at]


def _beside(place: Place, values: Mapping[PathKey, Place]) -> PathKey:
    """The value a comment stands beside: the last one before it on its line, else the
    first one after it (a comment above a key speaks of that key)."""
    on_line = [(col, path) for path, (line, col) in values.items() if line == place[0]]
    before = [item for item in on_line if item[0] < place[1]]
    if before:
        return max(before, key=lambda item: item[0])[1]
    after = [(at, path) for path, at in values.items() if at > place and path]
    return min(after, key=lambda item: item[0])[1] if after else ()


def import_todos(
    text: str, root: Node, values: Mapping[PathKey, Place]
) -> tuple[tuple[PathKey, str], ...]:
    """The comments of a file that hold the importer's TODO marker, each with the path of
    the value it stands beside. Files without the marker cost one substring search."""
    if IMPORT_TODO not in text:
        return ()
    lines = text.splitlines()
    # the lines where a '#' comes before the marker; the marker in a TODO text (use_when,
    # a note) has none, and only these lines need the scalars around them
    marked = [n for n, line in enumerate(lines) if _hash_before_marker(line)]
    if not marked:
        return ()
    inside = list(_scalars(root, marked[0], marked[-1]))
    found: list[tuple[PathKey, str]] = []
    for number in marked:
        line = lines[number]
        column = _comment_start(line, number, inside)
        comment = line[column + 1 :].strip() if column >= 0 else ""
        if IMPORT_TODO in comment:
            found.append((_beside((number + 1, column + 1), values), comment))
    return tuple(found)
