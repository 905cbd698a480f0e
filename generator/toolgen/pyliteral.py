"""Python literals for generated code: the one place where spec values become source.

Spec text is data. It reaches generated modules only through the functions here, as
escaped literals, and already laid out the way ``ruff format`` (0.17.6, line length 88)
lays it out, so the build never has to run ruff:

* ``py_str`` / ``py_literal``: one-line literals (``ast.literal_eval`` round-trips).
* ``format_assignment``: ``target = value``, exploded black-style if it does not fit.
* ``format_expression``: a value embedded in a template at some indentation.
* ``format_text_block``: a long multi-line string as an implicit concatenation.

Ruff behaviours mirrored here (checked against ruff 0.17.6):

* Quotes: double, unless the text holds more ``"`` than ``'`` (then single quotes).
  Hex escapes are lowercase; ruff removes ``+`` from float exponents (``1e20``).
* A bracket that does not fit explodes one element per line; nested brackets explode
  only if they do not fit on their own line. A trailing comma is added when there are
  two or more elements (and always for a one-element tuple); a lone element gets none.
* Long strings and numbers are never split, and a long dict value is not parenthesized.
* ``target = scalar`` that does not fit gets ``( ... )`` around the value if that makes
  the value fit; with an annotation that can split (``Final[str]``, ``int | None``) the
  value is parenthesized even when it still does not fit.
* Implicitly concatenated strings are joined whenever the joined literal fits, either
  after ``target = `` or alone inside the parentheses.
* Width is counted per character as ruff does (unicode-width): wide East Asian
  characters count 2, combining marks 0, plus the exceptions in ``_WIDTH_EXCEPTIONS``.
"""

from __future__ import annotations

import ast
import math
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "format_assignment",
    "format_expression",
    "format_text_block",
    "py_literal",
    "py_str",
]

_INDENT = 4

# -------------------------------------------------------------------------------------
# Width, as ruff's printer measures it
# -------------------------------------------------------------------------------------

# Printable characters whose ruff width differs from the rule in ``_char_width``
# (measured with ruff 0.17.6 against every character str.isprintable() accepts).
_WIDTH_EXCEPTIONS: tuple[tuple[int, int, int], ...] = (
    (0x09BE, 0x09BE, 0),
    (0x09D7, 0x09D7, 0),
    (0x0B3E, 0x0B3E, 0),
    (0x0B57, 0x0B57, 0),
    (0x0BBE, 0x0BBE, 0),
    (0x0BD7, 0x0BD7, 0),
    (0x0CC0, 0x0CC0, 0),
    (0x0CC2, 0x0CC2, 0),
    (0x0CC7, 0x0CC8, 0),
    (0x0CCA, 0x0CCB, 0),
    (0x0CD5, 0x0CD6, 0),
    (0x0D3E, 0x0D3E, 0),
    (0x0D4E, 0x0D4E, 0),
    (0x0D57, 0x0D57, 0),
    (0x0DCF, 0x0DCF, 0),
    (0x0DDF, 0x0DDF, 0),
    (0x1160, 0x11FF, 0),
    (0x1715, 0x1715, 0),
    (0x1734, 0x1734, 0),
    (0x17A4, 0x17A4, 2),
    (0x17D8, 0x17D8, 3),
    (0x1B35, 0x1B35, 0),
    (0x1B3B, 0x1B3B, 0),
    (0x1B3D, 0x1B3D, 0),
    (0x1B43, 0x1B44, 0),
    (0x1BAA, 0x1BAA, 0),
    (0x1BF2, 0x1BF3, 0),
    (0x2630, 0x2637, 2),
    (0x268A, 0x268F, 2),
    (0x2D7F, 0x2D7F, 1),
    (0x302E, 0x302F, 0),
    (0x3164, 0x3164, 0),
    (0x4DC0, 0x4DFF, 2),
    (0xA8FA, 0xA8FA, 0),
    (0xA953, 0xA953, 0),
    (0xA9C0, 0xA9C0, 0),
    (0xD7B0, 0xD7C6, 0),
    (0xD7CB, 0xD7FB, 0),
    (0xFF9E, 0xFFA0, 0),
    (0x111C0, 0x111C0, 0),
    (0x111C2, 0x111C3, 0),
    (0x11235, 0x11235, 0),
    (0x1133E, 0x1133E, 0),
    (0x1134D, 0x1134D, 0),
    (0x11357, 0x11357, 0),
    (0x114B0, 0x114B0, 0),
    (0x114BD, 0x114BD, 0),
    (0x115AF, 0x115AF, 0),
    (0x116B6, 0x116B6, 0),
    (0x1171E, 0x1171E, 1),
    (0x11930, 0x11930, 0),
    (0x1193D, 0x1193D, 0),
    (0x1193F, 0x1193F, 0),
    (0x11941, 0x11941, 0),
    (0x11A84, 0x11A89, 0),
    (0x11D46, 0x11D46, 0),
    (0x16FF0, 0x16FF1, 0),
    (0x1D165, 0x1D166, 0),
    (0x1D16D, 0x1D172, 0),
    (0x1D300, 0x1D356, 2),
    (0x1D360, 0x1D376, 2),
)
_EXCEPTION_STARTS = tuple(start for start, _, _ in _WIDTH_EXCEPTIONS)


