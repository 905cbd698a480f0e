"""toolgen.pyliteral: literals round-trip and are already in ruff format style."""

from __future__ import annotations

import ast
import math
import random
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from toolgen.pyliteral import (
    _width,
    format_assignment,
    format_expression,
    format_text_block,
    py_literal,
    py_str,
)

# -------------------------------------------------------------------------------------
# ruff
# -------------------------------------------------------------------------------------


def _find_ruff() -> str | None:
    beside_python = Path(sys.executable).with_name("ruff")
    if beside_python.is_file():
        return str(beside_python)
    return shutil.which("ruff")


RUFF = _find_ruff()
needs_ruff = pytest.mark.skipif(
    RUFF is None, reason="ruff is not installed (pip install ruff==0.17.6)"
)


def _ruff_format(source: str, line_length: int) -> str:
    """``source`` formatted by ruff (stdin), ignoring any project configuration."""
    assert RUFF is not None
    result = subprocess.run(
        [RUFF, "format", "--isolated", f"--line-length={line_length}", "-"],
        input=source.encode(),
        capture_output=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout.decode()


def _ruff_check_unchanged(path: Path, line_length: int) -> None:
    """``ruff format --check`` on ``path`` must report nothing to change."""
    assert RUFF is not None
    result = subprocess.run(
        [
            RUFF,
            "format",
            "--isolated",
            f"--line-length={line_length}",
            "--check",
            str(path),
        ],
        capture_output=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout.decode() + result.stderr.decode()


def _in_blocks(statement: str, indent: int) -> str:
    """``statement`` (indented by ``indent``) wrapped in enough ``if True:`` blocks."""
    headers = [" " * level + "if True:\n" for level in range(0, indent, 4)]
    return "".join(headers) + " " * indent + statement + "\n"


# -------------------------------------------------------------------------------------
# (1) round trips
# -------------------------------------------------------------------------------------

ROUND_TRIP_VALUES: list[object] = [
    None,
    True,
    False,
    0,
    -1,
    10**40,
    -(10**40),
    0.0,
    -0.0,
    1.5,
    1e20,
    1e-05,
    5e-324,
    1.7976931348623157e308,
    -2.5e-300,
    "",
    "plain",
    'say "hi"',
    "it's",
    "both ' and \"",
    """many "" quotes ' """,
    "back\\slash \\n not a newline",
    "line\nbreak\r\ttab",
    "\x00\x01\x1b[31mred\x1b[0m\x7f",
    "\x80\x9f\xa0\xad",
    "bidi \u202a\u202b\u202c\u202d\u202e \u2066\u2067\u2068\u2069",
    "zero width \u200b\u200c\u200d\u2060\ufeff",
    "tags \U000e0001\U000e0041\U000e007f",
    "separators \u2028\u2029\x85\x0b\x0c",
    "lone surrogate \ud800",
    "é 日本 한국어 😀 \u0301 \u3000",
    "{braces} %s $x #comment",
    [],
    (),
    {},
    [1, [2, [3, []]]],
    (1,),
    ("a", ("b",), ()),
    {"a": {"b": {"c": None}}, "": [True, False], '"k"': "v"},
    {"key\n\x00": ["\u202e", {"x": (1.25, -3)}]},
]


@pytest.mark.parametrize("value", ROUND_TRIP_VALUES, ids=repr)
def test_py_literal_round_trips(value: object) -> None:
    text = py_literal(value)
    assert "\n" not in text
    assert ast.literal_eval(text) == value
    assert type(ast.literal_eval(text)) is type(value)


def test_py_str_round_trips_every_bmp_character() -> None:
    text = "".join(chr(code) for code in range(0x10000))
    literal = py_str(text)
    assert ast.literal_eval(literal) == text
    assert literal.isprintable()


@pytest.mark.parametrize("seed", range(5))
def test_py_str_round_trips_random_text(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        text = "".join(
            chr(rng.choice([rng.randrange(0x80), rng.randrange(0x110000)]))
            for _ in range(rng.randrange(30))
        )
        literal = py_str(text)
        assert ast.literal_eval(literal) == text
        assert literal.isprintable()


def test_formatted_values_round_trip() -> None:
    value = {"a": ["x" * 50, {"b": ("y" * 60,)}], "c": "z" * 90}
    for indent in (0, 4, 8):
        statement = format_assignment("X", value, indent=indent)
        assert ast.literal_eval(statement.split(" = ", 1)[1]) == value
        expression = format_expression(value, indent=indent, trailing=",")
        assert ast.literal_eval(expression) == value


# -------------------------------------------------------------------------------------
# (2) property style: random nested values are fixed points of ruff format
# -------------------------------------------------------------------------------------

_ALPHABET = [
    *"abcdefgh xyz_-.,:;!?#{}%",
    *['"', "'", "\\", "\n", "\t", "\r", "\x00", "\x1b", "\x7f", "\xa0"],
    *["\u202e", "\u200b", "\u2028", "\U000e0001", "\ufeff"],
    *["é", "ß", "日", "本", "語", "한", "😀", "\u0301", "\u3000", "\u17d8", "\u1160"],
]
_TARGETS = [
    "X",
    "PARAMETERS",
    "PARAMETERS: Final[dict[str, object]]",
    "LIMIT: int",
    "self.schema",
    "DESCRIPTION: Final[str]",
    "TOOL_OUTPUT_SCHEMA_FOR_THE_REORDER_PROPOSAL: Final[dict[str, object]]",
    "日本語: str",
]


def _random_text(rng: random.Random) -> str:
    size = rng.choice([0, 1, 4, 10, 25, 45, 70, 95])
    return "".join(
        rng.choice(_ALPHABET) if rng.random() < 0.3 else rng.choice("abcdefgh  ")
        for _ in range(size)
    )


def _random_value(rng: random.Random, depth: int = 0) -> object:
    roll = rng.random()
    if depth >= 4 or roll < 0.45:
        scalars: list[object] = [
            None,
            rng.random() < 0.5,
            rng.randint(-(10 ** rng.randint(0, 30)), 10 ** rng.randint(0, 30)),
            rng.uniform(-1e6, 1e6),
            rng.choice([1e20, 1e-05, 5e-324, -0.0, 1.5e300, 123.0]),
            _random_text(rng),
            _random_text(rng),
        ]
        return rng.choice(scalars)
    if roll < 0.65:
        return {
            _random_text(rng)[:30]: _random_value(rng, depth + 1)
            for _ in range(rng.randint(0, 5))
        }
    if roll < 0.85:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 6))]
    return tuple(_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3)))


