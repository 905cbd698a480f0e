"""One fixture pair per diff rule: a hand-made snapshot and an edit of it, with the exact
changes `compare` must report (rule, level, tool, file and the path of keys in the contract
file). Safety regressions have a case each, and some rules more than one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from toolgen.review import diff
from toolgen.review.registry import all_diff_rules

from .snapshots import base, copied, param, returned, tool

Snapshot = dict[str, Any]
Expected = tuple[str, str, str, str, tuple[str | int, ...]]
SEARCH = "spec/shop/tools/search_orders.yaml"
SEND = "spec/shop/tools/send_order.yaml"
READ = "spec/shop/tools/read_document.yaml"


@dataclass(frozen=True)
class Case:
    id: str
    edit: Callable[[Snapshot], None]  # applied to a copy of the base: the new version
    expected: list[Expected]
    before: Callable[[Snapshot], None] | None = None  # applied to both versions first
    old_only: Callable[[Snapshot], None] | None = (
        None  # applied to the old version only
    )
    committed: dict[str, Any] | None = field(default=None)


def _set(
    path: Callable[[Snapshot], dict[str, Any]], **values: Any
) -> Callable[[Snapshot], None]:
    def edit(shot: Snapshot) -> None:
        path(shot).update(values)

    return edit


def _drop(
    path: Callable[[Snapshot], dict[str, Any]], key: str
) -> Callable[[Snapshot], None]:
    def edit(shot: Snapshot) -> None:
        del path(shot)[key]

    return edit


def _props(name: str) -> Callable[[Snapshot], dict[str, Any]]:
    return lambda s: tool(s, name)["model"]["parameters"]["properties"]


def _rets(name: str) -> Callable[[Snapshot], dict[str, Any]]:
    return lambda s: tool(s, name)["returns"]["properties"]


def _t(name: str) -> Callable[[Snapshot], dict[str, Any]]:
    return lambda s: tool(s, name)


def _rename_tool(shot: Snapshot) -> None:
    t = tool(shot, "send_order")
    t.update(name="dispatch_order", file="spec/shop/tools/dispatch_order.yaml")
    t["model"]["name"] = "dispatch_order"


def _rename_tool_and_its_hint(shot: Snapshot) -> None:
    _rename_tool(shot)
    error = tool(shot, "dispatch_order")["errors"]["out_of_stock"]
    error["how_to_fix"] = "Call dispatch_order again with fewer pieces."


def _add_tool(shot: Snapshot) -> None:
    new = copied(tool(shot, "send_order"))
    new.update(name="cancel_order", file="spec/shop/tools/cancel_order.yaml")
    new["model"]["name"] = "cancel_order"
    new["errors"] = {}  # not a twin of send_order: no rename
    shot["tools"].append(new)


def _rename_param(shot: Snapshot) -> None:
    props = _props("search_orders")(shot)
    props["product"] = props.pop("sku")


def _move_context(shot: Snapshot) -> None:
    t = tool(shot, "search_orders")
    t["context"] = []
    t["model"]["parameters"]["properties"]["customer_id"] = {
        "type": "integer",
        "description": "The customer.",
    }


def _seq(*edits: Callable[[Snapshot], None]) -> Callable[[Snapshot], None]:
    def edit(shot: Snapshot) -> None:
        for one in edits:
            one(shot)

    return edit


def _describe(name: str, **keys: Any) -> Callable[[Snapshot], None]:
    """A description changed by some of the keys it is composed from."""

    def edit(shot: Snapshot) -> None:
        t = tool(shot, name)
        t["description_keys"].update(keys)
        t["model"]["description"] = " ".join(map(str, t["description_keys"].values()))

    return edit


def _guard(name: str, path: str) -> Callable[[Snapshot], dict[str, Any]]:
    return lambda s: tool(s, name)["guards"][path]


B, D, S = "breaking", "dangerous", "safe"
CASES = [
    # tools
    Case("TD101", lambda s: s["tools"].remove(tool(s, "read_document")),
         [("TD101", B, "read_document", "spec/shop/catalogue.yaml", ("name",))]),
    Case("TD102", _rename_tool,
         [("TD102", B, "dispatch_order", "spec/shop/tools/dispatch_order.yaml", ("name",))]),
    # the hint that names the tool follows the rename: still one rename, and the new hint
    Case("TD102-hint", _rename_tool_and_its_hint,
         [("TD102", B, "dispatch_order", "spec/shop/tools/dispatch_order.yaml", ("name",)),
          ("TD404", S, "dispatch_order", "spec/shop/tools/dispatch_order.yaml",
           ("errors", "out_of_stock", "how_to_fix"))]),
    Case("TD103", _add_tool,
         [("TD103", S, "cancel_order", "spec/shop/tools/cancel_order.yaml", ("name",))]),
    Case("TD104", _describe("search_orders", intent="Other."),
         [("TD104", S, "search_orders", SEARCH, ("intent",))]),
    Case("TD104-use-when-added", _describe("search_orders", use_when="The user asks."),
         [("TD104", S, "search_orders", SEARCH, ("use_when",))]),
    Case("TD104-effect", _describe("search_orders", effect="write"),
         [("TD104", S, "search_orders", SEARCH, ("effect",))]),
    Case("TD104-only-text", lambda s: tool(s, "search_orders")["model"].update(
             description="Other."),
         [("TD104", S, "search_orders", SEARCH, ("name",))]),
    Case("TD105", lambda s: None, [("TD105", D, "search_orders", SEARCH, ("name",))],
         committed={"tools": {"search_orders": {"digest": "made-by-an-older-toolgen",
                                                "source": "source-search_orders"}}}),
    Case("TD106", _set(_t("search_orders"), tokens=120),
         [("TD106", S, "search_orders", SEARCH, ("name",))]),
    # parameters
    Case("TD201", _drop(_props("search_orders"), "sku"),
         [("TD201", B, "search_orders", SEARCH, ("params",))]),
    Case("TD202", _rename_param,
         [("TD202", B, "search_orders", SEARCH, ("params", "product"))]),
    Case("TD203", _set(_props("search_orders"), warehouse={"type": "string"}),
         [("TD203", B, "search_orders", SEARCH, ("params", "warehouse"))]),
    Case("TD204", _set(_props("search_orders"), note={"type": ["string", "null"]}),
         [("TD204", D, "search_orders", SEARCH, ("params", "note"))]),
    Case("TD205", _set(lambda s: param(s, "search_orders", "status"),
                       type="string", enum=["open", "shipped"]),
         [("TD205", B, "search_orders", SEARCH, ("params", "status", "optional"))]),
    Case("TD206", _set(lambda s: param(s, "search_orders", "max_results"), type="number"),
         [("TD206", B, "search_orders", SEARCH, ("params", "max_results", "type"))]),
    Case("TD206-format", _set(lambda s: param(s, "search_orders", "since"),
                              format="date-time"),
         [("TD206", B, "search_orders", SEARCH, ("params", "since", "type"))]),
    Case("TD207", _set(lambda s: param(s, "search_orders", "filter", "tags", "items"),
                       enum=["gift"]),
         [("TD207", B, "search_orders", SEARCH,
           ("params", "filter", "properties", "tags", "items", "enum"))]),
    Case("TD208", _set(lambda s: param(s, "search_orders", "max_results"), maximum=20),
         [("TD208", B, "search_orders", SEARCH, ("params", "max_results", "max"))]),
    Case("TD208-pattern", _set(lambda s: param(s, "search_orders", "sku"),
                               pattern="^SKU-\\d{2}$"),
         [("TD208", B, "search_orders", SEARCH, ("params", "sku", "pattern"))]),
    Case("TD208-items", _set(lambda s: param(s, "search_orders", "filter", "tags"),
                             maxItems=2),
         [("TD208", B, "search_orders", SEARCH,
           ("params", "filter", "properties", "tags", "max_items"))]),
    Case("TD209", _set(lambda s: param(s, "search_orders", "status"),
                       enum=["open", "shipped", "cancelled", None]),
         [("TD209", S, "search_orders", SEARCH, ("params", "status", "enum"))]),
    Case("TD210", _set(lambda s: param(s, "search_orders", "filter", "city"),
                       description="The city the order goes to."),
         [("TD210", S, "search_orders", SEARCH,
           ("params", "filter", "properties", "city", "description"))]),
    # return fields
    Case("TD301", _drop(_rets("search_orders"), "total_eur"),
         [("TD301", B, "search_orders", SEARCH, ("returns",))]),
    Case("TD302", _set(lambda s: returned(s, "search_orders", "total_eur"), type="string"),
         [("TD302", B, "search_orders", SEARCH, ("returns", "total_eur", "type"))]),
    Case("TD303", _set(lambda s: returned(s, "search_orders", "total_eur"),
                       type=["number", "null"]),
         [("TD303", B, "search_orders", SEARCH, ("returns", "total_eur", "optional"))]),
    Case("TD304", _set(lambda s: returned(s, "search_orders", "orders", "items", "status"),
                       enum=["open", "shipped", "cancelled"]),
         [("TD304", D, "search_orders", SEARCH,
           ("returns", "orders", "items", "properties", "status", "enum"))]),
    Case("TD305", _set(_rets("search_orders"), count={"type": "integer"}),
         [("TD305", S, "search_orders", SEARCH, ("returns", "count"))]),
    Case("TD306", _set(lambda s: returned(s, "search_orders", "note"), type="string"),
         [("TD306", S, "search_orders", SEARCH, ("returns", "note", "optional"))]),
    Case("TD307", _set(lambda s: returned(s, "search_orders", "total_eur"),
                       description="In euro."),
         [("TD307", S, "search_orders", SEARCH, ("returns", "total_eur", "description"))]),
    # error codes
    Case("TD401", lambda s: tool(s, "search_orders")["errors"].pop("busy"),
         [("TD401", B, "search_orders", SEARCH, ("errors",))]),
    Case("TD402", lambda s: tool(s, "search_orders")["errors"].update(
        late={"how_to_fix": "Wait.", "retryable": True}),
         [("TD402", S, "search_orders", SEARCH, ("errors", "late"))]),
    Case("TD403", _set(lambda s: tool(s, "search_orders")["errors"]["busy"], retryable=False),
         [("TD403", D, "search_orders", SEARCH, ("errors", "busy", "retryable"))]),
    Case("TD404", _set(lambda s: tool(s, "search_orders")["errors"]["busy"],
                       how_to_fix="Wait a minute, then call again."),
         [("TD404", S, "search_orders", SEARCH, ("errors", "busy", "how_to_fix"))]),
    # safety
    Case("TD501", _set(_t("send_order"), confirmation="none"),
         [("TD501", B, "send_order", SEND, ("confirmation",))]),
    Case("TD501-approval-to-token", _set(_t("send_order"), confirmation="token"),
         [("TD501", B, "send_order", SEND, ("confirmation",))]),
    Case("TD501-token-to-none", _set(_t("send_order"), confirmation="none"),
         [("TD501", B, "send_order", SEND, ("confirmation",))],
         before=_set(_t("send_order"), confirmation="token")),
    Case("TD501-token-lives-longer",
         _set(_t("send_order"), confirmation={"kind": "token", "ttl_s": 3600}),
         [("TD501", B, "send_order", SEND, ("confirmation",))],
         before=_set(_t("send_order"), confirmation={"kind": "token", "ttl_s": 300})),
    Case("TD502", _set(_t("read_document"), confirmation="token"),
         [("TD502", S, "read_document", READ, ("confirmation",))]),
    Case("TD503", _set(_t("search_orders"), effect="write"),
         [("TD503", B, "search_orders", SEARCH, ("effect",))]),
    Case("TD503-write-to-destructive", _set(_t("send_order"), effect="destructive"),
         [("TD503", B, "send_order", SEND, ("effect",))]),
    Case("TD504", _set(_t("send_order"), effect="read"),
         [("TD504", D, "send_order", SEND, ("effect",))]),
    Case("TD505", _set(_t("search_orders"), open_world=True),
         [("TD505", D, "search_orders", SEARCH, ("open_world",))]),
    Case("TD506", lambda s: tool(s, "send_order")["idempotency"].update(context=[]),
         [("TD506", B, "send_order", SEND, ("idempotency", "context"))]),
    Case("TD506-arguments",
         lambda s: tool(s, "send_order")["idempotency"].update(arguments=[]),
         [("TD506", B, "send_order", SEND, ("idempotency", "key"))]),
    Case("TD506-removed", _set(_t("send_order"), idempotency={"kind": "none"}),
         [("TD506", B, "send_order", SEND, ("idempotency",))]),
    Case("TD506-natural-to-key", lambda s: None,
         [("TD506", B, "send_order", SEND, ("idempotency",))],
         old_only=_set(_t("send_order"), idempotency={"kind": "natural"})),
    Case("TD507", _set(_t("search_orders"), idempotency={"kind": "natural"}),
         [("TD507", S, "search_orders", SEARCH, ("idempotency",))]),
    Case("TD508", lambda s: tool(s, "send_order")["idempotency"].update(retention_s=3600),
         [("TD508", D, "send_order", SEND, ("idempotency", "retention"))]),
    Case("TD509", _move_context,
         [("TD509", B, "search_orders", SEARCH, ("params", "customer_id")),
          ("TD203", B, "search_orders", SEARCH, ("params", "customer_id"))]),
    Case("TD510", _set(_t("send_order"), context=["run_id"]),
         [("TD510", S, "send_order", SEND, ("context",))]),
    # boundaries
    Case("TD511", _set(_guard("send_order", "callback"),
                       hosts=["hooks.example.com", "example.org"]),
         [("TD511", B, "send_order", SEND, ("params", "callback"))]),
    Case("TD511-guard-removed", lambda s: tool(s, "send_order")["guards"].clear(),
         [("TD511", B, "send_order", SEND, ("params", "callback"))]),
    Case("TD511-http", _set(_guard("send_order", "callback"), schemes=["https", "http"]),
         [("TD511", B, "send_order", SEND, ("params", "callback"))]),
    Case("TD511-root", _set(_guard("read_document", "name"), root="home"),
         [("TD511", B, "read_document", READ, ("params", "name"))]),
    Case("TD511-any-suffix", _set(_guard("read_document", "name"), suffixes=[]),
         [("TD511", B, "read_document", READ, ("params", "name"))]),
    Case("TD512", _set(_guard("send_order", "callback"), hosts=[]),
         [("TD512", D, "send_order", SEND, ("params", "callback"))]),
    Case("TD512-guard-added", lambda s: tool(s, "search_orders")["guards"].update(
        **{"filter.city": {"kind": "url", "hosts": ["maps.example.com"]}}),
         [("TD512", D, "search_orders", SEARCH, ("params", "filter", "properties", "city"))]),
    Case("TD601", _drop(_t("read_document"), "pagination"),
         [("TD601", B, "read_document", READ, ("pagination",))]),
    Case("TD602-forever", lambda s: tool(s, "read_document")["pagination"].update(
        ttl_seconds=None),
         [("TD602", B, "read_document", READ, ("pagination", "ttl_seconds"))]),
    Case("TD603", lambda s: tool(s, "read_document")["pagination"].update(max_page_size=50),
         [("TD603", D, "read_document", READ, ("pagination", "max_page_size"))]),
    Case("TD604", lambda s: tool(s, "read_document")["pagination"].update(max_page_size=5),
         [("TD604", S, "read_document", READ, ("pagination", "max_page_size"))]),
    Case("TD701", lambda s: tool(s, "read_document")["output"].update(sensitive=[]),
         [("TD701", B, "read_document", READ, ("returns", "owner_email"))]),
    Case("TD702", lambda s: tool(s, "read_document")["output"].update(
        max_chars={"text": 8000}),
         [("TD702", D, "read_document", READ, ("returns", "text"))]),
    Case("TD702-no-limit", lambda s: tool(s, "read_document")["output"].update(
        max_chars={}),
         [("TD702", D, "read_document", READ, ("returns", "text"))]),
    Case("TD703", lambda s: tool(s, "read_document")["output"].update(
        sensitive=["owner_email", "text"]),
         [("TD703", S, "read_document", READ, ("returns", "text"))]),
]  # fmt: skip


def _support(*tools: str) -> Callable[[Snapshot], None]:
    """Toolset `support` declared with `tools` (and `all`, implicit, of every tool)."""

    def edit(shot: Snapshot) -> None:
        every = [t["name"] for t in shot["tools"]]
        shot["toolsets"] = {
            "all": {"members": [], "tools": every},
            "support": {"members": list(tools), "tools": list(tools)},
        }

    return edit


def _in_namespace(name: str | None) -> Callable[[Snapshot], None]:
    return _set(_t("search_orders"), namespace=name)


# where a tool is grouped (toolset_rules)
CASES += [
    Case("TD107", _support("send_order"),
         [("TD107", B, "search_orders", SEARCH, ("name",))],
         before=_support("search_orders", "send_order")),
    Case("TD107-implicit-all", _support("send_order"), []),  # all is no agent's toolset
    Case("TD108", _in_namespace("returns"),
         [("TD108", B, "search_orders", SEARCH, ("namespace",))],
         before=_in_namespace("orders")),
    Case("TD108-out", _in_namespace(None),
         [("TD108", B, "search_orders", SEARCH, ("namespace",))],
         before=_in_namespace("orders")),
    Case("TD108-into", _in_namespace("orders"), []),  # into one from none: nothing lost
    Case("TD109", _set(_t("search_orders"), deferred=True),
         [("TD109", B, "search_orders", SEARCH, ("deferred",))]),
    Case("TD109-up-front", _set(_t("search_orders"), deferred=False), [],
         before=_set(_t("search_orders"), deferred=True)),
]  # fmt: skip


def _run(case: Case) -> list[Expected]:
    old, new = base(), base()
    if case.before is not None:
        case.before(old)
        case.before(new)
    if case.old_only is not None:
        case.old_only(old)
    case.edit(new)
    found = diff.compare(old, new, case.committed)
    return [(c.rule.id, c.level.value, c.tool, c.file, c.where) for c in found.changes]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_each_rule_reports_exactly_its_change(case: Case) -> None:
    assert _run(case) == case.expected


def test_every_rule_has_a_case_named_after_it() -> None:
    covered = {c.id.split("-")[0] for c in CASES}
    assert covered == {r.id for r in all_diff_rules()}


def test_the_level_in_each_case_is_the_rule_s_level() -> None:
    levels = {r.id: r.level.value for r in all_diff_rules()}
    for case in CASES:
        for rule_id, level, *_ in case.expected:
            assert levels[rule_id] == level, case.id


def test_the_same_snapshot_has_no_change() -> None:
    assert diff.compare(base(), base()).changes == ()


def test_a_guard_inside_an_array_of_objects_points_at_its_field() -> None:
    """The snapshot keys it `stops.site`; the finding points at the field in the spec,
    inside the array's items, even for a property named `items`."""
    old, new = base(), base()
    stops = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"site": {"type": "string"}, "items": {"type": "string"}},
        },
    }
    for shot in (old, new):
        tool(shot, "search_orders")["model"]["parameters"]["properties"]["stops"] = (
            stops
        )
    url = {"kind": "url", "hosts": ["maps.example.com"]}
    tool(new, "search_orders")["guards"].update({"stops.site": url, "stops.items": url})
    changes = diff.compare(old, new).changes
    inside = ("params", "stops", "items", "properties")
    assert [(c.rule.id, c.where) for c in changes] == [
        ("TD512", (*inside, "items")),
        ("TD512", (*inside, "site")),
    ]


