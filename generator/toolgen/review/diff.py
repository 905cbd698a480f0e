"""Two snapshots of a catalogue compared: every change, classified by the diff rules.

`compare(old, new)` pairs the tools of both versions (renames found), then their parameters,
return fields, error codes and guards, and runs every registered rule over every pair of its
kind, each finding a `Change`. Token costs are compared per tool beside the changes, so the
summary can show them even when nothing else changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from toolgen.review import elements, toolset_rules
from toolgen.review.elements import (
    ErrorPair,
    GuardPair,
    Json,
    ParamPair,
    ReturnPair,
    ToolChange,
    ToolPair,
    Where,
)
from toolgen.review.registry import DiffRule, Level, all_diff_rules
from toolgen.text import suggestion


@dataclass(frozen=True, slots=True)
class Change:
    rule: DiffRule
    tool: str
    file: str  # the contract file `where` is in (catalogue.yaml for a removed tool)
    where: Where
    message: str
    accepted: str | None = None  # the reason it was accepted, when it was

    @property
    def level(self) -> Level:
        return self.rule.level

    @property
    def fails(self) -> bool:
        return self.level is Level.BREAKING and self.accepted is None


@dataclass(frozen=True, slots=True)
class ToolCost:
    name: str
    old: int | None  # None: the tool is new
    new: int | None  # None: the tool was removed

    @property
    def delta(self) -> int:
        return (self.new or 0) - (self.old or 0)


@dataclass(frozen=True, slots=True)
class Comparison:
    catalogue: str
    changes: tuple[Change, ...]
    costs: tuple[ToolCost, ...]
    old_total: int
    new_total: int
    budget: int | None

    @property
    def breaking(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.fails)

    def by_tool(self) -> dict[str, list[Change]]:
        found: dict[str, list[Change]] = {}
        for change in self.changes:
            found.setdefault(change.tool, []).append(change)
        return found


def _elements(pair: ToolPair) -> Iterator[object]:
    yield pair
    both = pair.both
    if both is None:
        return
    old, new = both
    yield ToolChange(pair.name, old, new)
    old_params = elements.fields(elements.parameters(old), "params")
    new_params = elements.fields(elements.parameters(new), "params")
    yield from elements.field_pairs(pair.name, old_params, new_params, ParamPair)
    old_returns = elements.fields(old.get("returns", {}), "returns")
    new_returns = elements.fields(new.get("returns", {}), "returns")
    yield from elements.field_pairs(pair.name, old_returns, new_returns, ReturnPair)
    old_errors, new_errors = old.get("errors", {}), new.get("errors", {})
    for code in sorted({*old_errors, *new_errors}):
        yield ErrorPair(pair.name, code, old_errors.get(code), new_errors.get(code))
    old_guards, new_guards = old.get("guards", {}), new.get("guards", {})
    # the snapshot keys a guard by the dotted names of its parameter (`stops.site`); a
    # removed parameter is where the old version had it
    at: dict[str, Where] = {}
    for where in (*new_params, *old_params) if old_guards or new_guards else ():
        at.setdefault(elements.shown(where).replace("[]", ""), where)
    for path in sorted({*old_guards, *new_guards}):
        where = at.get(path, ("params",))
        yield GuardPair(
            pair.name, path, old_guards.get(path), new_guards.get(path), where
        )


def _file(pair: ToolPair, new: Json) -> str:
    if pair.new is not None:
        return str(pair.new.get("file", ""))
    return f"{new.get('folder', '')}/catalogue.yaml"


def compare(old: Json, new: Json, committed: Json | None = None) -> Comparison:
    """Every change from `old` to `new` (two catalogue snapshots); `committed` is the old
    version's lockfile, when it had one (it shows definitions that toolgen changed)."""
    by_kind: dict[type, list[DiffRule]] = {}
    for rule_ in all_diff_rules():
        by_kind.setdefault(rule_.kind, []).append(rule_)
    changes: list[Change] = []
    pairs = elements.tool_pairs(old, new, committed)
    for pair in pairs:
        file = _file(pair, new)
        for element in (*_elements(pair), *toolset_rules.group_pair(pair, old, new)):
            for rule_ in by_kind.get(type(element), ()):
                for found in rule_.check(element):
                    where = ("name",) if pair.new is None else found.where
                    changes.append(Change(rule_, pair.name, file, where, found.message))
    costs = tuple(
        ToolCost(p.name, _tokens(p.old), _tokens(p.new))
        for p in pairs
        if _tokens(p.old) != _tokens(p.new)
    )
    budget = new.get("budget", {}).get("tokens")
    return Comparison(
        catalogue=str(new.get("catalogue") or old.get("catalogue", "")),
        changes=tuple(changes),
        costs=costs,
        old_total=int(old.get("tokens", 0)),
        new_total=int(new.get("tokens", 0)),
        budget=budget if isinstance(budget, int) else None,
    )


