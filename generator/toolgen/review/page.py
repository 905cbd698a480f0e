"""The review page and the Markdown reference of a catalogue, from its snapshot.

`page_model` gathers what a reviewer reads into plain data: each tool exactly as the model
sees it (name, description, schema), its effect, idempotency, confirmation and guards as
badges, its parameters, error codes and examples, its token cost against the budget, its lint
findings, the changes since `--against` when given, and the two-tool picture (a similarity
matrix with the `not_when` edges). The templates under templates/review/ lay it out: one HTML
file with its styles inline and nothing to fetch (no script, font or image from anywhere),
readable on a phone and in dark mode; and one Markdown file.

Geometry (cell positions, bar widths) is computed here, so the templates stay layout.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from toolgen import __version__
from toolgen.diagnostics import Diagnostic
from toolgen.lint.registry import REGISTRY, all_rules
from toolgen.report import docs_url
from toolgen.review import elements
from toolgen.review.diff import Change, Comparison
from toolgen.review.diff_report import DOCS_URL as DIFF_DOCS_URL
from toolgen.review.groups import tool_groups
from toolgen.review.safety_rules import confirmation_of, idempotency_of
from toolgen.review.silenced import Silenced
from toolgen.text import counted, json_document, json_text

_EFFECT_TONE = {"read": "ok", "write": "warn", "destructive": "bad"}
_LEVEL_TONE = {"breaking": "bad", "dangerous": "warn", "safe": "ok"}
_TOKEN_PAIR = "one token contract: the confirm tool needs the prepare tool's token"


def _badges(tool: Mapping[str, Any]) -> list[dict[str, str]]:
    found: list[dict[str, str]] = []

    def badge(what: str, text: str, tone: str = "ok") -> None:
        found.append({"text": text, "tone": tone, "what": what})

    effect = str(tool.get("effect", "read"))
    badge("effect", effect, _EFFECT_TONE.get(effect, "bad"))
    idem = idempotency_of(tool)
    kind = idem.get("kind", "none")
    if kind == "key":
        parts = [
            *idem.get("arguments", []),
            *(f"ctx.{c}" for c in idem.get("context", [])),
        ]
        badge("idempotency", f"idempotent by key ({', '.join(parts)})")
    elif kind == "natural":
        badge("idempotency", "idempotent")
    elif effect != "read":
        badge("idempotency", "not idempotent", "warn")
    confirm, _ = confirmation_of(tool)
    if confirm != "none":
        badge("confirmation", f"confirmation: {confirm}")
    elif effect == "destructive":
        badge("confirmation", "no confirmation", "bad")
    if tool.get("open_world"):
        badge("open_world", "open world", "warn")
    for path, guard in sorted(tool.get("guards", {}).items()):
        if guard.get("kind") == "url":
            detail = ", ".join(guard.get("hosts", [])) or "no host"
        else:
            detail = (
                f"{guard.get('root')}: {' '.join(guard.get('suffixes', [])) or 'any'}"
            )
        badge("guard", f"{path}: {guard.get('kind')} guard ({detail})")
    pagination = tool.get("pagination")
    if isinstance(pagination, Mapping):
        badge("pagination", f"pages of at most {pagination.get('max_page_size')}")
    output = tool.get("output")
    if isinstance(output, Mapping) and output.get("sensitive"):
        badge("output", f"sensitive: {', '.join(output['sensitive'])}")
    if tool.get("context"):
        badge("context", f"context: {', '.join(tool['context'])}", "info")
    return found


def _constraints(node: elements.Node) -> str:
    parts = []
    if node.format:
        parts.append(node.format)
    if node.enum is not None:
        parts.append("one of " + ", ".join(map(json_text, node.enum)))
    if node.pattern:
        parts.append(f"pattern {node.pattern}")
    parts += (f"{key} {json_text(value)}" for key, value in node.bounds.items())
    return "; ".join(parts)


def _fields(schema: Mapping[str, Any] | None, root: str) -> list[dict[str, Any]]:
    return [
        {
            "name": elements.shown(f.where),
            "type": f.node.type,
            "nullable": f.node.nullable,
            "constraints": _constraints(f.node),
            "description": f.node.description,
        }
        for f in elements.fields(schema, root).values()
    ]


def _rule_link(code: str) -> str:
    return f"#rule-{code}" if code in REGISTRY else ""


def _finding(d: Diagnostic) -> dict[str, Any]:
    return {
        "code": d.code,
        "severity": d.severity.value,
        "message": d.message,
        "hint": d.hint,
        "where": str(d.span),
        "link": _rule_link(d.code),
    }


def _matrix(sim: Mapping[str, Any], changed: set[str]) -> dict[str, Any]:
    names: list[str] = list(sim["tools"])
    n = len(names)
    cell = 16 if n <= 30 else max(4, 480 // max(n, 1))
    label = 0 if cell < 9 else 7 * max((len(x) for x in names), default=0) + 8
    cells = []
    for p in sim["pairs"]:
        tone = ""
        if p["verdict"]:
            tone = "warn" if p["separated"] else "bad"
        if p.get("token_pair"):
            tone = "pair"
        title = (
            f"{names[p['a']]} / {names[p['b']]}: {p['score']:.2f} (names {p['name']:.0%}, "
            f"intents {p['intent']:.0%}, parameters {p['params']:.0%})"
            + (f" {p['verdict']}" if p["verdict"] else "")
            + (f", {_TOKEN_PAIR}" if p.get("token_pair") else "")
            + (", told apart" if p["separated"] else "")
        )
        # one triangle: the matrix is symmetric, and half the cells keep a large
        # catalogue's page small
        cells.append(
            {
                "x": label + p["a"] * cell,
                "y": label + p["b"] * cell,
                "opacity": round(0.15 + 0.85 * min(1.0, p["score"]), 3),
                "tone": tone,
                "title": title,
            }
        )
    edges = [
        {
            "cx": label + e["to"] * cell + cell / 2,
            "cy": label + e["from"] * cell + cell / 2,
            "r": max(1.5, cell / 4),
            "title": f"{names[e['from']]} not when: {e['when']} Use {names[e['to']]}.",
        }
        for e in sim["not_when"]
    ]
    confusable = sorted(
        (
            p
            for p in sim["pairs"]
            if (p["verdict"] or p["score"] >= 0.4) and not p.get("token_pair")
        ),
        key=lambda p: (-p["score"], names[p["a"]], names[p["b"]]),
    )
    return {
        "size": label + n * cell,
        "cell": cell,
        "label": label,
        "names": [
            {"name": x, "pos": label + i * cell + cell / 2, "changed": x in changed}
            for i, x in enumerate(names)
        ],
        "diagonal": [label + i * cell for i in range(n)],
        "cells": cells,
        "edges": edges,
        "pairs": [
            {
                "a": names[p["a"]],
                "b": names[p["b"]],
                "score": f"{p['score']:.2f}",
                "verdict": p["verdict"] or "",
                "link": _rule_link(p["verdict"]) if p["verdict"] else "",
                "separated": p["separated"],
            }
            for p in confusable[:50]
        ],
        "more_pairs": max(0, len(confusable) - 50),
        "token_pairs": _token_pairs(sim),
    }


# what stands behind a tool (checks.implementations.implementation_state), as a badge
_IMPLEMENTATION = {
    "implemented": ("implemented", "ok"),
    "stub": ("still the stub: a call stops the run", "bad"),
    "missing": ("no implementation yet", "bad"),
    "broken": ("implementation does not fit (see toolgen check)", "bad"),
    "derived": ("answered by the runtime (made from its token contract)", "info"),
}


def _implementation(state: str | None) -> dict[str, str] | None:
    if state not in _IMPLEMENTATION:
        return None
    text, tone = _IMPLEMENTATION[state]
    return {"state": state, "text": text, "tone": tone}


def _status(
    comparison: Comparison | None, before: object, changes: Sequence[Change]
) -> str:
    if comparison is None:
        return ""
    if any(c.rule.id == "TD102" for c in changes):
        return "renamed"
    if before is None:
        return "added"
    return "changed" if changes else ""


def _change(c: Change) -> dict[str, Any]:
    return {
        "rule": c.rule.id,
        "name": c.rule.name,
        "level": c.level.value,
        "tone": _LEVEL_TONE[c.level.value],
        "message": c.message,
        "accepted": c.accepted,
        "link": f"{DIFF_DOCS_URL}#{c.rule.id}",
    }


def _quieted(
    quiet: Silenced,
) -> tuple[dict[str, list[dict[str, Any]]], list[dict[str, Any]]]:
    """What the catalogue keeps quiet: each tool's suppressions, and the rules turned off,
    each with its rule, the rule's link and what it silenced."""

    def entry(rule: str, found: Sequence[Diagnostic], **said: str) -> dict[str, Any]:
        silenced = [{"message": d.message, "where": str(d.span)} for d in found]
        return {"rule": rule, "link": _rule_link(rule), **said, "silenced": silenced}

    by_tool: dict[str, list[dict[str, Any]]] = {}
    for e in quiet.suppressions:
        said = {"reason": e.reason, "where": str(e.span)}
        by_tool.setdefault(e.tool, []).append(entry(e.rule, e.silenced, **said))
    turned_off = [
        entry(o.rule, o.silenced, how=o.how, count=counted(len(o.silenced), "finding"))
        for o in quiet.turned_off
    ]
    return by_tool, turned_off


