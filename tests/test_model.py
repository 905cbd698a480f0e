"""The model: names computed once (Python, module and class names), descriptions composed by
one template, the exposed and the validation schema of every parameter, and the semantic
checks a JSON Schema cannot make."""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import pytest
from loading import (
    ModelResult,
    build_model,
    load_catalogue,
    run_checks,
    tool_named,
    validate,
)

from toolgen.diagnostics import Diagnostic
from toolgen.names import (
    MODULE_NAMES,
    item_class,
    module_name,
    pascal,
    python_name,
    singular,
)
from toolgen.render.modules import render_tool_module
from toolgen.spec import toolschema
from toolgen.spec.ir import Param, Tool
from toolgen.spec.summary import PyNames

CATALOGUE = """\
format: 1
name: shop
description: A shop.
context:
  run_id:
    type: string
    description: The current run.
  customer_id:
    type: integer
    description: The signed-in customer.
"""


def build(tmp_path: Path, *tools: str, catalogue: str = CATALOGUE) -> ModelResult:
    """The model of a catalogue whose files load and pass the format check."""
    folder = tmp_path / "cat"
    (folder / "tools").mkdir(parents=True)
    (folder / "catalogue.yaml").write_text(catalogue, encoding="utf-8")
    for text in tools:
        found = re.search(r"^name: (\S+)", text, re.MULTILINE)
        assert found is not None
        (folder / "tools" / f"{found[1]}.yaml").write_text(text, encoding="utf-8")
    loaded = load_catalogue(folder, "cat")
    validated = validate(loaded)
    assert loaded.diagnostics == () and validated.diagnostics == ()
    built = build_model(
        validated.catalogue,
        validated.tools,
        folder="cat",
        broken_tools=validated.broken,
    )
    found = run_checks(built.catalogue) if built.catalogue is not None else []
    return ModelResult(built.catalogue, (*built.diagnostics, *found))


def only_tool(result: ModelResult) -> Tool:
    assert result.catalogue is not None
    assert len(result.catalogue.tools) == 1
    return result.catalogue.tools[0]


def clean_tool(tmp_path: Path, text: str) -> Tool:
    result = build(tmp_path, text)
    assert result.diagnostics == ()
    return only_tool(result)


def param(tool: Tool, dotted: str) -> Param:
    """A parameter by dotted path; `[]` steps into an array's items."""
    node: Param | None = None
    params = tool.params
    for part in dotted.split("."):
        if part == "[]":
            assert node is not None and node.items is not None
            node = node.items
            params = node.properties
            continue
        node = next(p for p in params if p.name == part)
        params = node.properties
    assert node is not None
    return node


def properties(schema: Mapping[str, object]) -> dict[str, Any]:
    return cast(dict[str, Any], schema["properties"])


def where(diagnostics: tuple[Diagnostic, ...]) -> list[tuple[str, str, int, int]]:
    return [(d.code, d.span.file, d.span.line, d.span.col) for d in diagnostics]


def tool_text(params: str, *, head: str = "", returns: str = "") -> str:
    """A tool named search_orders with these params (YAML lines under params:)."""
    return (
        "name: search_orders\n"
        "intent: List the customer's orders.\n"
        "effect: read\n"
        + head
        + "params:\n"
        + params
        + "returns:\n"
        + (returns or "  shown:\n    type: integer\n    description: Orders listed.\n")
    )


# --- names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("find_customer", "FindCustomer"),
        ("max-results", "MaxResults"),
        ("read stock", "ReadStock"),
        ("a__b", "AB"),
        ("sku2", "Sku2"),
        ("FindCustomer", "FindCustomer"),
    ],
)
def test_pascal(name: str, expected: str) -> None:
    assert pascal(name) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("sku", "sku"),
        ("from", "from_"),
        ("class", "class_"),
        ("import", "import_"),
        ("None", "None_"),
        ("json", "json_"),
        ("model_config", "model_config_"),
        ("validate", "validate_"),
        ("max-results", "max_results"),
        ("status.code", "status_code"),
        ("2nd_line", "f_2nd_line"),
        ("_private", "f_private"),
        ("__dunder", "f_dunder"),
    ],
)
def test_python_name_keeps_keywords_and_pydantic_names_apart(
    name: str, expected: str
) -> None:
    assert python_name(name) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("find_customer", "find_customer"),
        ("find-customer", "find_customer"),
        ("ReadStock", "readstock"),
        ("class", "class_"),
        # lowered before the keyword check: "import" would be a module no one can import
        ("Import", "import_"),
        ("From", "from_"),
    ],
)
def test_module_name_is_an_importable_lower_case_name(name: str, expected: str) -> None:
    assert module_name(name) == expected