@needs_ruff
@pytest.mark.parametrize(
    ("seed", "line_length"), [(0, 88), (1, 88), (2, 88), (3, 60), (4, 120)]
)
def test_random_values_are_ruff_fixed_points(
    seed: int, line_length: int, tmp_path: Path
) -> None:
    rng = random.Random(seed)
    ours: list[str] = []  # what toolgen writes
    flat: list[str] = []  # the same statements on one line, for ruff to lay out
    for _ in range(150):
        value = _random_value(rng)
        target = rng.choice(_TARGETS)
        indent = rng.choice([0, 4, 8, 12])
        kind = rng.random()
        try:
            if kind < 0.55:
                statement = format_assignment(
                    target, value, indent=indent, line_length=line_length
                )
                one_line = f"{target} = {py_literal(value)}"
            elif kind < 0.8:
                text = "".join(
                    _random_text(rng) + rng.choice(["\n", "", "\n\n"])
                    for _ in range(rng.randint(1, 5))
                )
                statement = format_text_block(
                    target, text, indent=indent, line_length=line_length
                )
                assert ast.literal_eval(statement.split(" = ", 1)[1]) == text
                one_line = statement  # only the fixed point is checked
            else:
                # an argument of an exploded call, as a template would embed it
                inner = " " * (indent + 4)
                argument = format_expression(
                    value, indent=indent + 4, line_length=line_length, trailing=","
                )
                statement = f"call(\n{inner}{argument},\n{' ' * indent})"
                one_line = f"call({py_literal(value)},)"
        except ValueError as error:  # only long annotated targets may be refused
            assert "shorter target" in str(error)
            continue
        ours.append(_in_blocks(statement, indent))
        flat.append(_in_blocks(one_line, indent))
    assert len(ours) > 100
    generated = "".join(ours)
    path = tmp_path / f"batch_{seed}.py"
    path.write_text(generated, encoding="utf-8")
    _ruff_check_unchanged(path, line_length)
    # and exactly what ruff makes of the one-line statements
    assert _ruff_format("".join(flat), line_length) == generated


# -------------------------------------------------------------------------------------
# (3) explicit cases, as observed with ruff 0.17.6
# -------------------------------------------------------------------------------------