def _tokens(tool: Json | None) -> int | None:
    return None if tool is None else int(tool.get("tokens", 0))


# --- accepting a breaking change on purpose --------------------------------------------------

ACCEPT_NAME = "accepted-changes.yaml"


@dataclass(frozen=True, slots=True)
class Acceptance:
    """One entry of a catalogue's accepted-changes.yaml: a rule (id or name), the tool, and
    optionally the field (`max_results`, `options.insured`); and why."""

    rule: str
    tool: str
    field: str | None
    reason: str
    line: int = 1

    def matches(self, change: Change) -> bool:
        if (
            self.rule not in (change.rule.id, change.rule.name)
            or self.tool != change.tool
        ):
            return False
        if self.field is None:
            return True
        field = elements.shown(change.where)
        after = field[len(self.field) :]
        # the field named, or one inside it (options covers options.insured)
        return field.startswith(self.field) and after[:1] in ("", ".", "[")


_ENTRY_KEYS = ("rule", "tool", "field", "reason")


def parse_acceptances(data: object) -> tuple[list[Acceptance], list[str]]:
    """The entries of an accepted-changes.yaml, and what is wrong with it (one line each)."""
    entries = data.get("accept") if isinstance(data, Mapping) else data
    if entries is None:
        return [], []
    if not isinstance(entries, list):
        return [], ["expected a list of entries under 'accept'"]
    found: list[Acceptance] = []
    problems: list[str] = []
    known = [name for r in all_diff_rules() for name in (r.id, r.name)]
    for index, entry in enumerate(entries):
        problem = _entry_problem(entry, known)
        if problem is not None:
            problems.append(f"entry {index + 1}: {problem}")
            continue
        field = entry.get("field")
        found.append(
            Acceptance(
                str(entry["rule"]),
                str(entry["tool"]),
                str(field) if field else None,
                str(entry["reason"]).strip(),
            )
        )
    return found, problems


def _entry_problem(entry: object, known: list[str]) -> str | None:
    """What is wrong with one entry of an accepted-changes.yaml, or None."""
    if not isinstance(entry, Mapping):
        return "expected a mapping with rule, tool, reason"
    missing = [k for k in ("rule", "tool", "reason") if not entry.get(k)]
    if missing:
        return f"missing {', '.join(missing)}"
    # a key misspelled would be left out, and the entry accept more than it says
    unknown = [str(k) for k in entry if k not in _ENTRY_KEYS]
    if unknown:
        hint = suggestion(
            unknown[0], _ENTRY_KEYS, "Its keys: rule, tool, field, reason."
        )
        return f"{unknown[0]!r} is no key. {hint}"
    not_text = [k for k in _ENTRY_KEYS if not isinstance(entry.get(k, ""), str)]
    if not_text:
        return f"{not_text[0]} is {entry[not_text[0]]!r}, not text"
    rule = str(entry["rule"])
    if rule not in known:  # else it would match nothing, said as a change landed
        hint = suggestion(rule, known, "toolgen diff --rules lists them.")
        return f"{rule!r} is no diff rule. {hint}"
    return None


def accept(
    comparison: Comparison, acceptances: Iterable[Acceptance]
) -> tuple[Comparison, list[Acceptance]]:
    """The comparison with the accepted changes marked, and the entries that matched
    nothing (stale: the change already landed, or the entry has a typo)."""
    wanted = list(acceptances)
    used: set[int] = set()
    marked = []
    for change in comparison.changes:
        match = next((i for i, a in enumerate(wanted) if a.matches(change)), None)
        if match is not None:
            used.add(match)
            change = replace(change, accepted=wanted[match].reason)
        marked.append(change)
    stale = [a for i, a in enumerate(wanted) if i not in used]
    return replace(comparison, changes=tuple(marked)), stale


def as_data(comparison: Comparison) -> dict[str, Any]:
    """The comparison as plain JSON data (what `--format json` prints)."""
    return {
        "catalogue": comparison.catalogue,
        "breaking": len(comparison.breaking),
        "changes": [
            {
                "rule": c.rule.id,
                "name": c.rule.name,
                "level": c.level.value,
                "tool": c.tool,
                "file": c.file,
                "where": list(c.where),
                "field": elements.shown(c.where) or None,
                "message": c.message,
                "accepted": c.accepted,
            }
            for c in comparison.changes
        ],
        "tokens": {
            "old": comparison.old_total,
            "new": comparison.new_total,
            "budget": comparison.budget,
            "tools": [
                {"name": t.name, "old": t.old, "new": t.new, "delta": t.delta}
                for t in comparison.costs
            ],
        },
    }
