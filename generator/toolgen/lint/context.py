"""What the rules may ask about the catalogue, computed once per lint run.

The rules over one tool's elements see a `LintContext`, and of the other tools only their
names (`Names`), so their findings are a function of the tool, catalogue.yaml and the names
alone, and a build keeps them with the tool (build/cache.py). The rules over the catalogue,
pairs of tools and each tool's references see a `CatalogueContext`, which adds every tool's
`ToolSummary` and token count: they run in every build.

Per-tool word sets (`ToolProfile`) are built once, so the pair rules compare frozensets
instead of re-reading prose; the pairs themselves come from an index of the object words of
tool names, so a catalogue of a thousand tools yields the pairs that share an object, not the
half million that exist.
"""

from __future__ import annotations

import functools
import hashlib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, TypeAlias, TypeVar

from toolgen.lint import targets, words
from toolgen.lint.prose import Prose, tool_prose
from toolgen.lint.registry import ParamSite, ReturnSite, ToolPair
from toolgen.spec import tokens
from toolgen.spec.ir import Catalogue, N, Param, Tool, innermost
from toolgen.spec.summary import ToolSummary, summary
from toolgen.spec.tokens import TokenReport, ToolTokens

if TYPE_CHECKING:
    from toolgen.lint.toolsets import Misrouted


@dataclass(frozen=True, slots=True)
class ToolProfile:
    """The words of one tool, as the pair rules compare them."""

    normalized: str  # the name without case and separators
    # the action word: the first word after a namespace, or a trailing verb, or a known
    # verb second after a resource (contacts_add_segment)
    verb: str
    verb_class: str
    objects: frozenset[str]  # stemmed name words besides the verb, fillers removed
    head: str  # the object the name is about: its last word before a preposition
    # stemmed words besides the verb, fillers kept (file, info)
    qualified: frozenset[str]
    # the words (before, after) a preposition: by_email
    keyed: tuple[tuple[str, ...], tuple[str, ...]]
    name_set: frozenset[str]  # stemmed name words, fillers removed
    intent: frozenset[str]  # content words of intent and use_when
    params: frozenset[str]  # top-level parameter names
    namespace: str = ""  # a first word most of the catalogue's names share (git_, gh_)


def _prose_words(*texts: str) -> frozenset[str]:
    """Content words of prose, leaving out unfinished text (a TODO is no description)."""
    return words.content_words(
        " ".join(t for t in texts if not words.TODO_MARKER.search(t))
    )


def _split_name(
    name: str, namespaces: frozenset[str]
) -> tuple[tuple[str, ...], str, str, list[str]]:
    """A tool name's words, namespace, verb and the words besides the verb."""
    parts = words.name_words(name)
    namespace = parts[0] if len(parts) > 1 and parts[0] in namespaces else ""
    rest = parts[1:] if namespace else parts
    verb = rest[0] if rest else ""
    others = list(rest[1:])
    if verb in words.VERB_CLASS or len(rest) < 2:
        pass
    elif len(rest) > 2 and rest[1] in words.VERB_CLASS:
        # contacts_add_segment, contacts_get_import: the resource first, then the verb
        verb, others = rest[1], [rest[0], *rest[2:]]
    elif rest[-1] in words.VERB_CLASS:
        verb, others = rest[-1], list(rest[:-1])  # issue_read, stock_level_get
    return parts, namespace, verb, others


def _objects(others: Iterable[str]) -> frozenset[str]:
    return frozenset(
        words.stem(w)
        for w in others
        if w not in words.FILLER_NAME_WORDS and not w.isdigit()
    )


# what a profile reads of a tool (its name, intent, use_when and parameter names), which a
# `Tool` and its `ToolSummary` both have
Named: TypeAlias = Tool | ToolSummary


def profile(tool: Named, namespaces: frozenset[str]) -> ToolProfile:
    parts, namespace, verb, others = _split_name(tool.name, namespaces)
    meaningful = [words.stem(w) for w in parts if w not in words.FILLER_NAME_WORDS]
    ahead, behind = words.at_preposition(others)
    before = [
        w
        for w in ahead
        if w not in words.FILLER_NAME_WORDS
        and not w.isdigit()
        and not words.participle(w)
    ]
    return ToolProfile(
        normalized="".join(parts),
        verb=verb,
        verb_class=words.verb_class(verb),
        objects=_objects(others),
        head=words.stem((before or ahead or [""])[-1]),  # add_item_for_x: item
        qualified=frozenset(words.stem(w) for w in others if w not in words.STOPWORDS),
        keyed=(ahead, behind),
        name_set=frozenset(meaningful),
        intent=_prose_words(tool.intent, tool.use_when),
        params=frozenset(tool.param_names),
        namespace=namespace,
    )


S = TypeVar("S")