def test_a_removed_object_parameter_is_one_change_not_one_per_property() -> None:
    new = base()
    del tool(new, "search_orders")["model"]["parameters"]["properties"]["filter"]
    changes = diff.compare(base(), new).changes
    assert [(c.rule.id, c.message) for c in changes] == [
        ("TD201", "parameter 'filter' of 'search_orders' was removed")
    ]


def test_a_renamed_object_keeps_its_properties_and_reports_one_rename() -> None:
    new = base()
    props = tool(new, "search_orders")["model"]["parameters"]["properties"]
    props["filters"] = props.pop("filter")
    changes = diff.compare(base(), new).changes
    assert [(c.rule.id, c.where) for c in changes] == [("TD202", ("params", "filters"))]


def test_two_removed_parameters_alike_are_not_guessed_as_renames() -> None:
    old, new = base(), base()
    props = tool(old, "send_order")["model"]["parameters"]["properties"]
    props["second_ref"] = dict(props["order_ref"])
    new_props = tool(new, "send_order")["model"]["parameters"]["properties"]
    new_props["ref"] = new_props.pop("order_ref")
    rules = [c.rule.id for c in diff.compare(old, new).changes]
    assert sorted(rules) == ["TD201", "TD201", "TD203"]


def test_a_new_catalogue_has_every_tool_added() -> None:
    empty = {"catalogue": "shop", "tools": [], "tokens": 0}
    found = diff.compare(empty, base())
    assert [c.rule.id for c in found.changes] == ["TD103"] * 3
    assert [c.name for c in found.costs] == [
        "read_document",
        "search_orders",
        "send_order",
    ]