def test_python_names_of_a_tool(tmp_path: Path) -> None:
    tool = clean_tool(
        tmp_path,
        tool_text("  status:\n    type: string\n    description: Only this status.\n")
        + "examples:\n  - args: {status: open}\n",
    )
    assert tool.py == PyNames(
        module="search_orders",
        prefix="SearchOrders",
        args_class="SearchOrdersArgs",
        context_class="SearchOrdersContext",
        result_class="SearchOrdersResult",
        error_class="SearchOrdersError",
    )
    assert tool.parameters["properties"] == {
        "status": {"type": "string", "description": "Only this status."}
    }


KEYWORD_PARAMS = """\
  from:
    type: string
    description: The departure station.
  class:
    type: string
    enum: [first, second]
    description: The travel class.
  import:
    type: object
    description: Extra filters.
    properties:
      in: {type: integer, description: Most changes.}
      global: {type: boolean, description: Trips abroad too.}
  sku:
    type: string
    description: The product code.
"""


def test_keyword_names_are_aliased_not_rejected(tmp_path: Path) -> None:
    tool = clean_tool(
        tmp_path,
        tool_text(KEYWORD_PARAMS)
        + "examples:\n"
        + "  - args: {from: A, class: first, import: {in: 1, global: true}, sku: S}\n",
    )
    names = [(p.name, p.py_name, p.aliased) for p in tool.all_params()]
    assert names == [
        ("from", "from_", True),
        ("class", "class_", True),
        ("import", "import_", True),
        ("in", "in_", True),
        ("global", "global_", True),
        ("sku", "sku", False),
    ]
    # the model sees the names as written; only Python uses the aliases
    assert list(properties(tool.parameters)) == ["from", "class", "import", "sku"]


NESTED_PARAMS = """\
  filter:
    type: object
    description: Which orders.
    properties:
      range:
        type: object
        description: The days.
        properties:
          first_day: {type: date, description: The first day.}
      tags:
        type: array
        description: Tags.
        items: {type: string}
  lines:
    type: array
    description: Order lines.
    items:
      type: object
      properties:
        sku: {type: string, description: The product code.}
  matrix:
    type: array
    description: Rows of cells.
    items:
      type: array
      items:
        type: object
        properties:
          cell: {type: integer, description: A cell.}
"""

NESTED_RETURNS = """\
  orders:
    type: array
    description: The orders.
    items:
      type: object
      properties:
        customer:
          type: object
          description: Who placed it.
          properties:
            name: {type: string, description: The name.}
  summary:
    type: object
    description: Totals.
    properties:
      total_eur: {type: number, description: The total in euros.}
"""


def test_class_names_of_nested_objects_and_arrays(tmp_path: Path) -> None:
    tool = clean_tool(
        tmp_path,
        tool_text(NESTED_PARAMS, returns=NESTED_RETURNS)
        + "examples:\n"
        + "  - args:\n"
        + "      filter: {range: {first_day: '2026-10-09'}, tags: []}\n"
        + "      lines: [{sku: S}]\n"
        + "      matrix: [[{cell: 1}]]\n",
    )
    assert param(tool, "filter").class_name == "SearchOrdersFilter"
    assert param(tool, "filter.range").class_name == "SearchOrdersFilterRange"
    assert param(tool, "lines.[]").class_name == "SearchOrdersLine"
    assert param(tool, "matrix.[].[]").class_name == "SearchOrdersMatrixItemItem"
    orders, summary = tool.returns
    assert orders.items is not None
    assert orders.items.class_name == "SearchOrdersOrder"
    assert orders.items.properties[0].class_name == "SearchOrdersOrderCustomer"
    assert summary.class_name == "SearchOrdersSummary"


