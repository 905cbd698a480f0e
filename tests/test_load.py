"""Tests for toolgen.spec.load: safe YAML reading with exact places for every node."""

from __future__ import annotations

import gc
import math
import os
from pathlib import Path

import pytest
import yaml
from loading import load_catalogue

from toolgen.diagnostics import Diagnostic, Severity, Span
from toolgen.spec import yaml_compose
from toolgen.spec.load import Document, load_document

FIXTURES = Path(__file__).parent / "fixtures" / "load"
NAME = "spec.yaml"


def load_text(
    tmp_path: Path, text: str, name: str = NAME
) -> tuple[Document | None, list[Diagnostic]]:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return load_document(path, name)


def load_ok(tmp_path: Path, text: str) -> Document:
    document, diagnostics = load_text(tmp_path, text)
    assert diagnostics == []
    assert document is not None
    return document


def data_of(tmp_path: Path, text: str) -> dict[str, object]:
    data = load_ok(tmp_path, text).data
    assert isinstance(data, dict)
    return data


def where(diagnostics: list[Diagnostic]) -> list[tuple[str, int, int]]:
    return [(d.code, d.span.line, d.span.col) for d in diagnostics]


def at(line: int, col: int) -> Span:
    return Span(NAME, line, col)


@pytest.fixture(params=["fast", "pure-python"])
def composer(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with libyaml and with the pure-Python fallback composer."""
    if request.param == "pure-python":
        monkeypatch.setattr(yaml_compose, "FAST", yaml_compose.PySafeComposer)
    return str(request.param)


# ---------------------------------------------------------------------------
# Places of keys and values

BLOCK = """\
name: find_customer
params:
  sku:
    type: string
    pattern: "^[A-Z]{3}-[0-9]+$"
examples:
  - args:
      sku: ABC-1
    result: null
  - args: {sku: XYZ-2}
    result:
      - 1
      - two
"""


def test_block_style_spans_of_keys_and_values(tmp_path: Path, composer: str) -> None:
    document = load_ok(tmp_path, BLOCK)

    assert document.file == NAME
    assert document.data == {
        "name": "find_customer",
        "params": {"sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"}},
        "examples": [
            {"args": {"sku": "ABC-1"}, "result": None},
            {"args": {"sku": "XYZ-2"}, "result": [1, "two"]},
        ],
    }
    values = {
        (): at(1, 1),
        ("name",): at(1, 7),
        ("params",): at(3, 3),
        ("params", "sku"): at(4, 5),
        ("params", "sku", "type"): at(4, 11),
        ("params", "sku", "pattern"): at(5, 14),
        ("examples",): at(7, 3),
        ("examples", 0): at(7, 5),
        ("examples", 0, "args"): at(8, 7),
        ("examples", 0, "args", "sku"): at(8, 12),
        ("examples", 0, "result"): at(9, 13),
        ("examples", 1): at(10, 5),
        ("examples", 1, "args"): at(10, 11),
        ("examples", 1, "args", "sku"): at(10, 17),
        ("examples", 1, "result"): at(12, 7),
        ("examples", 1, "result", 0): at(12, 9),
        ("examples", 1, "result", 1): at(13, 9),
    }
    keys = {
        ("name",): at(1, 1),
        ("params",): at(2, 1),
        ("params", "sku"): at(3, 3),
        ("params", "sku", "type"): at(4, 5),
        ("params", "sku", "pattern"): at(5, 5),
        ("examples",): at(6, 1),
        ("examples", 0, "args"): at(7, 5),
        ("examples", 0, "args", "sku"): at(8, 7),
        ("examples", 0, "result"): at(9, 5),
        ("examples", 1, "args"): at(10, 5),
        ("examples", 1, "args", "sku"): at(10, 12),
        ("examples", 1, "result"): at(11, 5),
    }
    assert dict(document.value_spans) == values
    assert dict(document.key_spans) == keys


def test_flow_style_spans(tmp_path: Path, composer: str) -> None:
    document = load_ok(
        tmp_path,
        'args: {email: ann@example.com, limit: 5}\ntags: [a, "b c", {k: v}]\n',
    )

    assert document.data == {
        "args": {"email": "ann@example.com", "limit": 5},
        "tags": ["a", "b c", {"k": "v"}],
    }
    assert document.span(["args"]) == at(1, 7)
    assert document.span(["args", "email"], key=True) == at(1, 8)
    assert document.span(["args", "email"]) == at(1, 15)
    assert document.span(["args", "limit"], key=True) == at(1, 32)
    assert document.span(["args", "limit"]) == at(1, 39)
    assert document.span(["tags"]) == at(2, 7)
    assert document.span(["tags", 0]) == at(2, 8)
    assert document.span(["tags", 1]) == at(2, 11)
    assert document.span(["tags", 2]) == at(2, 18)
    assert document.span(["tags", 2, "k"], key=True) == at(2, 19)
    assert document.span(["tags", 2, "k"]) == at(2, 22)


def test_span_falls_back_to_nearest_ancestor(tmp_path: Path) -> None:
    document = load_ok(tmp_path, BLOCK)

    # Missing leaf: the mapping that should hold it.
    assert document.span(["params", "sku", "minimum"]) == at(4, 5)
    # key=True prefers the key of the exact path, then of the nearest ancestor.
    assert document.span(["params", "sku"], key=True) == at(3, 3)
    assert document.span(["params", "sku", "minimum"], key=True) == at(3, 3)
    # A list item has no key: key=True gives its value span.
    assert document.span(["examples", 1], key=True) == at(10, 5)
    assert document.span(["nothing", "here"]) == at(1, 1)
    assert document.span(("examples", 1, "result", 7)) == at(12, 7)


def test_span_of_document_without_spans_is_line_one() -> None:
    document = Document(file="x.yaml", data={}, value_spans={}, key_spans={})

    assert document.span(["a", 0]) == Span("x.yaml", 1, 1)
    assert document.span([], key=True) == Span("x.yaml", 1, 1)


def test_span_tables_are_read_only_mappings(tmp_path: Path) -> None:
    document = load_ok(tmp_path, "a: 1\n")

    assert ("a",) in document.value_spans
    assert ("b",) not in document.value_spans
    assert len(document.value_spans) == 2
    assert document.value_spans[("a",)] == at(1, 4)
    assert not hasattr(document.value_spans, "__setitem__")


def test_crlf_line_endings_give_right_lines(tmp_path: Path, composer: str) -> None:
    document = load_ok(tmp_path, "a: 1\r\nb:\r\n  c: [x, y]\r\n\r\nd: two\r\n")

    assert document.data == {"a": 1, "b": {"c": ["x", "y"]}, "d": "two"}
    assert document.span(["b", "c"], key=True) == at(3, 3)
    assert document.span(["b", "c", 1]) == at(3, 10)
    assert document.span(["d"]) == at(5, 4)


def test_crlf_syntax_error_line(tmp_path: Path) -> None:
    _, diagnostics = load_text(tmp_path, "a: 1\r\nb: [1, 2\r\nc: 3\r\n")

    assert [d.code for d in diagnostics] == ["TG001"]
    assert diagnostics[0].span.line == 3


def test_byte_order_mark_does_not_shift_columns(tmp_path: Path) -> None:
    document = load_ok(tmp_path, "\ufeffname: x\nother: y\n")

    assert document.data == {"name": "x", "other": "y"}
    assert document.span(["name"], key=True) == at(1, 1)
    assert document.span(["name"]) == at(1, 7)


def test_columns_count_characters_not_bytes(tmp_path: Path) -> None:
    document = load_ok(tmp_path, "é: ünïcode\nk: {ä: ö}\n")

    assert document.span(["é"]) == at(1, 4)
    assert document.span(["k", "ä"]) == at(2, 8)


# ---------------------------------------------------------------------------
# Scalars follow the YAML 1.2 core schema


def test_norway_problem_words_stay_strings(tmp_path: Path) -> None:
    data = data_of(
        tmp_path,
        "country: NO\na: yes\nb: no\nc: on\nd: off\ne: y\nf: n\ng: Yes\nh: OFF\n",
    )

    assert data == {
        "country": "NO",
        "a": "yes",
        "b": "no",
        "c": "on",
        "d": "off",
        "e": "y",
        "f": "n",
        "g": "Yes",
        "h": "OFF",
    }


def test_core_booleans(tmp_path: Path) -> None:
    data = data_of(
        tmp_path, "a: true\nb: True\nc: TRUE\nd: false\ne: False\nf: FALSE\ng: tRUE\n"
    )

    assert data == {
        "a": True,
        "b": True,
        "c": True,
        "d": False,
        "e": False,
        "f": False,
        "g": "tRUE",
    }


def test_dates_and_times_stay_exact_strings(tmp_path: Path) -> None:
    data = data_of(
        tmp_path,
        "date: 2026-10-09\nwhen: 2026-10-09T10:30:00Z\nspaced: 2026-10-09 10:30:00\n"
        "clock: 12:30:00\nsexagesimal: 1:20\n",
    )

    assert data == {
        "date": "2026-10-09",
        "when": "2026-10-09T10:30:00Z",
        "spaced": "2026-10-09 10:30:00",
        "clock": "12:30:00",
        "sexagesimal": "1:20",
    }


def test_core_numbers(tmp_path: Path) -> None:
    data = data_of(
        tmp_path,
        "a: 42\nb: -7\nc: +3\nd: 007\ne: 0o17\nf: 0x1F\ng: 1.5\nh: -.5\ni: 1.\n"
        "j: 1e3\nk: 2.5E-2\nl: .inf\nm: -.Inf\nn: +.INF\no: .nan\np: 1_000\nq: 0b101\n"
        "r: 0x\ns: '5'\nt: \"1.5\"\nu: 1.2.3\nv: .\nw: -x\n",
    )

    expected_numbers = {
        "a": 42,
        "b": -7,
        "c": 3,
        "d": 7,
        "e": 15,
        "f": 31,
        "g": 1.5,
        "h": -0.5,
        "i": 1.0,
        "j": 1000.0,
        "k": 0.025,
        "l": math.inf,
        "m": -math.inf,
        "n": math.inf,
    }
    for key, number in expected_numbers.items():
        assert data[key] == number, key
        assert type(data[key]) is type(number), key
    nan = data["o"]
    assert isinstance(nan, float) and math.isnan(nan)
    for key, text in {
        "p": "1_000",
        "q": "0b101",
        "r": "0x",
        "s": "5",
        "t": "1.5",
        "u": "1.2.3",
        "v": ".",
        "w": "-x",
    }.items():
        assert data[key] == text, key


def test_core_nulls(tmp_path: Path) -> None:
    data = data_of(
        tmp_path, "a: null\nb: Null\nc: NULL\nd: ~\ne:\nf: nULL\ng: 'null'\nh: [~, x]\n"
    )

    assert data == {
        "a": None,
        "b": None,
        "c": None,
        "d": None,
        "e": None,
        "f": "nULL",
        "g": "null",
        "h": [None, "x"],
    }


def test_empty_value_points_just_after_its_colon(tmp_path: Path) -> None:
    document = load_ok(tmp_path, "a:\nb: 1\n")

    assert document.data == {"a": None, "b": 1}
    assert document.span(["a"]) == at(1, 3)


def test_strings_keep_their_text(tmp_path: Path) -> None:
    data = data_of(
        tmp_path,
        "plain: hello world\nfolded: one\n  two\nliteral: |\n  x\n  y\n"
        "quoted: 'it''s'\nescaped: \"tab\\there\"\n",
    )

    assert data == {
        "plain": "hello world",
        "folded": "one two",
        "literal": "x\ny\n",
        "quoted": "it's",
        "escaped": "tab\there",
    }


def test_keys_are_always_their_source_text(tmp_path: Path) -> None:
    data = data_of(
        tmp_path,
        "on: a\n1: b\nnull: c\ntrue: d\n~: e\n'quoted': f\n2026-10-09: g\n1.5: h\n",
    )

    assert list(data) == ["on", "1", "null", "true", "~", "quoted", "2026-10-09", "1.5"]
    assert all(isinstance(key, str) for key in data)


def test_explicit_core_tags_are_honoured(tmp_path: Path) -> None:
    data = data_of(
        tmp_path,
        "a: !!str 123\nb: !!int \"5\"\nc: !!float 1\nd: !!bool 'true'\ne: !!null ''\n"
        "f: ! text\ng: !!map {x: 1}\nh: !!seq [1]\ni: !<tag:yaml.org,2002:int> 0x10\n"
        "j: !!str yes\n",
    )

    assert data == {
        "a": "123",
        "b": 5,
        "c": 1.0,
        "d": True,
        "e": None,
        "f": "text",
        "g": {"x": 1},
        "h": [1],
        "i": 16,
        "j": "yes",
    }
    assert type(data["c"]) is float


# ---------------------------------------------------------------------------
# Diagnostics, one rule at a time


def test_tg001_syntax_error_at_problem_mark(tmp_path: Path, composer: str) -> None:
    document, diagnostics = load_text(tmp_path, "name: x\nsummary: a: b\n")

    assert document is None
    assert where(diagnostics) == [("TG001", 2, 11)]
    (problem,) = diagnostics
    assert problem.severity is Severity.ERROR
    assert problem.message.startswith("YAML syntax error: mapping values are not")
    assert "quotes" in problem.hint


def test_tg001_unclosed_flow_list(tmp_path: Path) -> None:
    document, diagnostics = load_text(tmp_path, "a: [1, 2\nb: 3\n")

    assert document is None
    assert [d.code for d in diagnostics] == ["TG001"]
    assert diagnostics[0].span.line == 2
    assert "<" not in diagnostics[0].message  # no parser token jargon


def test_tg001_tab_indentation_gets_a_tab_hint(tmp_path: Path, composer: str) -> None:
    _, diagnostics = load_text(tmp_path, "a:\n\tb: 1\n")

    assert where(diagnostics) == [("TG001", 2, 1)]
    assert "tabs" in diagnostics[0].hint


def test_tg001_control_character_position(tmp_path: Path, composer: str) -> None:
    document, diagnostics = load_text(tmp_path, "a: 1\nb: x\x07y\n")

    assert document is None
    assert where(diagnostics) == [("TG001", 2, 5)]
    assert "U+0007" in diagnostics[0].message


def test_tg011_too_deep_nesting_is_reported_not_crashed(tmp_path: Path) -> None:
    document, diagnostics = load_text(tmp_path, "a: " + "[" * 300 + "]" * 300 + "\n")

    assert document is not None
    assert [d.code for d in diagnostics] == ["TG011"]
    assert "nested more than 64 levels" in diagnostics[0].message


def test_tg011_deep_nesting_with_an_alias_does_not_crash(tmp_path: Path) -> None:
    # Aliases send the file through the pure-Python composer, which recurses.
    text = "x: &a 1\ny: *a\nz: " + "[" * 600 + "]" * 600 + "\n"

    document, diagnostics = load_text(tmp_path, text)

    assert document is None
    assert where(diagnostics) == [("TG011", 1, 1)]
    assert "nested more than" in diagnostics[0].message


def test_tg001_parser_nesting_limit(tmp_path: Path) -> None:
    document, diagnostics = load_text(tmp_path, "a: " + "[" * 5000 + "]" * 5000 + "\n")

    assert document is None
    assert [d.code for d in diagnostics] == ["TG001"]


def test_tg002_every_duplicate_key_is_reported(tmp_path: Path, composer: str) -> None:
    document, diagnostics = load_text(
        tmp_path,
        "name: first\nsummary: s\nname: second\nparams:\n  a: 1\n  a: 2\n"
        "  b: {x: 1, x: 2}\nsummary: again\n",
    )

    assert document is not None
    assert document.data == {
        "name": "first",
        "summary": "s",
        "params": {"a": 1, "b": {"x": 1}},
    }
    assert where(diagnostics) == [
        ("TG002", 3, 1),
        ("TG002", 6, 3),
        ("TG002", 7, 13),
        ("TG002", 8, 1),
    ]
    assert [d.message for d in diagnostics] == [
        "duplicate key 'name': it is already defined on line 1",
        "duplicate key 'a': it is already defined on line 5",
        "duplicate key 'x': it is already defined on line 7",
        "duplicate key 'summary': it is already defined on line 2",
    ]
    assert {d.hint for d in diagnostics} == {
        "Remove one of them; YAML keeps only one value per key."
    }
    # The first value's places are kept, not the duplicate's.
    assert document.span(["name"]) == at(1, 7)
    assert document.span(["params", "a"], key=True) == at(5, 3)


def test_tg002_problems_inside_a_dropped_duplicate_are_still_reported(
    tmp_path: Path,
) -> None:
    document, diagnostics = load_text(tmp_path, "a: 1\na:\n  b: !custom 1\n  b: 2\n")

    assert document is not None
    assert document.data == {"a": 1}
    assert where(diagnostics) == [("TG002", 2, 1), ("TG003", 3, 6), ("TG002", 4, 3)]
    assert dict(document.key_spans) == {("a",): at(1, 1)}


def test_tg003_python_tag_is_reported_and_never_run(
    tmp_path: Path, composer: str
) -> None:
    marker = tmp_path / "pwned"
    document, diagnostics = load_text(
        tmp_path,
        f"name: x\ncmd: !!python/object/apply:os.system ['touch {marker}']\n",
    )

    assert not marker.exists()
    assert document is not None
    assert document.data == {"name": "x", "cmd": None}
    assert where(diagnostics) == [("TG003", 2, 6)]
    assert diagnostics[0].message == (
        "the tag !!python/object/apply:os.system is not plain data; "
        "toolgen never builds objects from tags"
    )


def test_tg003_every_non_core_tag(tmp_path: Path, composer: str) -> None:
    document, diagnostics = load_text(
        tmp_path,
        "a: !!python/name:os.system\nb: !custom 5\nc: !!binary aGk=\n"
        "d: !!timestamp 2026-10-09\ne: !!set {x, y}\nf: !!omap [x: 1]\n"
        "g: !<tag:example.com,2026:thing> 1\n",
    )

    assert document is not None
    assert document.data == dict.fromkeys("abcdefg")
    assert where(diagnostics) == [("TG003", line, 4) for line in range(1, 8)]
    shown = [d.message.split()[2] for d in diagnostics]
    assert shown == [
        "!!python/name:os.system",
        "!custom",
        "!!binary",
        "!!timestamp",
        "!!set",
        "!!omap",
        "tag:example.com,2026:thing",
    ]


def test_tg003_on_the_whole_document_or_a_key(tmp_path: Path) -> None:
    document, diagnostics = load_text(tmp_path, "!!python/object:os.system\nname: x\n")
    assert document is None
    assert where(diagnostics) == [("TG003", 1, 1)]

    document, diagnostics = load_text(tmp_path, "a: 1\n!!python/name:os.system b: 2\n")
    assert document is not None
    assert document.data == {"a": 1}
    assert where(diagnostics) == [("TG003", 2, 1)]


def test_yaml_constructors_are_never_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("constructors must not run")

    monkeypatch.setattr(yaml.constructor.BaseConstructor, "construct_object", refuse)
    monkeypatch.setattr(yaml.constructor.BaseConstructor, "construct_document", refuse)
    monkeypatch.setattr(yaml, "load", refuse)

    assert data_of(tmp_path, "a: [1, {b: yes}]\n") == {"a": [1, {"b": "yes"}]}


def test_tg004_aliases_are_reported_where_used(tmp_path: Path, composer: str) -> None:
    document, diagnostics = load_text(
        tmp_path,
        "base: &b {x: 1}\nuse: *b\nlist: [1, *b]\n*b : key\n",
    )

    assert document is not None
    assert document.data == {"base": {"x": 1}, "use": None, "list": [1, None]}
    assert where(diagnostics) == [("TG004", 2, 6), ("TG004", 3, 11), ("TG004", 4, 1)]
    assert diagnostics[0].message == (
        "the alias *b is not supported; toolgen does not read anchors and aliases"
    )


def test_tg004_merge_key(tmp_path: Path, composer: str) -> None:
    document, diagnostics = load_text(
        tmp_path,
        "base: &b {x: 1}\nitem:\n  <<: *b\n  y: 2\nother:\n  <<: {z: 3}\n"
        "quoted:\n  '<<': fine\n",
    )

    assert document is not None
    assert document.data == {
        "base": {"x": 1},
        "item": {"y": 2},
        "other": {},
        "quoted": {"<<": "fine"},
    }
    assert where(diagnostics) == [("TG004", 3, 3), ("TG004", 6, 3)]
    assert diagnostics[0].message == (
        "the merge key '<<' is not supported; toolgen does not read anchors, "
        "aliases or merges"
    )


def test_tg004_undefined_alias_and_reused_anchor(tmp_path: Path, composer: str) -> None:
    document, diagnostics = load_text(
        tmp_path, "a: *nowhere\nb: &x 1\nc: &x 2\nd: *x\n"
    )

    assert document is not None
    assert document.data == {"a": None, "b": 1, "c": 2, "d": None}
    assert where(diagnostics) == [("TG004", 1, 4), ("TG004", 4, 4)]


def test_tg004_billion_laughs_is_rejected_without_expanding(
    tmp_path: Path, composer: str
) -> None:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 10):
        refs = ", ".join([f"*l{level - 1}"] * 9)
        lines.append(f"l{level}: &l{level} [{refs}]")

    document, diagnostics = load_text(tmp_path, "\n".join(lines) + "\n")

    # nothing was expanded (9 ** 9 strings, had it been): each alias read as null
    assert document is not None
    assert document.data["l9"] == [None] * 9  # type: ignore[index]
    assert len(diagnostics) == 81
    assert {d.code for d in diagnostics} == {"TG004"}
    assert diagnostics[0].span == at(2, 10)


def test_tg005_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / NAME
    # the place is the byte's, in characters: é before it is one column, two bytes
    path.write_bytes(b"name: ok\nsummary: \xc3\xa9t\xc3\xa9 caf\xe9\n")

    document, diagnostics = load_document(path, NAME)

    assert document is None
    assert where(diagnostics) == [("TG005", 2, 17)]  # byte 19
    assert (
        diagnostics[0].message
        == "the file is not UTF-8 text: byte 0xe9 cannot be decoded"
    )
    assert diagnostics[0].hint == "Save the file with UTF-8 encoding."


def test_tg005_utf16_file(tmp_path: Path) -> None:
    path = tmp_path / NAME
    path.write_bytes("name: x\n".encode("utf-16"))

    document, diagnostics = load_document(path, NAME)

    assert document is None
    assert [d.code for d in diagnostics] == ["TG005"]
    assert "UTF-16" in diagnostics[0].hint


def test_tg005_position_ignores_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / NAME
    path.write_bytes(b"\xef\xbb\xbfa: \xff\n")

    _, diagnostics = load_document(path, NAME)

    assert where(diagnostics) == [("TG005", 1, 4)]


def test_tg005_unreadable(tmp_path: Path) -> None:
    missing, missing_diagnostics = load_document(tmp_path / "gone.yaml", "gone.yaml")
    (tmp_path / "dir.yaml").mkdir()
    folder, folder_diagnostics = load_document(tmp_path / "dir.yaml", "dir.yaml")

    assert missing is None and folder is None
    assert [(d.code, d.span) for d in missing_diagnostics] == [
        ("TG005", Span("gone.yaml", 1, 1))
    ]
    assert missing_diagnostics[0].message == (
        "cannot read the file: No such file or directory"
    )
    assert [(d.code, d.span) for d in folder_diagnostics] == [
        ("TG012", Span("dir.yaml", 1, 1))
    ]
    assert folder_diagnostics[0].message == "the file is a folder, not a regular file"


@pytest.mark.parametrize(
    ("text", "span", "words"),
    [
        ("", (1, 1), "has no content"),
        ("# only a comment\n\n", (1, 1), "has no content"),
        ("---\n", (1, 1), "has no content"),
        ("- a\n- b\n", (1, 1), "holds a list at the top level"),
        ("\n\njust text\n", (3, 1), "holds a single value at the top level"),
        ("[1, 2]\n", (1, 1), "holds a list at the top level"),
    ],
)
def test_tg006_top_level_must_be_a_mapping(
    tmp_path: Path, text: str, span: tuple[int, int], words: str
) -> None:
    document, diagnostics = load_text(tmp_path, text)

    assert document is None
    assert where(diagnostics) == [("TG006", *span)]
    assert words in diagnostics[0].message


def test_tg007_second_document(tmp_path: Path, composer: str) -> None:
    document, diagnostics = load_text(tmp_path, "name: one\nx: 1\n---\nname: two\n")

    assert document is not None
    assert document.data == {"name": "one", "x": 1}
    assert where(diagnostics) == [("TG007", 3, 1)]
    assert diagnostics[0].message == (
        "the file holds more than one YAML document; a second one starts here"
    )


def test_tg007_explicit_start_and_end_markers(tmp_path: Path) -> None:
    document, diagnostics = load_text(tmp_path, "---\na: 1\n...\n---\nb: 2\n")

    assert document is not None
    assert document.data == {"a": 1}
    assert where(diagnostics) == [("TG007", 4, 1)]
    # One document with its markers is fine.
    assert data_of(tmp_path, "---\na: 1\n...\n") == {"a": 1}


def test_tg009_keys_that_are_not_plain_scalars(tmp_path: Path, composer: str) -> None:
    document, diagnostics = load_text(
        tmp_path, "[a, b]: 1\n{x: 1}: 2\n? - z\n: 3\nok: 4\n? \n: 5\n!!null '': 6\n"
    )

    assert document is not None
    assert document.data == {"ok": 4}
    assert where(diagnostics) == [
        ("TG009", 1, 1),
        ("TG009", 2, 1),
        ("TG009", 3, 3),
        ("TG009", 6, 2),
        ("TG009", 8, 1),
    ]
    assert diagnostics[0].message == (
        "a mapping key must be a single word or text, not a list"
    )
    assert diagnostics[1].message.endswith("not a mapping")
    assert "empty" in diagnostics[3].message


def test_tg010_values_that_do_not_fit_their_tag(tmp_path: Path, composer: str) -> None:
    document, diagnostics = load_text(
        tmp_path,
        "a: !!int abc\nb: !!bool yes\nc: !!float 0x1F\nd: !!null none\n"
        "e: !!str {x: 1}\nf: !!map 5\ng: !!seq {}\n",
    )

    assert document is not None
    assert document.data == dict.fromkeys("abcdefg")
    assert where(diagnostics) == [("TG010", line, 4) for line in range(1, 8)]
    assert [d.message for d in diagnostics] == [
        "the value 'abc' does not fit its tag !!int",
        "the value 'yes' does not fit its tag !!bool",
        "the value '0x1F' does not fit its tag !!float",
        "the value 'none' does not fit its tag !!null",
        "the tag !!str does not fit a mapping",
        "the tag !!map does not fit a single value",
        "the tag !!seq does not fit a mapping",
    ]


@pytest.mark.parametrize(
    "number",
    ["9" * 5000, "0x" + "f" * 5000, "0o" + "7" * 5000],
    ids=["decimal", "hexadecimal", "octal"],
)
def test_tg010_integer_too_long_to_read(tmp_path: Path, number: str) -> None:
    document, diagnostics = load_text(tmp_path, f"a: {number}\n")

    assert document is not None
    assert document.data == {"a": None}
    assert where(diagnostics) == [("TG010", 1, 4)]
    assert diagnostics[0].hint == "Put the number in quotes to keep it as text."


def test_anchor_without_alias_is_harmless(tmp_path: Path) -> None:
    assert data_of(tmp_path, "a: &x 1\nb: &y {c: 2}\n") == {"a": 1, "b": {"c": 2}}


def test_problems_of_one_file_come_sorted_by_place(tmp_path: Path) -> None:
    _, diagnostics = load_text(tmp_path, "a: 1\nb: !x 1\na: 2\n---\nc: 3\n")

    assert where(diagnostics) == [("TG003", 2, 4), ("TG002", 3, 1), ("TG007", 4, 1)]


# ---------------------------------------------------------------------------
# Catalogues


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_load_catalogue_fixture() -> None:
    loaded = load_catalogue(FIXTURES / "shop", "shop")

    assert loaded.diagnostics == ()
    assert loaded.folder == "shop"
    assert loaded.catalogue is not None
    assert loaded.catalogue.file == "shop/catalogue.yaml"
    assert loaded.catalogue.data == {
        "name": "shop",
        "version": 1,
        "owner": "platform-team",
    }
    assert [tool.file for tool in loaded.tools] == [
        "shop/tools/cancel_order.yml",
        "shop/tools/find_customer.yaml",
    ]
    cancel, find = (tool.data for tool in loaded.tools)
    assert cancel["params"]["notify"] == {  # type: ignore[index]
        "type": "boolean",
        "default": "yes",
    }
    assert find["examples"][0]["result"]["created"] == "2026-10-09"  # type: ignore[index]
    assert loaded.tools[1].span(["params", "email", "format"]) == Span(
        "shop/tools/find_customer.yaml", 7, 13
    )


def test_load_catalogue_sorts_and_filters_tool_files(tmp_path: Path) -> None:
    write(tmp_path / "catalogue.yaml", "name: c\n")
    for name in ["zeta.yaml", "Alpha.yaml", "beta.yml", "a10.yaml", "a9.yaml"]:
        write(tmp_path / "tools" / name, f"name: {name}\n")
    write(tmp_path / "tools" / "notes.txt", "not yaml\n")
    write(tmp_path / "tools" / ".#beta.yaml", "lock file\n")
    write(tmp_path / "tools" / "nested" / "deep.yaml", "name: deep\n")

    loaded = load_catalogue(tmp_path)

    assert loaded.diagnostics == ()
    assert loaded.folder == str(tmp_path)
    assert [Path(tool.file).name for tool in loaded.tools] == [
        "Alpha.yaml",
        "a10.yaml",
        "a9.yaml",
        "beta.yml",
        "zeta.yaml",
    ]
    assert loaded.tools[0].file == f"{tmp_path}/tools/Alpha.yaml"


def test_load_catalogue_collects_problems_from_every_file(tmp_path: Path) -> None:
    write(tmp_path / "catalogue.yaml", "name: c\nname: d\n")
    write(tmp_path / "tools" / "a.yaml", "- not a mapping\n")
    write(tmp_path / "tools" / "b.yaml", "name: b\nx: [1\n")
    write(tmp_path / "tools" / "c.yaml", "name: c\n")

    loaded = load_catalogue(tmp_path, "cat")

    assert [(d.code, str(d.span)) for d in loaded.diagnostics] == [
        ("TG002", "cat/catalogue.yaml:2:1"),
        ("TG006", "cat/tools/a.yaml:1:1"),
        ("TG001", "cat/tools/b.yaml:3:1"),
    ]
    assert loaded.catalogue is not None
    assert loaded.catalogue.data == {"name": "c"}
    assert [tool.file for tool in loaded.tools] == ["cat/tools/c.yaml"]


def test_tg008_missing_catalogue_yaml(tmp_path: Path) -> None:
    write(tmp_path / "tools" / "a.yaml", "name: a\n")

    loaded = load_catalogue(tmp_path, "cat")

    assert loaded.catalogue is None
    assert len(loaded.tools) == 1
    assert [(d.code, d.span, d.message) for d in loaded.diagnostics] == [
        ("TG008", Span("cat", 1, 1), "the catalogue folder has no catalogue.yaml")
    ]


def test_tg008_catalogue_yml_gets_a_rename_hint(tmp_path: Path) -> None:
    write(tmp_path / "catalogue.yml", "name: c\n")
    write(tmp_path / "tools" / "a.yaml", "name: a\n")

    loaded = load_catalogue(tmp_path, "cat")

    assert [d.code for d in loaded.diagnostics] == ["TG008"]
    assert loaded.diagnostics[0].hint == "Rename catalogue.yml to catalogue.yaml."


def test_tg008_missing_tools_folder(tmp_path: Path) -> None:
    write(tmp_path / "catalogue.yaml", "name: c\n")

    loaded = load_catalogue(tmp_path, "cat")

    assert loaded.catalogue is not None
    assert loaded.tools == ()
    assert [(d.code, d.span, d.message) for d in loaded.diagnostics] == [
        ("TG008", Span("cat", 1, 1), "the catalogue folder has no tools/ folder")
    ]


def test_tg008_tools_folder_without_tool_files(tmp_path: Path) -> None:
    write(tmp_path / "catalogue.yaml", "name: c\n")
    write(tmp_path / "tools" / "readme.md", "nothing here\n")

    loaded = load_catalogue(tmp_path, "cat")

    assert [(d.code, d.span, d.message) for d in loaded.diagnostics] == [
        (
            "TG008",
            Span("cat", 1, 1),
            "the tools/ folder has no tool files (*.yaml or *.yml)",
        )
    ]


def test_tg008_folder_does_not_exist(tmp_path: Path) -> None:
    loaded = load_catalogue(tmp_path / "nope", "nope")

    assert loaded.catalogue is None
    assert loaded.tools == ()
    assert [(d.code, d.span) for d in loaded.diagnostics] == [
        ("TG008", Span("nope", 1, 1))
    ]
    assert "does not exist" in loaded.diagnostics[0].message


def test_tg005_unlistable_tools_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "catalogue.yaml", "name: c\n")
    write(tmp_path / "tools" / "a.yaml", "name: a\n")

    def refuse(path: object) -> object:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "listdir", refuse)
    loaded = load_catalogue(tmp_path, "cat")

    assert loaded.tools == ()
    assert [(d.code, d.span, d.message) for d in loaded.diagnostics] == [
        (
            "TG005",
            Span("cat/tools", 1, 1),
            "cannot read the tools/ folder: Permission denied",
        )
    ]


def test_load_catalogue_leaves_the_garbage_collector_as_it_was(tmp_path: Path) -> None:
    write(tmp_path / "catalogue.yaml", "name: c\n")
    write(tmp_path / "tools" / "a.yaml", "name: a\n")
    was_enabled = gc.isenabled()
    try:
        gc.enable()
        load_catalogue(tmp_path)
        assert gc.isenabled()
        gc.disable()
        load_catalogue(tmp_path)
        assert not gc.isenabled()
    finally:
        if was_enabled:
            gc.enable()


def test_catalogue_and_tools_missing_are_both_reported(tmp_path: Path) -> None:
    loaded = load_catalogue(tmp_path, "cat")

    assert [d.message for d in loaded.diagnostics] == [
        "the catalogue folder has no catalogue.yaml",
        "the catalogue folder has no tools/ folder",
    ]