def test_token_costs_are_compared_per_tool() -> None:
    new = base()
    tool(new, "send_order")["tokens"] = 90
    new["tokens"] = 290
    found = diff.compare(base(), new)
    assert [(c.name, c.old, c.new, c.delta) for c in found.costs] == [
        ("send_order", 100, 90, -10)
    ]
    assert (found.old_total, found.new_total, found.budget) == (300, 290, 2500)


def test_an_accepted_breaking_change_no_longer_fails_and_a_stale_entry_is_returned() -> (
    None
):
    new = base()
    param(new, "search_orders", "max_results")["maximum"] = 20
    found = diff.compare(base(), new)
    assert len(found.breaking) == 1
    entries, problems = diff.parse_acceptances(
        {"accept": [
            {"rule": "constraint-tightened", "tool": "search_orders",
             "field": "max_results", "reason": "Agreed with support."},
            {"rule": "TD101", "tool": "search_orders", "reason": "Typo in the tool."},
        ]}
    )  # fmt: skip
    assert problems == []
    marked, stale = diff.accept(found, entries)
    assert marked.breaking == ()
    assert [c.accepted for c in marked.changes] == ["Agreed with support."]
    assert [e.rule for e in stale] == ["TD101"]


def test_an_acceptance_for_another_field_does_not_match() -> None:
    new = base()
    param(new, "search_orders", "max_results")["maximum"] = 20
    entries, _ = diff.parse_acceptances(
        [{"rule": "TD208", "tool": "search_orders", "field": "max", "reason": "No."}]
    )
    marked, stale = diff.accept(diff.compare(base(), new), entries)
    assert len(marked.breaking) == 1 and len(stale) == 1