def test_only_a_top_level_return_field_may_not_take_an_envelope_key(
    tmp_path: Path,
) -> None:
    """The envelope's keys (ok, error, truncated, ...) are those of the answer itself: a
    field of a returned object may take one. TG141 refused them at every depth, so the
    signers' `error` of Dropbox Sign's description, imported, could not build."""
    nested = (
        "  signers:\n    type: array\n    description: Who signs.\n    items:\n"
        "      type: object\n      properties:\n"
        "        error: {type: string, optional: true, description: Why it failed.}\n"
        "        ok: {type: boolean, description: Whether the signer signed.}\n"
    )
    text = tool_text("  q: {type: string}\n", returns=nested)
    tool = clean_tool(tmp_path, text + "examples:\n  - args: {q: x}\n")
    [signers] = tool.returns
    assert signers.items is not None
    assert [f.name for f in signers.items.properties] == ["error", "ok"]
    at_top = "  error: {type: string, description: Why it failed.}\n"
    refused = build(
        tmp_path / "refused", tool_text("  q: {type: string}\n", returns=at_top)
    )
    assert "TG141" in [d.code for d in refused.diagnostics]


@pytest.mark.parametrize(
    ("plural", "one"),
    [
        ("orders", "order"), ("entries", "entry"), ("boxes", "box"), ("sizes", "size"),
        ("prizes", "prize"), ("waltzes", "waltz"), ("buzzes", "buzz"),
        ("addresses", "address"), ("statuses", "status"), ("watches", "watch"),
        ("dishes", "dish"), ("status", "status"), ("data", "data"),
    ],
)  # fmt: skip
def test_an_array_item_is_named_after_the_singular(plural: str, one: str) -> None:
    assert singular(plural) == one
    # a word that is no plural names its items ...Item
    expected = "Stem" + (pascal(plural) + "Item" if one == plural else pascal(one))
    assert item_class("Stem", plural, frozenset()) == expected


# --- descriptions ----------------------------------------------------------------------------


def test_the_tool_description_is_composed_in_one_order(tmp_path: Path) -> None:
    create = (
        "name: create_reorder\n"
        "intent: Create a reorder proposal\n"
        "use_when: >-\n"
        "  The user asks to   restock\n"
        "  a product\n"
        "not_when:\n"
        "  - when: The user only wants the stock\n"
        "    use: read_stock\n"
        "  - when: The goods go to a customer.\n"
        "    use: send_order\n"
        "requires: [read_stock, send_order]\n"
        "effect: write\n"
        "idempotency: natural\n"
        "params:\n"
        "  sku: {type: string, description: The product code.}\n"
        "examples:\n"
        "  - args: {sku: S}\n"
    )
    others = [
        f"name: {name}\nintent: x.\neffect: read\nexamples:\n  - args: {{}}\n"
        for name in ("read_stock", "send_order")
    ]
    result = build(tmp_path, create, *others)
    assert result.diagnostics == ()
    assert result.catalogue is not None
    tool = tool_named(result.catalogue, "create_reorder")
    assert tool.description == (
        "Create a reorder proposal.\n"
        "Use when: The user asks to restock a product.\n"
        "Not when: The user only wants the stock. Use read_stock instead.\n"
        "Not when: The goods go to a customer. Use send_order instead.\n"
        "Call read_stock and send_order first.\n"
        "Changes data.\n"
        "Repeating a call with the same arguments does not repeat its effect."
    )
    destructive = build(
        tmp_path / "d",
        "name: drop_order\nintent: Drop an order!\neffect: destructive\n"
        "examples:\n  - args: {}\n",
    )
    assert only_tool(destructive).description == "Drop an order!\nCannot be undone."
    # a sentence ended in Chinese or Japanese takes no second full stop
    japanese = build(
        tmp_path / "j",
        "name: read_order\nintent: 注文の状態と配達予定日を読み取ります。\n"
        "use_when: ユーザーが注文の到着日を尋ねたとき\uff01\neffect: read\n"
        "examples:\n  - args: {}\n",
    )
    assert only_tool(japanese).description == (
        "注文の状態と配達予定日を読み取ります。\nUse when: ユーザーが注文の到着日を尋ねたとき\uff01"
    )


# --- the two schemas of a parameter ------------------------------------------------------------