def _contract(t: Mapping[str, Any]) -> dict[str, Any]:
    """What a tool's contract says, as the card and the reference show it."""
    return {
        "name": t["name"],
        "file": t["file"],
        "description": t["model"]["description"],
        "schema": json_document(t["model"]["parameters"]),
        "digest": t["digest"],
        "badges": _badges(t),
        "params": _fields(t["model"]["parameters"], "params"),
        "returns": _fields(t.get("returns"), "returns"),
        "errors": [
            {
                "code": code,
                "how_to_fix": e.get("how_to_fix", ""),
                "retryable": bool(e.get("retryable")),
            }
            for code, e in t.get("errors", {}).items()
        ],
        "examples": [
            {
                "args": json_text(e["args"]),
                "rejected_on": e.get("rejected_on"),
                "note": e.get("note", ""),
            }
            for e in t.get("examples", [])
        ],
        "tokens": t["tokens"],
    }


def _bar(tokens: int, scale: float) -> float:
    """The width of a cost bar, in percent of `scale`."""
    return min(100.0, round(100 * tokens / scale, 1))


def _cost(
    t: Mapping[str, Any], before: Mapping[str, Any] | None, scale: float, limit: int
) -> dict[str, Any]:
    return {
        "old_tokens": before["tokens"] if before else None,
        "bar": _bar(t["tokens"], scale),
        "old_bar": _bar(before["tokens"], scale) if before else None,
        "over": bool(limit and t["tokens"] > limit),
    }