@lru_cache(maxsize=8192)
def _char_width(ch: str) -> int:
    code = ord(ch)
    i = bisect_right(_EXCEPTION_STARTS, code) - 1
    if i >= 0 and code <= _WIDTH_EXCEPTIONS[i][1]:
        return _WIDTH_EXCEPTIONS[i][2]
    if unicodedata.category(ch) in ("Mn", "Me"):
        return 0
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return 2
    return 1


def _width(text: str) -> int:
    """Columns ruff counts for ``text`` (one line, no tabs)."""
    if text.isascii():
        return len(text)
    return sum(1 if ch < "\x80" else _char_width(ch) for ch in text)


# -------------------------------------------------------------------------------------
# One-line literals
# -------------------------------------------------------------------------------------

_NAMED_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


class _EscapeTable(dict[int, str]):
    """``str.translate`` table for one quote character, filled in on first use."""

    def __init__(self, quote: str) -> None:
        super().__init__()
        self.quote = quote

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        if ch == self.quote:
            escaped = "\\" + ch
        elif ch in _NAMED_ESCAPES:
            escaped = _NAMED_ESCAPES[ch]
        elif ch.isprintable():
            escaped = ch
        elif code < 0x100:
            escaped = f"\\x{code:02x}"
        elif code < 0x10000:
            escaped = f"\\u{code:04x}"
        else:
            escaped = f"\\U{code:08x}"
        if len(self) < 0x10000:  # bounded: spec text may use any characters
            self[code] = escaped
        return escaped


_ESCAPE_TABLES = {'"': _EscapeTable('"'), "'": _EscapeTable("'")}


def py_str(text: str) -> str:
    """A string literal for ``text`` in ruff's quoting, unprintable chars escaped."""
    quote = "'" if text.count('"') > text.count("'") else '"'
    if text.isprintable() and "\\" not in text and quote not in text:
        return quote + text + quote
    return quote + text.translate(_ESCAPE_TABLES[quote]) + quote


def _py_number(value: int | float) -> str:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value!r} as a Python literal")
        # ruff normalizes "1e+20" to "1e20"; repr never writes an uppercase "E".
        return float.__repr__(value).replace("e+", "e")
    return int.__repr__(value)


@dataclass(slots=True)
class _Node:
    """A value ready to lay out: a leaf literal or a bracketed collection."""

    width: int  # columns of the one-line form
    text: str = ""  # leaf: the literal
    opening: str = ""  # collection: "[", "(" or "{"; "" for a leaf
    closing: str = ""
    prefixes: tuple[str, ...] = ()  # per element: 'KEY: ' for dicts, else ""
    children: tuple[_Node, ...] = ()
    tuple_one: bool = False  # a one-element tuple: "(x,)"


def _build(value: object) -> _Node:
    """Turn JSON-like data into a tree of literals, measuring every subtree once."""
    if value is None:
        return _Node(4, "None")
    if isinstance(value, bool):
        return _Node(4, "True") if value else _Node(5, "False")
    if isinstance(value, int | float):
        text = _py_number(value)
        return _Node(len(text), text)
    if isinstance(value, str):
        text = py_str(value)
        return _Node(_width(text), text)
    if isinstance(value, dict):
        prefixes: list[str] = []
        children: list[_Node] = []
        width = 2
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"dict keys must be str, not {type(key).__name__}")
            prefix = py_str(key) + ": "
            child = _build(item)
            prefixes.append(prefix)
            children.append(child)
            width += _width(prefix) + child.width
        width += 2 * max(len(children) - 1, 0)
        return _Node(width, "", "{", "}", tuple(prefixes), tuple(children))
    if isinstance(value, list | tuple):
        items = tuple(_build(item) for item in value)
        width = 2 + sum(child.width for child in items) + 2 * max(len(items) - 1, 0)
        if isinstance(value, list):
            return _Node(width, "", "[", "]", ("",) * len(items), items)
        one = len(items) == 1
        return _Node(width + one, "", "(", ")", ("",) * len(items), items, one)
    raise TypeError(f"cannot write a {type(value).__name__} as a Python literal")


