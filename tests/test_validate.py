"""The format check: every jsonschema error becomes one diagnostic at the place of the bad
value, named the way a reader names it, with a hint that guesses the fix from what was
written (YAML 1.2 booleans, quoted numbers, text that YAML read as a mapping)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from loading import load_catalogue, validate

from toolgen.diagnostics import Span
from toolgen.spec import validate as validate_module
from toolgen.spec.load import PathKey, load_document
from toolgen.spec.validate import SchemaKind, check_document

NAME = "spec.yaml"
TOOL_HEAD = """\
name: read_stock
intent: Read the stock of a product.
effect: read
"""
CATALOGUE_HEAD = """\
format: 1
name: shop
description: A shop.
"""

Found = tuple[str, int, int, str, str]


def check(tmp_path: Path, text: str, kind: SchemaKind = "tool") -> list[Found]:
    path = tmp_path / NAME
    path.write_text(text, encoding="utf-8")
    document, problems = load_document(path, NAME)
    assert problems == [] and document is not None
    return [
        (d.code, d.span.line, d.span.col, d.message, d.hint)
        for d in check_document(document, kind)
    ]


def one(tmp_path: Path, text: str, kind: SchemaKind = "tool") -> Found:
    found = check(tmp_path, text, kind)
    assert len(found) == 1, found
    return found[0]


# --- naming the place ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "kind", "subject"),
    [
        ((), "tool", "the tool"),
        ((), "catalogue", "the catalogue"),
        (("intent",), "tool", "'intent' of the tool"),
        (("params",), "tool", "'params' of the tool"),
        (("params", "sku"), "tool", "parameter 'sku'"),
        (("params", "sku", "type"), "tool", "'type' of parameter 'sku'"),
        (("params", "sku", "items"), "tool", "'items' of parameter 'sku'"),
        (
            ("params", "sku", "items", "type"),
            "tool",
            "'type' of the items of parameter 'sku'",
        ),
        (
            ("params", "filter", "properties", "status", "enum", 2),
            "tool",
            "item 3 of 'enum' of property 'status' of parameter 'filter'",
        ),
        (("params", "errors", "type"), "tool", "'type' of parameter 'errors'"),
        (
            ("returns", "orders", "items", "properties", "total_eur"),
            "tool",
            "property 'total_eur' of the items of return field 'orders'",
        ),
        (
            ("errors", "no_stock", "how_to_fix"),
            "tool",
            "'how_to_fix' of error 'no_stock'",
        ),
        (("examples", 0), "tool", "examples entry 1"),
        (
            ("examples", 1, "args", "params"),
            "tool",
            "'args.params' of examples entry 2",
        ),
        (("not_when", 0, "use"), "tool", "'use' of not_when entry 1"),
        (("suppress", 2, "reason"), "tool", "'reason' of suppress entry 3"),
        (("context", 1), "tool", "item 2 of 'context' of the tool"),
        (
            ("context", "run_id", "type"),
            "catalogue",
            "'type' of context field 'run_id'",
        ),
        (("budget", "tokens"), "catalogue", "'budget.tokens' of the catalogue"),
        (
            ("lint", "severity", "TG201"),
            "catalogue",
            "'lint.severity.TG201' of the catalogue",
        ),
        (("targets", 0), "catalogue", "item 1 of 'targets' of the catalogue"),
    ],
)
def test_subject_names_the_place_as_a_reader_would(
    path: PathKey, kind: SchemaKind, subject: str
) -> None:
    assert validate_module._subject(path, kind) == subject


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("read", '"read"'),
        ("x" * 50, '"' + "x" * 37 + '..."'),
        (42, "42"),
        (10**80, str(10**80)[:57] + "..."),
        (True, "true"),
        (None, "null"),
        ({"a": 1}, "a mapping"),
        ([1, 2], "a list"),
        (math.inf, ".inf"),
        (-math.inf, "-.inf"),
        (math.nan, ".nan"),
    ],
)
def test_values_are_shown_short_and_in_yaml_words(value: object, shown: str) -> None:
    assert validate_module._shown(value) == shown


# --- one message per kind of error ----------------------------------------------------------


def test_unknown_key_with_did_you_mean(tmp_path: Path) -> None:
    code, line, col, message, hint = one(tmp_path, TOOL_HEAD + "use_wen: Always.\n")
    assert (code, line, col) == ("TG101", 4, 1)
    assert message == "unknown key 'use_wen' in the tool"
    assert hint.startswith(
        "Did you mean 'use_when'? Known keys: asks, confirmation, context, "
    )


def test_unknown_key_without_a_close_one_lists_the_known_keys(tmp_path: Path) -> None:
    text = TOOL_HEAD + "params:\n  sku:\n    type: string\n    owner: me\n"
    assert one(tmp_path, text) == (
        "TG101",
        7,
        5,
        "unknown key 'owner' in parameter 'sku'",
        "Known keys: default, description, enum, example, hosts, hosts_from, items, max, "
        "max_items, max_length, min, min_items, min_length, must_exist, optional, pattern, "
        "ports, properties, root, schemes, suffixes, type.",
    )


def test_nested_parameters_and_fields_are_checked_as_the_top_ones(
    tmp_path: Path,
) -> None:
    # the format's schema reaches them through its own $defs (validate._validator), at
    # every depth: an object's properties, an array's items, a return field's properties
    text = TOOL_HEAD + (
        "params:\n"
        "  filter:\n"
        "    type: object\n"
        "    properties:\n"
        "      ref: {type: string, colour: red}\n"
        "      lines: {type: array, items: {type: integer, maxx: 3}}\n"
        "returns:\n"
        "  order: {type: object, properties: {id: {type: integer, bogus: 1}}}\n"
    )
    found = [(line, col, message) for _, line, col, message, _ in check(tmp_path, text)]
    assert found == [
        (8, 27, "unknown key 'colour' in property 'ref' of parameter 'filter'"),
        (
            9,
            51,
            "unknown key 'maxx' in 'items' of property 'lines' of parameter 'filter'",
        ),
        (11, 58, "unknown key 'bogus' in property 'id' of return field 'order'"),
    ]


def test_every_missing_required_key_is_reported_at_its_mapping(tmp_path: Path) -> None:
    found = check(tmp_path, "name: read_stock\nparams:\n  sku:\n    description: x\n")
    assert [(code, line, col, message) for code, line, col, message, _ in found] == [
        ("TG102", 1, 1, "the tool has no 'effect'"),
        ("TG102", 1, 1, "the tool has no 'intent'"),
        ("TG102", 3, 3, "parameter 'sku' has no 'type'"),
    ]
    assert found[0][4] == (
        "Add effect: ... (What calling the tool does to the world: read (nothing), write "
        "(changes data), destructive (changes that cannot be undone).)"
    )


def test_enum_with_did_you_mean(tmp_path: Path) -> None:
    text = TOOL_HEAD.replace("effect: read", "effect: wirte")
    assert one(tmp_path, text) == (
        "TG103",
        3,
        9,
        "'effect' of the tool is \"wirte\", expected one of read, write, destructive",
        "Did you mean 'write'? Use one of: read, write, destructive.",
    )


def test_const_names_the_one_value(tmp_path: Path) -> None:
    text = CATALOGUE_HEAD.replace("format: 1", "format: 2")
    assert one(tmp_path, text, "catalogue") == (
        "TG103",
        1,
        9,
        "'format' of the catalogue is 2, expected 1",
        "Write 1 here.",
    )


def test_a_word_or_a_mapping_names_the_words(tmp_path: Path) -> None:
    code, _, _, message, hint = one(tmp_path, TOOL_HEAD + "idempotency: natrual\n")
    assert code == "TG103"
    assert (
        message
        == "'idempotency' of the tool is \"natrual\", expected one of natural, none"
    )
    assert hint == "Did you mean 'natural'? Use one of: natural, none."


def test_a_mapping_where_a_word_or_a_mapping_fits_is_checked_inside(
    tmp_path: Path,
) -> None:
    code, _, _, message, hint = one(
        tmp_path, TOOL_HEAD + "idempotency: {keys: [sku], context: [run_id]}\n"
    )
    assert code == "TG101"
    assert message == "unknown key 'keys' in 'idempotency' of the tool"
    assert hint.startswith("Did you mean 'key'?")


def test_confirmation_is_a_word(tmp_path: Path) -> None:
    code, _, _, message, _ = one(tmp_path, TOOL_HEAD + "confirmation: {kind: token}\n")
    assert code == "TG103"
    assert message.startswith("'confirmation' of the tool is")


@pytest.mark.parametrize(
    ("line", "message", "hint"),
    [
        (
            "open_world: no",
            "'open_world' of the tool is \"no\", expected a boolean",
            "Write false: toolgen reads YAML 1.2, where only true and false are booleans "
            "and 'no' is text.",
        ),
        (
            "open_world: On",
            "'open_world' of the tool is \"On\", expected a boolean",
            "Write true: toolgen reads YAML 1.2, where only true and false are booleans "
            "and 'On' is text.",
        ),
        (
            "open_world: 'true'",
            "'open_world' of the tool is \"true\", expected a boolean",
            "Write true without quotes; in quotes it is text.",
        ),
        (
            "open_world: 1",
            "'open_world' of the tool is 1, expected a boolean",
            "Write true or false here.",
        ),
        (
            "use_when: 42",
            "'use_when' of the tool is 42, expected a string",
            "Put the value in quotes ('...'): without them YAML reads it as a number or a "
            "boolean.",
        ),
        (
            "use_when: false",
            "'use_when' of the tool is false, expected a string",
            "Put the value in quotes ('...'): without them YAML reads it as a number or a "
            "boolean.",
        ),
        (
            "use_when:",
            "'use_when' of the tool is null, expected a string",
            "Write a string after the colon; a key with nothing after it is null.",
        ),
        (
            "use_when: [Always.]",
            "'use_when' of the tool is a list, expected a string",
            "Write plain text here, not a list.",
        ),
        (
            "use_when:\n  The user asks: how many",
            "'use_when' of the tool is a mapping, expected a string",
            "Write plain text here. Text that holds ': ' needs quotes, or '>-' after the "
            "colon with the text indented on the lines below.",
        ),
        (
            "requires: read_stock",
            "'requires' of the tool is \"read_stock\", expected a list",
            "Write a list here.",
        ),
        (
            "params: [sku]",
            "'params' of the tool is a list, expected a mapping",
            "Write a mapping here.",
        ),
    ],
)
def test_type_errors_say_what_was_written_and_how_to_write_it(
    tmp_path: Path, line: str, message: str, hint: str
) -> None:
    code, row, _, got_message, got_hint = one(tmp_path, TOOL_HEAD + line + "\n")
    assert code == "TG103"
    assert row == 4 + line.count("\n")
    assert (got_message, got_hint) == (message, hint)


def test_a_quoted_number_is_told_to_lose_its_quotes(tmp_path: Path) -> None:
    text = CATALOGUE_HEAD + "budget:\n  tokens: '4000'\n"
    assert one(tmp_path, text, "catalogue") == (
        "TG103",
        5,
        11,
        "'budget.tokens' of the catalogue is \"4000\", expected an integer",
        "Write the number without quotes; in quotes it is text.",
    )


def test_other_schema_rules_use_jsonschema_words_and_the_key_description(
    tmp_path: Path,
) -> None:
    text = TOOL_HEAD + "params:\n  sku:\n    type: string\n    min_length: -1\n"
    assert one(tmp_path, text) == (
        "TG104",
        7,
        17,
        "'min_length' of parameter 'sku': -1 is less than the minimum of 0",
        "Fewest characters in a string, at most 100,000.",
    )


def test_a_long_value_is_cut_short_in_the_message(tmp_path: Path) -> None:
    text = TOOL_HEAD + "open_world: " + "word " * 40 + "\n"
    _, _, _, message, _ = one(tmp_path, text)
    assert message == (
        "'open_world' of the tool is \"word word word word word word word wo...\", "
        "expected a boolean"
    )


# --- numbers JSON cannot hold ---------------------------------------------------------------


def test_infinity_and_nan_are_reported_where_they_are(tmp_path: Path) -> None:
    text = TOOL_HEAD + (
        "params:\n"
        "  ratio:\n"
        "    type: number\n"
        "    max: .inf\n"
        "    enum: [1.5, -.Inf]\n"
        "examples:\n"
        "  - args: {ratio: .nan}\n"
    )
    found = check(tmp_path, text)
    assert [(code, line, col, message) for code, line, col, message, _ in found] == [
        (
            "TG103",
            7,
            10,
            "'max' of parameter 'ratio' is .inf, expected a finite number",
        ),
        (
            "TG103",
            8,
            17,
            "item 2 of 'enum' of parameter 'ratio' is -.inf, expected a finite number",
        ),
        (
            "TG103",
            10,
            19,
            "'args.ratio' of examples entry 1 is .nan, expected a finite number",
        ),
    ]
    assert found[0][4] == (
        "Write a finite number, or leave the value out: JSON, and so the schema the model "
        "reads, has no infinity or NaN."
    )


def test_infinity_where_the_schema_already_complains_is_reported_once(
    tmp_path: Path,
) -> None:
    code, _, _, message, _ = one(tmp_path, TOOL_HEAD + "use_when: .inf\n")
    assert (code, message) == (
        "TG103",
        "'use_when' of the tool is .inf, expected a string",
    )


# --- the stage as a whole -------------------------------------------------------------------


def _catalogue(tmp_path: Path, tools: dict[str, str]) -> Path:
    folder = tmp_path / "cat"
    (folder / "tools").mkdir(parents=True)
    (folder / "catalogue.yaml").write_text(CATALOGUE_HEAD, encoding="utf-8")
    for name, text in tools.items():
        (folder / "tools" / f"{name}.yaml").write_text(text, encoding="utf-8")
    return folder


def test_a_value_load_reported_is_not_blamed_again_but_stays_out(
    tmp_path: Path,
) -> None:
    folder = _catalogue(
        tmp_path,
        {
            "read_stock": TOOL_HEAD.replace(
                "intent: Read the stock of a product.",
                "intent: !!python/name:os.system",
            ),
            "find_customer": "name: find_customer\nintent: Find one.\neffect: read\n",
        },
    )
    loaded = load_catalogue(folder, "cat")
    assert [(d.code, d.span) for d in loaded.diagnostics] == [
        ("TG003", Span("cat/tools/read_stock.yaml", 2, 9))
    ]

    validated = validate(loaded)

    assert validated.diagnostics == ()
    assert [d.file for d in validated.tools] == ["cat/tools/find_customer.yaml"]
    assert validated.broken == ("read_stock",)  # known, but not in the model
    assert validated.catalogue is loaded.catalogue


def test_documents_with_format_errors_go_no_further(tmp_path: Path) -> None:
    folder = _catalogue(
        tmp_path,
        {
            "read_stock": TOOL_HEAD + "efect: write\n",
            "find_customer": "name: find_customer\nintent: Find one.\neffect: read\n",
        },
    )
    validated = validate(load_catalogue(folder, "cat"))
    assert [d.code for d in validated.diagnostics] == ["TG101"]
    assert [d.file for d in validated.tools] == ["cat/tools/find_customer.yaml"]
    assert validated.broken == ("read_stock",)  # known, but not in the model


def test_a_json_schema_spelling_gets_the_toolgen_key_not_a_lookalike(
    tmp_path: Path,
) -> None:
    text = (
        TOOL_HEAD
        + "params:\n  skus:\n    type: array\n    unique_items: true\n"
        + "    maxItems: 3\n    items: {type: string}\n"
    )
    hints = {message: hint for _, _, _, message, hint in check(tmp_path, text)}
    unique = hints["unknown key 'unique_items' in parameter 'skus'"]
    assert "min_items?" not in unique
    assert unique.startswith("toolgen has no unique_items")
    assert hints["unknown key 'maxItems' in parameter 'skus'"].startswith(
        "toolgen writes it max_items."
    )