def _sites(
    tool: Tool,
    nodes: tuple[N, ...],
    prefix: tuple[str, ...],
    site: Callable[[Tool, N, tuple[str, ...], tuple[N, ...]], S],
) -> Iterator[S]:
    for node in nodes:
        path = (*prefix, node.name)
        yield site(tool, node, path, nodes)
        yield from _sites(tool, innermost(node).properties, path, site)


def param_sites(tool: Tool) -> Iterator[ParamSite]:
    """Every named parameter of a tool, nested ones included, depth first."""
    return _sites(tool, tool.params, (), ParamSite)


def return_sites(tool: Tool) -> Iterator[ReturnSite]:
    """Every named return field of a tool, nested ones included, depth first."""
    return _sites(tool, tool.returns, (), ReturnSite)


@dataclass(frozen=True)  # no slots: the derived sets are cached on the instance
class Names:
    """The names of a catalogue's tools, and what the rules over one tool read of them.

    `tools` are the names of every tool (derived ones included), `broken` those of the tool
    files that failed the format: a text that names one names a tool (fixing that file is
    enough)."""

    tools: tuple[str, ...]
    broken: tuple[str, ...] = ()

    @staticmethod
    def of(names: Iterable[str], broken: Iterable[str] = ()) -> Names:
        return Names(tuple(sorted(names)), tuple(sorted(set(broken))))

    @functools.cached_property  # asked once per tool file: joined once, not a thousand times
    def digest(self) -> str:
        """What a tool's kept lint findings were made with (build/cache.py)."""
        text = "\0".join(self.tools) + "\1" + "\0".join(self.broken)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

    @functools.cached_property
    def known(self) -> frozenset[str]:
        """The catalogue's tools, those whose file is broken included."""
        return frozenset(self.tools) | frozenset(self.broken)

    @functools.cached_property
    def namespaces(self) -> frozenset[str]:
        """First words that most names of the catalogue share: a prefix, not an action."""
        names = self.tools
        split = (words.name_words(n) for n in names if "_" in n or "-" in n)
        firsts = Counter(found[0] for found in split if found)  # `_` has no words
        return frozenset(
            w
            for w, n in firsts.items()
            if n >= 3 and n * 2 >= len(names) and w not in words.VERB_CLASS
        )

    @functools.cached_property
    def listed(self) -> frozenset[str]:
        """Last name words in the plural: what the catalogue's tools list (get_users)."""
        lasts = (words.name_words(n) for n in self.tools)
        return frozenset(p[-1] for p in lasts if p and p[-1].endswith("s"))

    @functools.cached_property
    def objects(self) -> dict[str, frozenset[str]]:
        """Each tool's profile objects, of its name alone."""
        return {n: _objects(_split_name(n, self.namespaces)[3]) for n in self.tools}

    @functools.cached_property
    def object_counts(self) -> Counter[str]:
        """How many tools of the catalogue act on each object word (stemmed)."""
        return Counter(w for objects in self.objects.values() for w in objects)


class LintContext:
    """What the rules over one tool's elements may ask: catalogue.yaml, the tool's own
    measures, and the catalogue's names."""

    def __init__(self, catalogue: Catalogue, names: Names) -> None:
        # catalogue.yaml's settings (its `tools` are not this context's to read)
        self.catalogue = catalogue
        self.names = names
        self.targets = targets.declared(catalogue.targets)
        self.context_names = frozenset(f.name for f in catalogue.context)
        self._profiles: dict[str, ToolProfile] = {}
        self._sizes: dict[str, targets.SchemaSize] = {}
        self._prose: dict[str, tuple[Prose, ...]] = {}
        # keyed by id() of a siblings tuple, which the catalogue keeps alive for the run
        self._groups: dict[int, dict[str, Param]] = {}
        self._booleans: dict[int, dict[tuple[str, ...], tuple[int, Param]]] = {}

    # -- the catalogue's names -------------------------------------------------------------

    def profile_of(self, tool: Named) -> ToolProfile:
        """The profile of a tool (or its summary), its name read with the catalogue's
        namespaces."""
        found = self._profiles.get(tool.name)
        if found is None:
            found = self._profiles[tool.name] = profile(tool, self.names.namespaces)
        return found

    # -- one tool's own measures -----------------------------------------------------------

    def schema_size(self, tool: Tool) -> targets.SchemaSize:
        """The size of a tool's exposed schema, measured once per tool."""
        size = self._sizes.get(tool.name)
        if size is None:
            size = self._sizes[tool.name] = targets.measure_schema(tool.parameters)
        return size

    def prose(self, tool: Tool, *, how_to_fix: bool = True) -> tuple[Prose, ...]:
        """The prose of a tool the model reads, built once per tool."""
        found = self._prose.get(tool.name)
        if found is None:
            found = self._prose[tool.name] = tool_prose(tool)
        return found if how_to_fix else tuple(p for p in found if not p.how_to_fix)

    def first_by_normalized_name(self, siblings: tuple[Param, ...]) -> dict[str, Param]:
        """The first parameter of a group for each name without case and separators
        (computed once per group: a group may hold thousands of parameters)."""
        found = self._groups.get(id(siblings))
        # reversed: of two parameters with one name, the first is kept
        if found is None:
            found = self._groups[id(siblings)] = {
                words.normalized_name(p.name): p for p in reversed(siblings)
            }
        return found

    def booleans_by_words(
        self, siblings: tuple[Param, ...]
    ) -> dict[tuple[str, ...], tuple[int, Param]]:
        """The boolean parameters of a group by their name words, with their position."""
        found = self._booleans.get(id(siblings))
        # reversed: of two booleans with one name, the first is kept
        if found is None:
            found = self._booleans[id(siblings)] = {
                words.name_words(p.name): (index, p)
                for index, p in reversed(list(enumerate(siblings)))
                if p.type == "boolean"
            }
        return found