def test_acceptance_entries_without_a_reason_are_refused() -> None:
    _, problems = diff.parse_acceptances({"accept": [{"rule": "TD208", "tool": "x"}]})
    assert problems == ["entry 1: missing reason"]


def test_an_acceptance_of_a_rule_that_does_not_exist_is_refused() -> None:
    # it matched nothing, and was told to be removed "once its change has landed"
    entries = [{"rule": r, "tool": "x", "reason": "y"} for r in ("XX1", "TD2O8")]
    _, problems = diff.parse_acceptances({"accept": entries})
    assert problems == [
        "entry 1: 'XX1' is no diff rule. toolgen diff --rules lists them.",
        "entry 2: 'TD2O8' is no diff rule. Did you mean 'TD208'?",
    ]
    found, problems = diff.parse_acceptances(
        {"accept": [{"rule": "enum-value-removed", "tool": "x", "reason": "y"}]}
    )
    assert problems == [] and found[0].rule == "enum-value-removed"


def test_an_acceptance_with_a_key_it_does_not_know_is_refused() -> None:
    # `feild: quantity` was left out, and the entry accepted every TD208 of the tool
    base_entry = {"rule": "TD208", "tool": "create_reorder", "reason": "Agreed."}
    entries = [
        {**base_entry, "feild": "quantity"},
        {**base_entry, "field": 5},
        {**base_entry, "rule": ["TD208"]},
    ]
    _, problems = diff.parse_acceptances({"accept": entries})
    assert problems == [
        "entry 1: 'feild' is no key. Did you mean 'field'?",
        "entry 2: field is 5, not text",
        "entry 3: rule is ['TD208'], not text",
    ]