def _flat(node: _Node, out: list[str]) -> None:
    if not node.opening:
        out.append(node.text)
        return
    out.append(node.opening)
    for i, (prefix, child) in enumerate(zip(node.prefixes, node.children, strict=True)):
        if i:
            out.append(", ")
        out.append(prefix)
        _flat(child, out)
    if node.tuple_one:
        out.append(",")
    out.append(node.closing)


def _layout(
    node: _Node, column: int, indent: int, trailing: int, limit: int, out: list[str]
) -> None:
    """Append ``node`` starting at ``column``; ``trailing`` columns follow it on its
    last line; ``indent`` is the indentation its closing bracket goes back to."""
    if not node.children or column + node.width + trailing <= limit:
        _flat(node, out)
        return
    inner = indent + _INDENT
    pad = " " * inner
    count = len(node.children)
    # ruff adds the trailing comma for two or more elements; a lone element keeps the
    # bracket without one (a one-element tuple always has its comma).
    last_comma = count > 1 or node.tuple_one
    out.append(node.opening)
    for i, (prefix, child) in enumerate(zip(node.prefixes, node.children, strict=True)):
        comma = i < count - 1 or last_comma
        out.append("\n")
        out.append(pad)
        out.append(prefix)
        _layout(child, inner + _width(prefix), inner, int(comma), limit, out)
        if comma:
            out.append(",")
    out.append("\n")
    out.append(" " * indent)
    out.append(node.closing)


def py_literal(value: object) -> str:
    """One-line literal of JSON-like data (dict with str keys, list, tuple, str, int,
    float, bool, None). Raises TypeError for other types, ValueError for nan/inf."""
    out: list[str] = []
    _flat(_build(value), out)
    return "".join(out)


# -------------------------------------------------------------------------------------
# Statements and embedded expressions
# -------------------------------------------------------------------------------------


def _splittable(expr: ast.expr) -> bool:
    """ruff's ``is_splittable_expression`` (annotations have no redundant parens)."""
    if isinstance(expr, ast.Name | ast.Constant | ast.NamedExpr | ast.Slice):
        return False
    if isinstance(expr, ast.Tuple | ast.List | ast.Set):
        return bool(expr.elts)
    if isinstance(expr, ast.Dict):
        return bool(expr.keys)
    if isinstance(expr, ast.UnaryOp):
        return _splittable(expr.operand)
    if isinstance(expr, ast.Call):
        return bool(expr.args or expr.keywords)
    if isinstance(expr, ast.Attribute | ast.Starred):
        return _splittable(expr.value)
    if isinstance(expr, ast.Lambda):
        return _splittable(expr.body)
    # BinOp, Subscript, Compare, BoolOp, IfExp, comprehensions, ... split.
    return not isinstance(expr, ast.JoinedStr)


def _is_dotted_name(expr: ast.expr) -> bool:
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return isinstance(expr, ast.Name)


@lru_cache(maxsize=512)
def _target_info(target: str) -> tuple[int, bool]:
    """Width of ``target`` and whether ruff lays it out right to left (its annotation
    can split). Only ``name``, ``a.b`` and ``name: annotation`` in ruff style pass."""
    try:
        module = ast.parse(target + " = 0")
    except SyntaxError:
        module = None
    statement = module.body[0] if module is not None and len(module.body) == 1 else None
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        name_ok, annotation = _is_dotted_name(statement.targets[0]), None
    elif isinstance(statement, ast.AnnAssign):
        name_ok, annotation = _is_dotted_name(statement.target), statement.annotation
    else:
        name_ok, annotation = False, None
    if statement is None or not name_ok:
        raise ValueError(f"unsupported assignment target {target!r}")
    # String annotations are refused: ruff may requote them.
    if "'" in target or '"' in target or ast.unparse(statement) != target + " = 0":
        raise ValueError(f"assignment target {target!r} is not in ruff format style")
    return _width(target), annotation is not None and _splittable(annotation)