EXPLICIT_ASSIGNMENTS: list[tuple[str, object, int, str]] = [
    # fits on one line
    ("X", {"a": [1, 2], "b": None}, 0, 'X = {"a": [1, 2], "b": None}'),
    # empty containers never explode; a one-element tuple keeps its comma
    (
        "X",
        {"a": {}, "b": [], "c": (), "d": (1,)},
        0,
        'X = {"a": {}, "b": [], "c": (), "d": (1,)}',
    ),
    # the outer bracket explodes, inner ones only if they do not fit on their line
    (
        "PARAMETERS: Final[dict[str, object]]",
        {
            "type": "object",
            "properties": {"sku": {"type": "string", "description": "The SKU"}},
            "required": ["sku"],
            "additionalProperties": False,
        },
        0,
        "PARAMETERS: Final[dict[str, object]] = {\n"
        '    "type": "object",\n'
        '    "properties": {"sku": {"type": "string", "description": "The SKU"}},\n'
        '    "required": ["sku"],\n'
        '    "additionalProperties": False,\n'
        "}",
    ),
    # a lone element gets no trailing comma, a long dict value is not parenthesized
    (
        "X",
        {"key": "v" * 84},
        0,
        'X = {\n    "key": "' + "v" * 84 + '"\n}',
    ),
    (
        "X",
        {"key": "v" * 84, "b": 1},
        0,
        'X = {\n    "key": "' + "v" * 84 + '",\n    "b": 1,\n}',
    ),
    # a lone element that is a long string
    ("X", ["s" * 90], 0, 'X = [\n    "' + "s" * 90 + '"\n]'),
    # a one-element tuple always keeps its comma, exploded too
    ("X", ("t" * 90,), 0, 'X = (\n    "' + "t" * 90 + '",\n)'),
    # nesting explodes level by level; trailing comma only with 2+ elements
    (
        "X",
        {"k" * 80: {"b": 1}},
        0,
        'X = {\n    "' + "k" * 80 + '": {\n        "b": 1\n    }\n}',
    ),
    (
        "X",
        [[1, 2, 3], {"a": list(range(10, 40))}],
        0,
        'X = [\n    [1, 2, 3],\n    {\n        "a": [\n'
        + "".join(f"            {i},\n" for i in range(10, 40))
        + "        ]\n    },\n]",
    ),
    # indentation counts against the line length
    (
        "X",
        {"a": "b" * 70},
        12,
        'X = {\n                "a": "' + "b" * 70 + '"\n            }',
    ),
    # a scalar that does not fit: parenthesized if that makes it fit...
    (
        "LIMIT: int",
        "a" * 80,
        0,
        'LIMIT: int = (\n    "' + "a" * 80 + '"\n)',
    ),
    # ... else left alone for a plain target ...
    ("X", "a" * 90, 0, 'X = "' + "a" * 90 + '"'),
    ("X", 10**85, 0, "X = " + "1" + "0" * 85),
    # ... but always parenthesized after an annotation that could split
    (
        "DESCRIPTION: Final[str]",
        "a" * 90,
        0,
        'DESCRIPTION: Final[str] = (\n    "' + "a" * 90 + '"\n)',
    ),
    # ruff writes float exponents without "+"
    ("X", [1e20, 1.5e300, 1e-05, -0.0], 0, "X = [1e20, 1.5e300, 1e-05, -0.0]"),
    # quotes: double unless the text has more " than '
    (
        "X",
        ['say "hi"', "it's", "x\"y'z", 'a"b"c\'d', "\"''"],
        0,
        'X = [\'say "hi"\', "it\'s", "x\\"y\'z", \'a"b"c\\\'d\', "\\"\'\'"]',
    ),
]


@pytest.mark.parametrize(
    ("target", "value", "indent", "expected"),
    EXPLICIT_ASSIGNMENTS,
    ids=[f"case{i}" for i in range(len(EXPLICIT_ASSIGNMENTS))],
)
def test_format_assignment_explicit(
    target: str, value: object, indent: int, expected: str
) -> None:
    assert format_assignment(target, value, indent=indent) == expected


def test_wide_characters_count_double() -> None:
    # 40 wide characters: 42 code points with the quotes, 82 columns.
    wide = "日" * 40
    assert format_assignment("X", [wide]) == f'X = ["{wide}"]'  # 88 columns
    assert format_assignment("XY", [wide]) == f'XY = [\n    "{wide}"\n]'  # 89
    # a combining mark takes no column, U+17D8 takes three
    assert format_assignment("X", ["e\u0301" * 40 + "x" * 40]).count("\n") == 0
    assert format_assignment("X", ["\u17d8" * 26 + "xy"]).count("\n") == 0
    assert format_assignment("X", ["\u17d8" * 26 + "xyz"]).count("\n") == 2