def _rule_cards(codes: set[str]) -> list[dict[str, str]]:
    rules = {r.id: r for r in all_rules()}
    return [
        {
            "id": i,
            "name": rules[i].name,
            "summary": rules[i].summary,
            "fix": rules[i].fix,
            "url": docs_url(i),
        }
        for i in sorted(codes & set(rules))
    ]


def _token_pairs(sim: Mapping[str, Any]) -> list[dict[str, str]]:
    """The prepare and confirm tools of each token contract, alike by design."""
    names = sim["tools"]
    return [
        {"a": names[p["a"]], "b": names[p["b"]], "score": f"{p['score']:.2f}"}
        for p in sim["pairs"]
        if p.get("token_pair")
    ]


def page_model(
    shot: Mapping[str, Any],
    findings: Sequence[Diagnostic],
    sim: Mapping[str, Any],
    comparison: Comparison | None = None,
    old: Mapping[str, Any] | None = None,
    against: str | None = None,
    *,
    implementations: Mapping[str, str] | None = None,
    silenced: Silenced | None = None,
    groups: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything the page and the Markdown reference show, as plain data.
    `implementations` gives each tool's implementation state (checks.implementations),
    `silenced` what the catalogue keeps off its lint report (review.silenced), `groups` its
    namespaces, toolsets and asks (review.groups); without them the page does not say."""
    budget = shot.get("budget", {})
    total_budget = budget.get("tokens")
    tool_budget = budget.get("tool_tokens")
    old_tools = {t["name"]: t for t in (old or {}).get("tools", [])}
    by_tool = comparison.by_tool() if comparison else {}
    scale = tool_budget or max((t["tokens"] for t in shot["tools"]), default=1) or 1
    by_file: dict[str, list[Diagnostic]] = {}
    for d in findings:
        by_file.setdefault(d.span.file, []).append(d)
    quiet = silenced or Silenced((), ())
    suppressions, turned_off = _quieted(quiet)
    tools = []
    for t in sorted(shot["tools"], key=lambda x: x["name"]):
        changes = by_tool.get(t["name"], [])
        before = old_tools.get(t["name"])
        state = (implementations or {}).get(t["name"])
        tools.append(
            {
                **_contract(t),
                **_cost(t, before, scale, tool_budget or 0),
                "status": _status(comparison, before, changes),
                "implementation": _implementation(state),
                "findings": [_finding(d) for d in by_file.get(t["file"], [])],
                "suppressions": suppressions.get(t["name"], []),
                "changes": [_change(c) for c in changes],
                **tool_groups(groups, t),
            }
        )
    removed = [
        c for c in (comparison.changes if comparison else ()) if c.rule.id == "TD101"
    ]
    tool_files = {t["file"] for t in shot["tools"]}
    verdicts = {p["verdict"] for p in sim["pairs"] if p["verdict"]}
    quieted = {e.rule for e in quiet.suppressions} | {o.rule for o in quiet.turned_off}
    total = int(shot.get("tokens", 0))
    return {
        "version": __version__,
        "catalogue": shot["catalogue"],
        "folder": shot.get("folder", ""),
        "description": shot.get("description", ""),
        "tools": tools,
        "implemented": _implemented(implementations),
        "total": total,
        "budget": total_budget,
        "tool_budget": tool_budget,
        "total_bar": _bar(total, total_budget) if total_budget else None,
        "old_total": comparison.old_total if comparison else None,
        "against": against,
        "breaking": len(comparison.breaking) if comparison else 0,
        "change_count": len(comparison.changes) if comparison else 0,
        "removed": [{"tool": c.tool, "message": c.message} for c in removed],
        "catalogue_findings": [
            _finding(d)
            for f, ds in sorted(by_file.items())
            if f not in tool_files
            for d in ds
        ],
        "finding_count": len(findings),
        "turned_off": turned_off,
        "rules": _rule_cards({d.code for d in findings} | verdicts | quieted),
        "matrix": _matrix(sim, {t["name"] for t in tools if t["status"]}),
        "groups": groups,
    }


def _implemented(states: Mapping[str, str] | None) -> str:
    """One line on what stands behind the tools: "10 implemented, 1 still the stub"."""
    counts = Counter((states or {}).values())
    return ", ".join(
        f"{counts[state]} {words}" for state, words in _COUNTED.items() if counts[state]
    )


_COUNTED = {
    "implemented": "implemented",
    "stub": "still the stub",
    "missing": "without an implementation",
    "broken": "with an implementation that does not fit",
    "derived": "answered by the runtime",
}