def _check_indent(indent: int) -> None:
    if indent < 0:
        raise ValueError(f"indent must be >= 0, got {indent}")


def _parenthesized(head: str, lines: list[str], indent: int) -> str:
    inner = " " * (indent + _INDENT)
    body = "".join(f"\n{inner}{line}" for line in lines)
    return f"{head}({body}\n{' ' * indent})"


def _scalar_assignment(
    head: str, node: _Node, start: int, indent: int, limit: int, right_to_left: bool
) -> str:
    """``head`` + a literal that cannot split, with ruff's best-fit parentheses.

    ``start`` is the column after ``head``."""
    if start + node.width <= limit:
        return head + node.text
    if right_to_left:
        # ruff keeps the annotation flat and parenthesizes the value, fitting or not;
        # negative numbers are the exception (it splits the annotation instead).
        if start + 1 > limit or node.text.startswith("-"):
            raise _too_long(head)
        return _parenthesized(head, [node.text], indent)
    if indent + _INDENT + node.width <= limit:
        return _parenthesized(head, [node.text], indent)
    return head + node.text


def _too_long(head: str) -> ValueError:
    return ValueError(
        f"{head.strip()!r}: ruff would split the annotation here; use a shorter target"
    )


def format_assignment(
    target: str, value: object, *, indent: int = 0, line_length: int = 88
) -> str:
    """``target = <value>`` exactly as ``ruff format`` lays it out (no final newline).

    ``target`` is a name or dotted name, optionally annotated, already in ruff style
    (e.g. ``"PARAMETERS: Final[dict[str, object]]"``). ``indent`` is the number of
    spaces the statement is indented by; only the following lines carry indentation.
    """
    _check_indent(indent)
    target_width, right_to_left = _target_info(target)
    node = _build(value)
    head = target + " = "
    start = indent + target_width + 3
    if not node.opening:
        return _scalar_assignment(head, node, start, indent, line_length, right_to_left)
    if (
        right_to_left
        and start + node.width > line_length
        and (start + 1 > line_length or not node.children)
    ):
        # ruff would split the annotation rather than the value ({} cannot split)
        raise _too_long(head)
    out = [head]
    _layout(node, start, indent, 0, line_length, out)
    return "".join(out)


def format_expression(
    value: object, *, indent: int, line_length: int = 88, trailing: str = ""
) -> str:
    """``value`` as ruff lays it out where it starts a line indented by ``indent``
    spaces, e.g. an argument or element in an exploded call or list of a template.

    ``trailing`` is the text the template puts right after the value on the same line
    (e.g. ``","``); it is measured, not included. The result starts at the value (no
    leading indentation); the following lines are fully indented.
    """
    _check_indent(indent)
    out: list[str] = []
    _layout(_build(value), indent, indent, _width(trailing), line_length, out)
    return "".join(out)


def format_text_block(
    target: str, text: str, *, indent: int = 0, line_length: int = 88
) -> str:
    """``target = <text>`` for a possibly multi-line string, as a fixed point of ruff.

    One line if it fits; else the joined literal alone in parentheses if that fits
    (ruff joins implicit concatenations whenever they fit); else a parenthesized
    implicit concatenation with one literal per line of ``text``, each ending in its
    ``\\n``. No final newline.
    """
    _check_indent(indent)
    target_width, right_to_left = _target_info(target)
    head = target + " = "
    start = indent + target_width + 3
    # Only "\n" ends a line (str.splitlines() would also split on "\r", "\x0b", ...).
    parts = _split_on_newline(text)
    whole = _build(text)
    if len(parts) < 2 or start + whole.width <= line_length:
        return _scalar_assignment(
            head, whole, start, indent, line_length, right_to_left
        )
    if right_to_left and start + 1 > line_length:
        raise _too_long(head)
    if indent + _INDENT + whole.width <= line_length:
        return _parenthesized(head, [whole.text], indent)
    return _parenthesized(head, [py_str(part) for part in parts], indent)


def _split_on_newline(text: str) -> list[str]:
    lines = text.split("\n")
    parts = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        parts.append(lines[-1])
    return parts or [text]