class CatalogueContext(LintContext):
    """What the rules over the catalogue, pairs of tools and each tool's references may ask
    besides: every tool's summary and token count."""

    def __init__(
        self,
        catalogue: Catalogue,
        tools: tuple[ToolSummary, ...],
        tool_tokens: dict[str, int],
        broken: tuple[str, ...],
    ) -> None:
        super().__init__(catalogue, Names.of((t.name for t in tools), broken))
        self._tools = tools
        self._by_name = {t.name: t for t in tools}
        self.tool_tokens = tool_tokens

    @staticmethod
    def of(catalogue: Catalogue) -> CatalogueContext:
        """The context of a catalogue whose every tool's IR is at hand (check, review)."""
        tools = tuple(summary(t) for t in catalogue.tools)
        counts = {t.name: tokens.tool_tokens(t) for t in catalogue.tools}
        return CatalogueContext(catalogue, tools, counts, catalogue.broken_tools)

    def tools(self) -> tuple[ToolSummary, ...]:
        return self._tools

    def tool(self, name: str) -> ToolSummary | None:
        return self._by_name.get(name)

    def profile(self, name: str) -> ToolProfile:
        """The profile of the tool `name` (KeyError when there is none)."""
        # the pair rules ask for a hundred thousand profiles at 1,000 tools
        found = self._profiles.get(name)
        return self.profile_of(self._by_name[name]) if found is None else found

    @functools.cached_property
    def common_params(self) -> frozenset[str]:
        """Parameter names a quarter of the tools or more take (owner, repo, order_id): they
        say which object, not what a tool does with it."""
        counts = Counter(name for t in self._tools for name in t.param_names)
        floor = max(3, len(self._tools) / 4)
        return frozenset(name for name, n in counts.items() if n >= floor)

    @functools.cached_property
    def misrouted(self) -> dict[str, tuple[Misrouted, ...]]:
        """The asks the catalogue's search sends to another tool, by tool, searched once
        per lint run (`toolsets.misrouted`)."""
        from toolgen.lint.toolsets import misrouted

        return misrouted(self.catalogue, self._tools)

    @functools.cached_property
    def tokens(self) -> TokenReport:
        return TokenReport(
            tokens.ENCODING,
            tuple(ToolTokens(t.name, self.tool_tokens[t.name]) for t in self._tools),
        )

    @functools.cached_property
    def toolsets_of(self) -> dict[str, list[str]]:
        """The toolsets holding each tool, in catalogue.yaml's order; with none declared, the
        one of every tool (a tool in none has no entry)."""
        found: dict[str, list[str]] = {}
        for toolset in self.catalogue.toolsets:
            for name in toolset.tools:
                found.setdefault(name, []).append(toolset.name)
        return found

    def meet(self, first: str, second: str) -> bool:
        """Whether an agent may be given both tools: one of them is in no toolset (an export
        of every tool holds it), or a toolset holds both (with none declared, the one of
        every tool does)."""
        ours, theirs = self.toolsets_of.get(first), self.toolsets_of.get(second)
        return not ours or not theirs or any(t in theirs for t in ours)

    def pairs(self) -> Iterator[ToolPair]:
        """Pairs of tools an agent may be given together whose names share an object word,
        and pairs whose names differ only in case, wherever they are."""
        buckets: dict[str, list[str]] = defaultdict(list)
        for name, objects in self.names.objects.items():
            for obj in objects:
                buckets["object:" + obj].append(name)
            buckets["normalized:" + words.normalized_name(name)].append(name)
        seen: set[tuple[str, str]] = set()
        for bucket, names in buckets.items():
            anywhere = bucket.startswith("normalized:")
            for first, second in combinations(sorted(names), 2):
                if (first, second) not in seen and (
                    anywhere or self.meet(first, second)
                ):
                    seen.add((first, second))
                    yield ToolPair(self._by_name[first], self._by_name[second])