def test_format_expression() -> None:
    assert format_expression([1, 2], indent=8, trailing=",") == "[1, 2]"
    assert format_expression("s" * 200, indent=8) == '"' + "s" * 200 + '"'
    value = {"name": "n" * 40, "labels": ["l" * 30, "m" * 30]}
    assert format_expression(value, indent=4, trailing=",") == (
        "{\n"
        '        "name": "' + "n" * 40 + '",\n'
        '        "labels": ["' + "l" * 30 + '", "' + "m" * 30 + '"],\n'
        "    }"
    )
    # the trailing text counts: 86 columns fit, plus "," and ")" they do not
    fits = ["x" * 76]  # ["...x"] is 80 columns, at indent 8: 88
    assert format_expression(fits, indent=8) == py_literal(fits)
    assert format_expression(fits, indent=8, trailing=",") == (
        '[\n            "' + "x" * 76 + '"\n        ]'
    )


TEXT_BLOCKS: list[tuple[str, str, str]] = [
    ("DESCRIPTION", "", 'DESCRIPTION = ""'),
    # short enough: one line, even with several source lines (ruff joins them)
    (
        "DESCRIPTION",
        "Create a reorder proposal.\nUse when: ...\nCall read_stock first.",
        'DESCRIPTION = "Create a reorder proposal.\\nUse when: ...\\nCall read_stock first."',
    ),
    # the joined literal fits inside the parentheses: ruff joins it there too
    (
        "DESCRIPTION",
        "x" * 20 + "\n" + "y" * 60,
        'DESCRIPTION = (\n    "' + "x" * 20 + "\\n" + "y" * 60 + '"\n)',
    ),
    # too long joined: one literal per line, each keeps its "\n"
    (
        "DESCRIPTION",
        "Create a reorder proposal for the warehouse.\n"
        'Use when: "stock" is low and more... and more and more\n'
        "Call read_stock first.\n",
        "DESCRIPTION = (\n"
        '    "Create a reorder proposal for the warehouse.\\n"\n'
        "    'Use when: \"stock\" is low and more... and more and more\\n'\n"
        '    "Call read_stock first.\\n"\n'
        ")",
    ),
    # one long line: parenthesized only if that makes it fit (plain target)
    ("D", "d" * 84, 'D = "' + "d" * 84 + '"'),
    ("DESCRIPTION", "d" * 82, 'DESCRIPTION = (\n    "' + "d" * 82 + '"\n)'),
    # an annotation that can split: the value is always parenthesized
    (
        "DESCRIPTION: Final[str]",
        "d" * 90,
        'DESCRIPTION: Final[str] = (\n    "' + "d" * 90 + '"\n)',
    ),
    # blank lines stay separate literals; "\r" does not end a line
    (
        "D",
        "first line that is long enough\n\nsecond\r\n"
        "third line, long enough that it cannot be joined",
        "D = (\n"
        '    "first line that is long enough\\n"\n'
        '    "\\n"\n'
        '    "second\\r\\n"\n'
        '    "third line, long enough that it cannot be joined"\n'
        ")",
    ),
]


@pytest.mark.parametrize(
    ("target", "text", "expected"),
    TEXT_BLOCKS,
    ids=[f"block{i}" for i in range(len(TEXT_BLOCKS))],
)
def test_format_text_block(target: str, text: str, expected: str) -> None:
    result = format_text_block(target, text)
    assert result == expected
    assert ast.literal_eval(result.split(" = ", 1)[1]) == text


def test_format_text_block_indented() -> None:
    text = "first line of a long description\n" * 3
    assert format_text_block("DESCRIPTION", text, indent=4) == (
        "DESCRIPTION = (\n"
        + '        "first line of a long description\\n"\n' * 3
        + "    )"
    )


@needs_ruff
def test_explicit_cases_are_ruff_fixed_points(tmp_path: Path) -> None:
    statements = [case[3] for case in EXPLICIT_ASSIGNMENTS if case[2] == 0]
    statements += [case[2] for case in TEXT_BLOCKS]
    path = tmp_path / "explicit.py"
    path.write_text("\n".join(statements) + "\n", encoding="utf-8")
    _ruff_check_unchanged(path, 88)


