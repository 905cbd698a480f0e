"""The lint run: every enabled rule over every element of its kind, then suppressions.

Each rule sees the elements of one kind; its findings become diagnostics with the rule's id
and the severity the catalogue configured. A finding owned by a tool (anything in its file,
or a pair it belongs to) is dropped when that tool suppresses the rule; suppressions that drop
nothing are reported last.

Findings kept across builds (`ToolLint`): the checks over the elements one tool owns (the
tool, its parameters, return fields, error codes and strings) run tool by tool. The context
(`LintContext.read_wide`) records whether a check read anything catalogue-wide; a check that
did not is a function of that tool, catalogue.yaml and toolgen's code alone, so its findings
(before suppressions) are kept with the tool, and the rules that did read the catalogue are
named to run again. `run(catalogue, kept)` takes the records of tools known unchanged (the
front cache holds them beside each tool's IR, under a key of catalogue.yaml, toolgen's code
and the tool file's digest) and runs only the named rules over those tools. The pair rules'
findings over a pair are kept the same way, with the pair's first tool, and reused when both
tools are unchanged (`_pair_hits`); the catalogue rules and the strings of catalogue.yaml run
every time. Suppressions are applied
to kept findings as to fresh ones, so `TG unused suppression` stays exact. What the record
holds is decided by what each check read in the build that made it, never by a list of rules:
a rule that starts reading the whole catalogue is re-run from then on.

A check that asked only narrow questions about other tools (`LintContext.FACTS`: a named
tool's profile, whether a name is a tool's) is kept too, with the fingerprints of what it
asked: the record names, per rule, the facts its checks over the tool read. A later build runs
such a rule over the tool again only when one of those fingerprints changed, so editing one
tool re-runs the checks of the tools that asked about it, not of every tool.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TypeVar

from toolgen import parallel
from toolgen.diagnostics import Diagnostic, Severity, Span
from toolgen.ir import Catalogue, Tool
from toolgen.lint import config
from toolgen.lint.context import LintContext, tool_param_sites, tool_return_sites
from toolgen.lint.registry import (
    REGISTRY,
    Category,
    ErrorSite,
    Finding,
    ParamSite,
    ReturnSite,
    Rule,
    SpecText,
    ToolPair,
    all_rules,
    in_rejected_example,
    rejected_examples,
)
from toolgen.pieces import ToolPieces
from toolgen.tokens import TokenReport

_T = TypeVar("_T")

# a kept finding: rule id, message, hint, and the place (file, line, column)
KeptHit = tuple[str, str, str, str, int, int]
# the facts a rule's checks over one tool read: (rule id, ((fact key, fingerprint), ...))
KeptFacts = tuple[tuple[str, tuple[tuple[str, str], ...]], ...]


# the pair rules' findings over one pair, kept with its first tool: the other tool's file,
# the findings, and the facts the checks read (KeptFacts' inner shape)
KeptPair = tuple[str, tuple[KeptHit, ...], tuple[tuple[str, str], ...]]


@dataclass(frozen=True, slots=True)
class ToolLint:
    """One tool's lint, kept across builds: the findings of the checks over its elements
    that read nothing catalogue-wide, the rules whose checks did (run every build), the
    facts the others read (a rule is run again when one of its facts changed), and the
    findings of the pair rules over the pairs it is the first of (`pairs`)."""

    hits: tuple[KeptHit, ...]
    live: frozenset[str]
    facts: KeptFacts = ()
    pairs: tuple[KeptPair, ...] = ()
    # the plain data `from_data` read this record from (`data` gives it back as it is)
    _read: tuple[object, ...] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def data(self, shared: dict[object, object] | None = None) -> tuple[object, ...]:
        """The record as plain data, to keep (`from_data` reads it back): for a record read
        back, the data it was read from. With `shared`, equal parts of the records made
        with it are one object: the facts every tool reads (the tool names, the tool count)
        are in every record, and a pickle of many records then holds each once (15,400
        facts of 1,000 tools are 1,800 distinct ones)."""
        if self._read is not None:
            return self._read
        live = tuple(sorted(self.live))
        if shared is None:
            return (self.hits, live, self.facts, self.pairs)

        def one(part: _T) -> _T:
            return shared.setdefault(part, part)  # type: ignore[return-value]

        facts = tuple(
            one((rule_id, tuple(one(fact) for fact in read)))
            for rule_id, read in self.facts
        )
        pairs = tuple(
            (other, hits, tuple(one(fact) for fact in read))
            for other, hits, read in self.pairs
        )
        return (self.hits, one(live), facts, pairs)

    @staticmethod
    def from_data(data: object) -> ToolLint | None:
        """A record kept as `data()` made it; None for anything of another shape."""
        if not (isinstance(data, tuple) and len(data) == 4):
            return None
        hits, live, facts, pairs = data
        if not (
            _kept_hits(hits)
            and isinstance(live, tuple)
            and all(isinstance(rule_id, str) for rule_id in live)
            and isinstance(facts, tuple)
            and all(
                isinstance(f, tuple)
                and len(f) == 2
                and isinstance(f[0], str)
                and _fact_prints(f[1])
                for f in facts
            )
            and isinstance(pairs, tuple)
            and all(
                isinstance(p, tuple)
                and len(p) == 3
                and isinstance(p[0], str)
                and _kept_hits(p[1])
                and _fact_prints(p[2])
                for p in pairs
            )
        ):
            return None
        record = ToolLint(hits, frozenset(live), facts, pairs)
        object.__setattr__(record, "_read", data)
        return record

    def pair(self, other: str) -> KeptPair | None:
        """The kept findings over the pair of this tool and the tool file `other`."""
        for kept in self.pairs:
            if kept[0] == other:
                return kept
        return None


def _kept_hits(data: object) -> bool:
    return isinstance(data, tuple) and all(
        isinstance(hit, tuple)
        and len(hit) == 6
        and all(isinstance(part, str) for part in hit[:4])
        and all(type(part) is int for part in hit[4:])
        for hit in data
    )


def _fact_prints(data: object) -> bool:
    """((fact key, fingerprint), ...)"""
    return isinstance(data, tuple) and all(
        isinstance(pair, tuple)
        and len(pair) == 2
        and isinstance(pair[0], str)
        and isinstance(pair[1], str)
        for pair in data
    )


@dataclass(frozen=True, slots=True)
class LintResult:
    diagnostics: tuple[Diagnostic, ...]
    enabled: dict[str, Severity]
    context: LintContext
    # tool file -> its lint record, for every tool not derived (to keep for the next build)
    kept: dict[str, ToolLint]

    @property
    def tokens(self) -> TokenReport:
        return self.context.tokens


@dataclass(frozen=True, slots=True)
class _Hit:
    rule: Rule
    finding: Finding
    span: Span
    owners: tuple[Tool, ...]


def _elements(kind: type, ctx: LintContext) -> Iterable[object]:
    if kind is Catalogue:
        return (ctx.catalogue,)
    if kind is Tool:
        return ctx.catalogue.tools
    if kind is ParamSite:
        return ctx.param_sites()
    if kind is ReturnSite:
        return ctx.return_sites()
    if kind is ErrorSite:
        return ctx.error_sites()
    if kind is ToolPair:
        return ctx.pairs()
    if kind is SpecText:
        return ctx.texts()
    raise TypeError(f"no elements of kind {kind.__name__}")


def _owners(element: object) -> tuple[Tool, ...]:
    if isinstance(element, Tool):
        return (element,)
    if isinstance(element, ParamSite | ReturnSite | ErrorSite):
        return (element.tool,)
    if isinstance(element, ToolPair):
        return (element.first, element.second)
    if isinstance(element, SpecText) and element.tool is not None:
        return (element.tool,)
    return ()


def _default_span(element: object) -> Span:
    if isinstance(element, Catalogue):
        return element.origin.span("name")
    if isinstance(element, Tool):
        return element.origin.span("name")
    if isinstance(element, ParamSite | ReturnSite | ErrorSite | ToolPair | SpecText):
        return element.default_span
    raise TypeError(type(element).__name__)


_PER_TOOL_KINDS = (Tool, ParamSite, ReturnSite, ErrorSite, SpecText)


def _hits(
    rules: list[Rule],
    ctx: LintContext,
    kept: Mapping[str, ToolLint] | None = None,
    records: dict[str, ToolLint] | None = None,
) -> Iterator[_Hit]:
    """The hits of rules over the elements no single tool owns (the catalogue, pairs).
    With `kept` and `records` (as `_all_hits` has them), the pair rules' findings are kept
    and reused per pair (`_pair_hits`)."""
    by_kind: dict[type, list[Rule]] = defaultdict(list)
    for r in rules:
        if r.kind is not None and r.check is not None:
            by_kind[r.kind].append(r)
    for kind, group in by_kind.items():
        if kind is SpecText:
            yield from _text_hits(group, ctx)
            continue
        if kind is ToolPair and kept is not None and records is not None:
            yield from _pair_hits(group, ctx, kept, records)
            continue
        for element in _elements(kind, ctx):
            owners = _owners(element)
            if owners and all(owner.derived for owner in owners):
                # a prepare tool is made of its token contract, which is linted itself
                continue
            found = [(r, f) for r in group for f in _check(r, element, ctx)]
            if found:
                owners = _owners(element)
                span = _default_span(element)
                for r, f in found:
                    yield _Hit(r, f, f.span or span, owners)


def _pair_hits(
    group: list[Rule],
    ctx: LintContext,
    kept: Mapping[str, ToolLint],
    records: dict[str, ToolLint],
) -> Iterator[_Hit]:
    """The hits of the pair rules. A pair's findings are a function of its two tools, of
    `catalogue.yaml` and toolgen, and of what its checks asked the context: so they are kept
    with its first tool's record when no check read the catalogue whole, with the facts the
    checks read, and a later build takes them when both tools are unchanged (both have a
    kept record) and those facts are still the same."""
    made: dict[str, list[KeptPair]] = defaultdict(list)
    for pair in ctx.pairs():
        first, second = pair.first, pair.second
        owners = (first, second)
        if first.derived and second.derived:
            # a prepare tool is made of its token contract, which is linted itself
            continue
        keepable = not first.derived and not second.derived
        old = kept.get(first.file) if keepable and second.file in kept else None
        recorded = None if old is None else old.pair(second.file)
        if recorded is not None and ctx.still(recorded[2]):
            made[first.file].append(recorded)
            for data in recorded[1]:
                yield _replayed(data, owners)
            continue
        found: list[tuple[Rule, Finding]] = []
        read: dict[str, str] = {}
        wide = False
        ctx.facts = {}
        for r in group:
            ctx.read_wide = False
            found.extend((r, f) for f in _check(r, pair, ctx))
            wide = wide or ctx.read_wide
            read.update(ctx.facts)
            ctx.facts = {}
        hits: list[_Hit] = []
        if found:  # the pair's place is read only for a finding
            span = _default_span(pair)
            hits = [_Hit(r, f, f.span or span, owners) for r, f in found]
        if keepable and not wide:
            kept_hits = tuple(_kept_hit(h) for h in hits)
            made[first.file].append(
                (second.file, kept_hits, tuple(sorted(read.items())))
            )
        yield from hits
    for file, record in records.items():
        pairs = tuple(sorted(made.get(file, ())))
        if record.pairs != pairs:
            records[file] = replace(record, pairs=pairs)


def _check(rule_: Rule, element: object, ctx: LintContext) -> Iterable[Finding]:
    assert rule_.check is not None
    return rule_.check(element, ctx)


def _text_hits(group: list[Rule], ctx: LintContext) -> Iterator[_Hit]:
    """The strings of catalogue.yaml (a tool's strings are linted with the tool)."""
    source = ctx.catalogue_source()
    for item in ctx.catalogue_texts():
        element = SpecText(source, item.path, item.text, item.is_key, None)
        for r in group:
            for f in _check(r, element, ctx):
                yield _Hit(r, f, element.default_span, ())


def _tool_elements(kind: type, tool: Tool) -> Iterable[object]:
    if kind is Tool:
        return (tool,)
    if kind is ParamSite:
        return tool_param_sites(tool, tool.params, ())
    if kind is ReturnSite:
        return tool_return_sites(tool, tool.returns, ())
    if kind is ErrorSite:
        return (ErrorSite(tool, error) for error in tool.errors)
    raise TypeError(f"no elements of kind {kind.__name__} in one tool")


class _ToolLinter:
    """Runs the checks over the elements of one tool at a time, recording which read the
    catalogue. Text rules depend on the text only, and strings repeat across a catalogue
    (types, enum values, shared wording): each distinct string is checked once a run."""

    def __init__(self, rules: list[Rule], ctx: LintContext) -> None:
        self.ctx = ctx
        self.by_kind: dict[type, list[Rule]] = defaultdict(list)
        for r in rules:
            if r.kind in _PER_TOOL_KINDS and r.check is not None:
                self.by_kind[r.kind].append(r)
        # (text, is_key, refused) -> per rule: its findings, whether it read the catalogue,
        # and the facts it read
        self._texts: dict[tuple[str, bool, bool], list[_Checked]] = {}

    def lint(self, tool: Tool, only: frozenset[str] | None) -> _ToolHits:
        """The hits of the rules (all, or those in `only`) over `tool`'s elements."""
        out = _ToolHits()
        owners = (tool,)
        ctx = self.ctx
        for kind, group in self.by_kind.items():
            rules = group if only is None else [r for r in group if r.id in only]
            if not rules:
                continue
            if kind is SpecText:
                self._lint_texts(tool, only, out)
                continue
            if tool.derived:
                # a prepare tool is made of its token contract, which is linted itself
                continue
            for element in _tool_elements(kind, tool):
                span: Span | None = None
                for r in rules:
                    # this loop runs some 200,000 times a 1,000-tool build
                    assert r.check is not None
                    ctx.read_wide = False
                    found = list(r.check(element, ctx))
                    wide = ctx.read_wide
                    if ctx.facts:
                        out.note(r.id, wide, ctx.facts)
                        ctx.facts = {}
                    elif wide:
                        out.wide.add(r.id)
                    for f in found:
                        if span is None:
                            span = _default_span(element)
                        hit = _Hit(r, f, f.span or span, owners)
                        (out.live if wide else out.kept).append(hit)
        return out

    def _lint_texts(
        self, tool: Tool, only: frozenset[str] | None, out: _ToolHits
    ) -> None:
        source = tool.origin.source
        rejected = rejected_examples(tool)
        for item in tool.texts:
            refused = bool(rejected) and in_rejected_example(item.path, rejected)
            results = self._texts.get((item.text, item.is_key, refused))
            if results is None:
                element = SpecText(
                    source, item.path, item.text, item.is_key, tool, refused
                )
                results = []
                ctx = self.ctx
                for r in self.by_kind[SpecText]:
                    assert r.check is not None
                    ctx.read_wide = False
                    found = list(r.check(element, ctx))
                    read: Mapping[str, str] = _NO_FACTS
                    if ctx.facts:
                        read, ctx.facts = ctx.facts, {}  # this check's, kept with it
                    if found or ctx.read_wide or read:
                        # the others add nothing, for any tool
                        results.append(_Checked(r, found, ctx.read_wide, read))
                self._texts[(item.text, item.is_key, refused)] = results
            if not results:
                continue
            span: Span | None = None
            for checked in results:
                if only is not None and checked.rule.id not in only:
                    continue
                out.note(checked.rule.id, checked.wide, checked.facts)
                for f in checked.found:
                    if span is None:
                        span = source.span(item.path, key=item.is_key)
                    hit = _Hit(checked.rule, f, span, (tool,))
                    (out.live if checked.wide else out.kept).append(hit)


_NO_FACTS: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class _Checked:
    """One check of one rule over one element: its findings and what it read."""

    rule: Rule
    found: list[Finding]
    wide: bool
    facts: Mapping[str, str]


@dataclass(slots=True)
class _ToolHits:
    """The hits of the checks over one tool: those of checks that read nothing
    catalogue-wide (kept), the others (live), the rules of those, and the facts each of
    the kept rules read."""

    kept: list[_Hit] = field(default_factory=list)
    live: list[_Hit] = field(default_factory=list)
    wide: set[str] = field(default_factory=set)
    facts: dict[str, dict[str, str]] = field(default_factory=dict)

    def note(self, rule_id: str, wide: bool, facts: Mapping[str, str]) -> None:
        """What one check of the rule read."""
        if wide:
            self.wide.add(rule_id)
        elif facts:
            self.facts.setdefault(rule_id, {}).update(facts)

    def record(
        self, kept_too: Iterable[KeptHit] = (), facts_too: KeptFacts = ()
    ) -> ToolLint:
        """The record of this tool, with what an earlier record keeps of the rules that
        did not run now (`kept_too`, `facts_too`)."""
        facts = {rule_id: dict(read) for rule_id, read in facts_too}
        for rule_id, read in self.facts.items():
            if rule_id not in self.wide:
                facts[rule_id] = read
        hits = [*kept_too, *(_kept_hit(h) for h in self.kept)]
        return ToolLint(
            tuple(hits),
            frozenset(self.wide),
            tuple(
                (rule_id, tuple(sorted(facts[rule_id].items())))
                for rule_id in sorted(facts)
            ),
        )


def _kept_hit(hit: _Hit) -> KeptHit:
    f, span = hit.finding, hit.span
    return (hit.rule.id, f.message, f.hint, span.file, span.line, span.col)


def _replayed(data: KeptHit, owners: Tool | tuple[Tool, ...]) -> _Hit:
    rule_id, message, hint, file, line, col = data
    span = Span(file, line, col)
    held = owners if isinstance(owners, tuple) else (owners,)
    return _Hit(REGISTRY[rule_id], Finding(message, hint, span), span, held)


def _usable(record: ToolLint | None, enabled: dict[str, Severity]) -> bool:
    # the record was made under the same catalogue.yaml (so the same rules); checked again
    # so that a record that does not fit can only cost time
    return record is not None and all(
        h[0] in enabled and h[0] in REGISTRY for h in record.hits
    )


# tools linted afresh from which half of them are linted in a forked child (parallel.py)
PARALLEL_TOOLS = 200

# one tool's lint done elsewhere: its record, and every hit as a kept one
_Linted = tuple[ToolLint, tuple[KeptHit, ...]]


def _linted(linter: _ToolLinter, tool: Tool) -> _Linted:
    done = linter.lint(tool, None)
    return done.record(), tuple(_kept_hit(h) for h in (*done.kept, *done.live))


def _all_hits(
    active: list[Rule],
    ctx: LintContext,
    kept: Mapping[str, ToolLint],
    enabled: dict[str, Severity],
    records: dict[str, ToolLint],
) -> Iterator[_Hit]:
    linter = _ToolLinter(active, ctx)
    tools = ctx.tools()

    def record_of(tool: Tool) -> ToolLint | None:
        record = None if tool.derived else kept.get(tool.file)
        return record if record is not None and _usable(record, enabled) else None

    planned = [(tool, record_of(tool)) for tool in tools]
    # a first build lints every tool: half of them in a child, meanwhile
    fresh = [tool for tool, record in planned if record is None]
    theirs = fresh[len(fresh) // 2 :]
    child: parallel.Child[list[_Linted]] | None = None
    if parallel.worth_it(len(fresh), PARALLEL_TOOLS):
        child = parallel.start(lambda: [_linted(linter, tool) for tool in theirs])
    handed = {id(tool) for tool in theirs} if child is not None else set()
    try:
        for tool, record in planned:
            if id(tool) in handed:
                continue
            if record is not None:
                yield from _relinted(linter, ctx, tool, record, records)
                continue
            done = linter.lint(tool, None)
            if not tool.derived:
                records[tool.file] = done.record()
            yield from done.kept
            yield from done.live
        if child is not None:
            taken, child = child, None
            try:
                linted = taken.result()
            except parallel.ChildFailed:
                linted = [_linted(linter, tool) for tool in theirs]
            for tool, (record, hits) in zip(theirs, linted, strict=True):
                if not tool.derived:
                    records[tool.file] = record
                for data in hits:
                    yield _replayed(data, tool)
    except BaseException:
        if child is not None:
            child.stop()
        raise
    yield from _hits(
        [r for r in active if r.kind not in _PER_TOOL_KINDS or r.kind is SpecText],
        ctx,
        kept,
        records,
    )


def _relinted(
    linter: _ToolLinter,
    ctx: LintContext,
    tool: Tool,
    record: ToolLint,
    records: dict[str, ToolLint],
) -> Iterator[_Hit]:
    """The hits of a tool linted in an earlier build: the rules that read the catalogue,
    and those whose facts changed, run over every element of the tool again; the record
    keeps the others' findings."""
    again = record.live | {
        rule_id for rule_id, read in record.facts if not ctx.still(read)
    }
    if not again:
        records[tool.file] = record
        for data in record.hits:
            yield _replayed(data, tool)
        return
    done = linter.lint(tool, frozenset(again))
    still = [h for h in record.hits if h[0] not in again]
    records[tool.file] = done.record(
        still, tuple(f for f in record.facts if f[0] not in again)
    )
    for data in still:
        yield _replayed(data, tool)
    yield from done.kept
    yield from done.live


def run(
    catalogue: Catalogue,
    kept: Mapping[str, ToolLint] | None = None,
    pieces: ToolPieces | None = None,
) -> LintResult:
    """Lint `catalogue`; `kept` are the lint records of tools (by file) unchanged since the
    build that made them, under the same catalogue.yaml and toolgen (the caller vouches), and
    `pieces` the per-tool pieces (token counts) kept for them."""
    ctx = LintContext(catalogue, pieces)
    enabled = config.resolve(catalogue.lint, all_rules())
    active = [REGISTRY[i] for i in sorted(enabled)]
    used: set[tuple[int, int]] = set()  # (id of a tool, index of its suppression)
    diagnostics: list[Diagnostic] = []
    records: dict[str, ToolLint] = {}

    def suppressed(hit: _Hit) -> bool:
        if hit.rule.category is Category.CONFIG:
            return False
        for owner in hit.owners:
            # by the rule names, which a kept tool holds without reading its IR back
            rules = owner.suppressed_rules
            if hit.rule.id in rules:
                used.add((id(owner), rules.index(hit.rule.id)))
                return True
        return False

    for hit in _all_hits(active, ctx, kept or {}, enabled, records):
        if suppressed(hit):
            continue
        hint = hit.finding.hint or hit.rule.fix
        diagnostics.append(
            Diagnostic(
                hit.rule.id, enabled[hit.rule.id], hit.finding.message, hit.span, hint
            )
        )
    diagnostics.extend(_unused(catalogue, enabled, used))
    diagnostics.sort(key=lambda d: d.sort_key)
    return LintResult(tuple(diagnostics), enabled, ctx, records)


def _unused(
    catalogue: Catalogue, enabled: dict[str, Severity], used: set[tuple[int, int]]
) -> Iterator[Diagnostic]:
    rule_ = config.UNUSED_SUPPRESSION
    if rule_.id not in enabled:
        return
    for tool in catalogue.tools:
        for index, rule_id in enumerate(tool.suppressed_rules):
            if catalogue.broken_tools and rule_id in enabled:
                # what the rule finds may involve a tool whose file is broken (a pair, a
                # reference): that it found nothing says nothing until the file is fixed
                continue
            if rule_id in REGISTRY and (id(tool), index) not in used:
                yield Diagnostic(
                    rule_.id,
                    enabled[rule_.id],
                    config.unused_message(rule_id, tool, enabled),
                    tool.suppressions[index].origin.span("rule"),
                    rule_.fix,
                )