def _optional(schema: dict[str, Any]) -> dict[str, Any]:
    """An optional object or array as the strict schema spells it (toolschema.param_schema):
    the value and null as two branches, the description beside them."""
    inner = {k: v for k, v in schema.items() if k != "description"}
    return {"anyOf": [inner, {"type": "null"}], "description": schema["description"]}


def _with_optional_filter(shot: Snapshot) -> None:
    props = _props("search_orders")(shot)
    props["filter"] = _optional(props["filter"])


def test_an_optional_object_added_is_optional() -> None:
    new = base()
    filters = _props("search_orders")(new)["filter"]
    _props("search_orders")(new)["extra"] = _optional(copied(filters))
    found = [(c.rule.id, c.where) for c in diff.compare(base(), new).changes]
    assert found == [("TD204", ("params", "extra"))]


def test_a_change_inside_an_optional_object_is_reported_on_its_field() -> None:
    old, new = base(), base()
    _with_optional_filter(old)
    _with_optional_filter(new)
    inner = _props("search_orders")(new)["filter"]["anyOf"][0]
    inner["properties"]["tags"]["maxItems"] = 2
    found = [(c.rule.id, c.where) for c in diff.compare(old, new).changes]
    assert found == [("TD208", ("params", "filter", "properties", "tags", "max_items"))]