@needs_ruff
def test_character_widths_match_ruff(tmp_path: Path) -> None:
    """For a sample of printable characters, ruff counts the width we count: each one
    ends a string that just fits the line, then one that is a column too long."""
    rng = random.Random(7)
    special = [0x300, 0x1160, 0x11FF, 0x17A4, 0x17D8, 0x2630, 0x2D7F, 0x3164, 0xFF9E]
    special += [0x4E00, 0xAC00, 0x1F600, 0x0301, 0x20DD, 0x0903, 0x302E, 0x1D300]
    codes = special + [rng.randrange(0x80, 0x30000) for _ in range(3000)]
    chars = [chr(c) for c in codes if chr(c).isprintable()]
    lines = []
    for ch in chars:
        padding = 88 - len('X = [""]') - (_width(py_str(ch)) - 2)
        fits = format_assignment("X", ["a" * padding + ch])
        too_long = format_assignment("X", ["a" * (padding + 1) + ch])
        assert (fits.count("\n"), too_long.count("\n")) == (0, 2), repr(ch)
        lines += [fits, too_long]
    path = tmp_path / "widths.py"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _ruff_check_unchanged(path, 88)


# -------------------------------------------------------------------------------------
# (4) escaping: spec text can never become code
# -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\u202e", '"\\u202e"'),
        ("\u200b", '"\\u200b"'),
        ("\x1b[2J", '"\\x1b[2J"'),
        ("\x00", '"\\x00"'),
        ("\U000e0001", '"\\U000e0001"'),
        ("\u2028", '"\\u2028"'),
        ("\xa0", '"\\xa0"'),
        ("\ufeff", '"\\ufeff"'),
        ("\x7f", '"\\x7f"'),
        ("é", '"é"'),
        ("日本", '"日本"'),
        ("a\\b", '"a\\\\b"'),
        ("\n\r\t", '"\\n\\r\\t"'),
        ('say "hi"', "'say \"hi\"'"),
        ("it's", '"it\'s"'),
        ("\"'", '"\\"\'"'),
    ],
)
def test_py_str_escapes(text: str, expected: str) -> None:
    assert py_str(text) == expected
    assert ast.literal_eval(expected) == text


def test_py_str_output_is_plain_printable_text() -> None:
    hostile = "\"; import os; os.system('x') #\n\u202e\u2066\x1b]0;t\x07\U000e0069"
    literal = py_str(hostile)
    assert literal.isprintable()
    assert ast.literal_eval(literal) == hostile
    tree = ast.parse(literal, mode="eval")
    assert isinstance(tree.body, ast.Constant)
    for ch in literal:
        assert unicodedata.category(ch)[0] != "C"


# -------------------------------------------------------------------------------------
# errors
# -------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, [1.0, math.nan]])
def test_non_finite_floats_are_rejected(value: object) -> None:
    with pytest.raises(ValueError, match="Python literal"):
        py_literal(value)


@pytest.mark.parametrize("value", [{1: "a"}, {("a",): 1}, {"a": {None: 1}}])
def test_non_str_keys_are_rejected(value: object) -> None:
    with pytest.raises(TypeError, match="keys must be str"):
        py_literal(value)


@pytest.mark.parametrize("value", [{1, 2}, b"x", object(), [1j]])
def test_other_types_are_rejected(value: object) -> None:
    with pytest.raises(TypeError):
        format_assignment("X", value)


@pytest.mark.parametrize(
    "target",
    [
        "",
        "x = y",
        "a, b",
        "a[0]",
        "f()",
        "x  # comment",
        "X:Final[int]",
        "X: 'str'",
        "x\nimport os",
        "1x",
    ],
)
def test_bad_targets_are_rejected(target: str) -> None:
    with pytest.raises(ValueError, match="target"):
        format_assignment(target, 1)


def test_annotation_that_ruff_would_split_is_rejected() -> None:
    target = "X" * 70 + ": Final[dict[str, object]]"
    with pytest.raises(ValueError, match="shorter target"):
        format_assignment(target, {"a": 1})
    with pytest.raises(ValueError, match="shorter target"):
        format_assignment("X" * 62 + ": Final[dict[str, object]]", {})
    with pytest.raises(ValueError, match="shorter target"):
        format_assignment("X" * 60 + ": Final[int]", -(10**40))
    # a plain target never is: ruff cannot split it
    assert format_assignment("X" * 90, {}) == "X" * 90 + " = {}"


def test_bool_and_int_subclasses() -> None:
    assert py_literal([True, False, None, 1]) == "[True, False, None, 1]"

    class Flag(int):
        def __repr__(self) -> str:
            return "Flag()"

    assert py_literal(Flag(3)) == "3"


def test_negative_indent_is_rejected() -> None:
    with pytest.raises(ValueError, match="indent"):
        format_expression(1, indent=-1)