SCHEMA_PARAMS = """\
  sku:
    type: string
    pattern: '^SKU-\\d{2,6}$'
    example: SKU-11
    description: The product code
  name:
    type: string
    min_length: 2
    max_length: 60
    description: The customer's name.
  code:
    type: string
    max_length: 8
    description: A code.
  pin:
    type: string
    min_length: 4
    max_length: 4
    description: A pin.
  urgency:
    type: string
    enum: [standard, urgent]
    default: standard
    description: How soon.
  since:
    type: date
    optional: true
    description: Only orders since this day.
  at:
    type: datetime
    description: The moment.
  max_results:
    type: integer
    min: 1
    max: 50
    default: 10
    description: Most orders.
  express:
    type: boolean
    default: false
    description: Express only.
  filter:
    type: object
    optional: true
    example: {status: open}
    description: More filters.
    properties:
      status: {type: string, description: The status.}
  skus:
    type: array
    optional: true
    max_items: 3
    description: Products.
    items: {type: string, max_length: 12}
"""

SCHEMA_EXAMPLE = (
    "examples:\n"
    "  - args: {sku: SKU-11, name: Ann, code: A, pin: '1234', urgency: null, since: null,\n"
    "           at: '2026-10-09T14:30:00+02:00', max_results: null, express: null,\n"
    "           filter: null, skus: null}\n"
)


@pytest.fixture
def schema_tool(tmp_path: Path) -> Tool:
    return clean_tool(tmp_path, tool_text(SCHEMA_PARAMS) + SCHEMA_EXAMPLE)


def test_the_exposed_schema_is_strict_and_says_in_words_what_it_cannot_carry(
    schema_tool: Tool,
) -> None:
    props = properties(schema_tool.parameters)
    assert schema_tool.parameters["required"] == list(props)
    assert schema_tool.parameters["additionalProperties"] is False
    assert props["sku"] == {
        "type": "string",
        "description": "The product code. Example: SKU-11.",
        "pattern": "^SKU-\\d{2,6}$",
    }
    # string lengths: stated, not in the schema
    assert props["name"] == {
        "type": "string",
        "description": "The customer's name. 2 to 60 characters.",
    }
    assert props["code"]["description"] == "A code. At most 8 characters."
    assert props["pin"]["description"] == "A pin. Exactly 4 characters."
    # a default makes the value nullable and is stated as what null means
    assert props["urgency"] == {
        "type": ["string", "null"],
        "description": "How soon. Null means standard.",
        "enum": ["standard", "urgent", None],
    }
    assert props["max_results"] == {
        "type": ["integer", "null"],
        "description": "Most orders. Null means 10.",
        "minimum": 1,
        "maximum": 50,
    }
    assert props["express"] == {
        "type": ["boolean", "null"],
        "description": "Express only. Null means false.",
    }
    assert props["since"] == {
        "type": ["string", "null"],
        "description": "Only orders since this day. Date as YYYY-MM-DD.",
        "format": "date",
    }
    assert props["at"] == {
        "type": "string",
        "description": "The moment. Date and time with a UTC offset, as "
        "2026-10-09T14:30:00+02:00.",
        "format": "date-time",
    }
    # nullable containers are an anyOf, with the description outside it, read once
    assert props["filter"] == {
        "anyOf": [
            {
                "type": "object",
                "properties": {
                    "status": {"type": "string", "description": "The status."}
                },
                "required": ["status"],
                "additionalProperties": False,
            },
            {"type": "null"},
        ],
        "description": "More filters.",
    }
    assert props["skus"] == {
        "anyOf": [
            {
                "type": "array",
                "items": {"type": "string", "description": "At most 12 characters."},
                "maxItems": 3,
            },
            {"type": "null"},
        ],
        "description": "Products.",
    }
    text = repr(schema_tool.parameters)
    assert "'title'" not in text and "'default'" not in text


def test_the_validation_schema_carries_every_constraint_and_no_prose(
    schema_tool: Tool,
) -> None:
    full = toolschema.parameters_schema(schema_tool.params, full=True)
    props = properties(full)
    assert "description" not in repr(full)
    assert props["name"] == {"type": "string", "minLength": 2, "maxLength": 60}
    assert props["pin"] == {"type": "string", "minLength": 4, "maxLength": 4}
    assert props["skus"]["anyOf"][0]["items"] == {"type": "string", "maxLength": 12}
    assert props["urgency"]["enum"] == ["standard", "urgent", None]