def test_an_optional_object_made_required_is_reported() -> None:
    old = base()
    _with_optional_filter(old)
    found = [(c.rule.id, c.where) for c in diff.compare(old, base()).changes]
    assert found == [("TD205", ("params", "filter", "optional"))]


def test_a_changed_description_names_every_key_that_changed_it() -> None:
    old, new = base(), base()
    _describe("search_orders", effect="write")(old)
    _describe("search_orders", intent="Other.", effect="destructive", use_when="Now.")(
        new
    )
    (change,) = diff.compare(old, new).changes
    assert change.where == ("intent",)
    assert change.message.endswith(
        "intent changed; use_when changed; effect is destructive, was write"
    )


def test_a_description_key_removed_is_placed_on_one_that_is_written() -> None:
    old, new = base(), base()
    _describe("search_orders", use_when="Now.")(old)
    _describe("search_orders", use_when="", effect="write")(new)
    (change,) = diff.compare(old, new).changes
    assert change.where == ("effect",)
    assert change.message.endswith("use_when changed; effect is write, was read")


def test_the_hand_made_snapshot_has_the_shape_of_a_real_one() -> None:
    """The fixtures' snapshot is written by hand: a key the real one spells otherwise (the
    idempotency key's "args", where it is "arguments") makes the rules reading it pass here
    and never fire on a catalogue."""
    from pathlib import Path

    from toolgen.build import pipeline
    from toolgen.spec import snapshot

    root = Path(__file__).resolve().parents[2]
    result = pipeline.check_catalogue(
        root / "spec/inventory", root, implementations=False
    )
    assert result.catalogue is not None
    real = {
        t["name"]: t for t in snapshot.catalogue_snapshot(result.catalogue)["tools"]
    }
    made = tool(base(), "send_order")
    assert set(made) <= set(real["send_order"])  # a key left out reads as not declared
    assert set(made["idempotency"]) == set(real["send_order"]["idempotency"])


def test_a_shorter_retention_is_said_in_the_spec_s_units() -> None:
    new = base()
    tool(new, "send_order")["idempotency"].update(retention_s=3600)
    [change] = diff.compare(base(), new).changes
    assert change.message == "'send_order' remembers idempotency keys for 1h, was 1d"