def test_defaults_and_optional(schema_tool: Tool) -> None:
    urgency, since, sku = (param(schema_tool, n) for n in ("urgency", "since", "sku"))
    assert (urgency.optional, urgency.has_default, urgency.default) == (
        True,
        True,
        "standard",
    )
    assert (since.optional, since.has_default) == (True, False)
    assert (sku.optional, sku.has_default, sku.has_example) == (False, False, True)


def test_a_null_default_means_optional_without_a_default(tmp_path: Path) -> None:
    tool = clean_tool(
        tmp_path,
        tool_text(
            "  note:\n    type: string\n    default: null\n    description: A note.\n"
        )
        + "examples:\n  - args: {note: null}\n",
    )
    note = param(tool, "note")
    assert (note.optional, note.has_default) == (True, False)
    assert tool.parameters["properties"] == {
        "note": {"type": ["string", "null"], "description": "A note."}
    }


# --- semantic checks ---------------------------------------------------------------------------


def test_a_parameter_that_is_also_a_context_field_is_reported(tmp_path: Path) -> None:
    result = build(
        tmp_path,
        tool_text(
            "  customer_id:\n    type: integer\n    description: The customer.\n",
            head="context: [customer_id]\n",
        )
        + "examples:\n  - args: {customer_id: 7}\n",
    )
    assert where(result.diagnostics) == [
        ("TG115", "cat/tools/search_orders.yaml", 6, 3)
    ]
    assert result.diagnostics[0].message == (
        "parameter 'customer_id' is also a context field of this tool: the model could "
        "send what only the run context may set"
    )


def test_a_misnamed_context_field_is_reported_once(tmp_path: Path) -> None:
    catalogue = (
        CATALOGUE + "  session-id:\n    type: string\n    description: The chat.\n"
    )
    result = build(
        tmp_path,
        tool_text(
            "  n:\n    type: integer\n    description: N.\n",
            head="context: [session-id, run_id]\n",
        )
        + "examples:\n  - args: {n: 1}\n",
        catalogue=catalogue,
    )
    assert [d.code for d in result.diagnostics] == ["TG116"]
    assert [f.name for f in only_tool(result).context] == ["run_id"]


def test_a_bad_catalogue_name_is_not_blamed_again_in_the_default_paths(
    tmp_path: Path,
) -> None:
    result = build(
        tmp_path,
        "name: read_stock\nintent: Read.\neffect: read\nexamples:\n  - args: {}\n",
        catalogue=CATALOGUE.replace("name: shop", "name: my-shop"),
    )
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("TG140", "catalogue name 'my-shop' is not a Python identifier")
    ]


def test_constraints_that_do_not_apply_are_reported_once(tmp_path: Path) -> None:
    result = build(
        tmp_path,
        tool_text(
            "  word:\n    type: string\n    min: 5\n    max: 1\n    description: W.\n"
            "  flag:\n    type: boolean\n    enum: [true, 3]\n    description: F.\n"
        )
        + "examples:\n  - args: {word: a, flag: true}\n",
    )
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("TG120", "'max' does not apply to a string parameter"),
        ("TG120", "'min' does not apply to a string parameter"),
        ("TG120", "'enum' does not apply to a boolean parameter"),
    ]
    assert result.diagnostics[0].hint == (
        "'max' applies to integer and number parameters; remove it or change the type."
    )


def test_enum_values_are_shown_as_written_in_yaml(tmp_path: Path) -> None:
    result = build(
        tmp_path,
        tool_text(
            "  n:\n    type: integer\n    enum: [1, null, true]\n    description: N.\n"
        )
        + "examples:\n  - args: {n: 1}\n",
    )
    assert [d.message for d in result.diagnostics] == [
        "enum value null is not an integer",
        "enum value true is not an integer",
    ]


def test_a_bad_pattern_is_quoted_as_written(tmp_path: Path) -> None:
    result = build(
        tmp_path,
        tool_text(
            "  s:\n    type: string\n    pattern: '^\\d+($'\n    description: S.\n"
        )
        + "examples:\n  - args: {s: '1'}\n",
    )
    assert [d.message for d in result.diagnostics] == [
        "pattern '^\\d+($' is not a valid regular expression: Unbalanced parenthesis (a "
        "pattern is ECMA-262, as in JSON Schema)"
    ]


def test_a_class_python_will_read_anew_is_reported_not_warned(tmp_path: Path) -> None:
    # before, Python's FutureWarning reached the terminal with a line of toolgen's code, and
    # the generated module would warn on every import
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = build(
            tmp_path,
            tool_text(
                "  s:\n    type: string\n    pattern: '^[[A-Z]+$'\n    description: S.\n"
            )
            + "examples:\n  - args: {s: A}\n",
        )
    assert [d.message for d in result.diagnostics] == [
        "pattern '^[[A-Z]+$' is not a valid regular expression: possible nested set ([[, "
        "--, &&, || or ~~ in a class), which a later Python reads anew"
    ]


def test_generated_class_names_must_not_shadow_the_module_names(tmp_path: Path) -> None:
    result = build(
        tmp_path,
        "name: base\nintent: Read a base.\neffect: read\nparams:\n"
        "  model:\n    type: object\n    description: M.\n    properties:\n"
        "      sku: {type: string, description: S.}\n"
        "examples:\n  - args: {model: {sku: S}}\n",
    )
    assert where(result.diagnostics) == [("TG117", "cat/tools/base.yaml", 5, 3)]
    assert "BaseModel, which is already a name the generated module imports" in (
        result.diagnostics[0].message
    )


def test_a_tool_named_like_its_catalogue_clashes_only_when_it_has_context(
    tmp_path: Path,
) -> None:
    text = "name: shop\nintent: Read the shop.\neffect: read\nexamples:\n  - args: {}\n"
    assert build(tmp_path / "a", text).diagnostics == ()
    clash = build(
        tmp_path / "b", text.replace("effect: read", "effect: read\ncontext: [run_id]")
    )
    assert [
        (d.code, d.span.line, d.span.col, d.message) for d in clash.diagnostics
    ] == [
        (
            "TG117",
            1,
            7,
            "the tool would generate the class ShopContext, which is already the "
            "catalogue's context class",
        )
    ]


def test_the_module_names_model_reserves_are_those_render_imports(
    tmp_path: Path,
) -> None:
    """Every class-like name a generated tool module imports is one the model stage reserves."""
    result = build(
        tmp_path,
        tool_text(
            NESTED_PARAMS + "  at:\n    type: datetime\n    default: null\n"
            "    description: When.\n  n:\n    type: integer\n    default: 1\n"
            "    description: N.\n",
            head="context: [run_id]\n",
            returns=NESTED_RETURNS,
        )
        + "errors:\n  no_orders:\n    how_to_fix: Ask again.\n"
        + "examples:\n  - args:\n      filter: {range: {first_day: '2026-10-09'}, tags: []}\n"
        + "      lines: [{sku: S}]\n      matrix: [[{cell: 1}]]\n      at: null\n"
        + "      n: null\n",
    )
    assert result.diagnostics == () and result.catalogue is not None
    tree = ast.parse(render_tool_module(result.catalogue, only_tool(result)))
    names = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    names |= {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }
    class_like = {n for n in names if n[:1].isupper() and not n.isupper()}
    assert class_like - {result.catalogue.context_class} <= MODULE_NAMES


def test_the_example_of_the_innermost_items_is_shown_at_the_array(
    tmp_path: Path,
) -> None:
    """A rejected value is looked up without list indexes (`grid.0.1` -> `grid`), so the
    example of an array of arrays of values is its innermost items'; it was left out."""
    from toolgen.render.modules import examples_of

    tool = clean_tool(
        tmp_path,
        tool_text(
            "  grid:\n    type: array\n    description: G.\n    items:\n"
            "      type: array\n      description: R.\n      items:\n"
            "        type: string\n        pattern: '^[A-H][1-8]$'\n"
            "        example: B2\n        description: C.\n"
        )
        + "examples:\n  - args: {grid: [[B2]]}\n",
    )
    assert examples_of(tool) == {"grid": "B2"}
