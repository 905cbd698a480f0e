"""What every rule may ask about the catalogue, computed once per lint run.

Members are of two sorts. Some are a function of one tool and catalogue.yaml alone
(`schema_size(tool)`, `prose(tool)`, `first_by_normalized_name`, `booleans_by_words`,
`targets`, `context_names`); the others are catalogue-wide (`catalogue`, `tool(name)`,
`tool_names`, `profiles`, whose namespaces come from every name, `object_counts`,
`object_words`, `common_params`, `tokens`, `tool_tokens`). Reading a catalogue-wide member sets
`read_wide`: the engine clears it before each check and reads it after, and keeps the findings
of a check over one tool's element across builds only when the check read nothing
catalogue-wide (see engine.py). A new member is catalogue-wide unless it is added to the first
sort on purpose, which `tests/test_lintcache.py` holds to.

Most checks that look beyond their tool ask one narrow question: the profile of a named tool,
whether a name is a tool's, how many tools there are. Those members (`FACTS`) record what was
asked in `facts` (a key, and a fingerprint of the answer: `fingerprint`) instead of setting
`read_wide`, so the findings of such a check are kept too, and a later build runs it again only
for the tools whose facts changed (`still`). A fingerprint is a digest of what the answer is a
function of (a tool's file and text digest, the names of every tool), the same in every
process.

Per-tool word sets (`ToolProfile`) are built once, so the pair rules compare frozensets
instead of re-reading prose; the pairs themselves come from an index of the object words of
tool names, so a catalogue of a thousand tools yields the pairs that share an object, not the
half million that exist.
"""

from __future__ import annotations

import functools
import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import combinations

from toolgen import tokens
from toolgen.ir import Catalogue, Param, ReturnField, TextAt, Tool
from toolgen.lint import targets, words
from toolgen.lint.prose import Prose, tool_prose
from toolgen.lint.registry import (
    ErrorSite,
    ParamSite,
    ReturnSite,
    SpecText,
    ToolPair,
    in_rejected_example,
    rejected_examples,
)
from toolgen.load import PathKey, SourceMap
from toolgen.pieces import ToolPieces
from toolgen.tokens import TokenReport


@dataclass(frozen=True, slots=True)
class ToolProfile:
    """The words of one tool, as the pair rules compare them."""

    name_words: tuple[str, ...]
    normalized: str  # the name without case and separators
    verb: str  # the action word: the first word after a namespace, or a trailing verb
    verb_class: str
    objects: frozenset[str]  # stemmed name words besides the verb, fillers removed
    head: str  # the object the name is about: its last word before a preposition
    qualified: frozenset[
        str
    ]  # stemmed words besides the verb, fillers kept (file, info)
    keyed: tuple[
        tuple[str, ...], tuple[str, ...]
    ]  # (before, after) a preposition: by_email
    name_set: frozenset[str]  # stemmed name words, fillers removed
    intent: frozenset[str]  # content words of intent and use_when
    params: frozenset[str]  # top-level parameter names
    not_when_targets: frozenset[str]
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
    if (
        rest
        and verb not in words.VERB_CLASS
        and len(rest) > 1
        and rest[-1] in words.VERB_CLASS
    ):
        verb, others = rest[-1], list(rest[:-1])  # issue_read, stock_level_get
    return parts, namespace, verb, others


def _objects(others: Iterable[str]) -> frozenset[str]:
    return frozenset(
        words.stem(w)
        for w in others
        if w not in words.FILLER_NAME_WORDS and not w.isdigit()
    )


def name_objects(name: str, namespaces: frozenset[str]) -> frozenset[str]:
    """`profile(tool).objects`, of the name alone (what the catalogue's object counts
    read of every tool)."""
    return _objects(_split_name(name, namespaces)[3])


def profile(tool: Tool, namespaces: frozenset[str] = frozenset()) -> ToolProfile:
    parts, namespace, verb, others = _split_name(tool.name, namespaces)
    before = []
    for w in others:
        if w in words.PREPOSITIONS:
            break
        if (
            w not in words.FILLER_NAME_WORDS
            and not w.isdigit()
            and not words.participle(w)
        ):
            before.append(w)
    meaningful = [words.stem(w) for w in parts if w not in words.FILLER_NAME_WORDS]
    cut = next(
        (i for i, w in enumerate(others) if w in words.PREPOSITIONS), len(others)
    )
    return ToolProfile(
        name_words=parts,
        normalized="".join(parts),
        verb=verb,
        verb_class=words.verb_class(verb),
        objects=_objects(others),
        head=words.stem(before[-1]) if before else "",
        qualified=frozenset(words.stem(w) for w in others if w not in words.STOPWORDS),
        keyed=(tuple(others[:cut]), tuple(others[cut + 1 :])),
        name_set=frozenset(meaningful),
        intent=_prose_words(tool.intent, tool.use_when),
        params=frozenset(tool.param_names),
        not_when_targets=frozenset(tool.not_when_uses),
        namespace=namespace,
    )


def _digest(parts: Iterable[str]) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def namespaces(tools: tuple[Tool, ...]) -> frozenset[str]:
    """First words that most names of the catalogue share: a prefix, not an action."""
    firsts = Counter(
        words.name_words(t.name)[0] for t in tools if "_" in t.name or "-" in t.name
    )
    return frozenset(
        w
        for w, n in firsts.items()
        if n >= 3 and n * 2 >= len(tools) and w not in words.VERB_CLASS
    )


def tool_param_sites(
    tool: Tool, params: tuple[Param, ...], prefix: tuple[str, ...]
) -> Iterator[ParamSite]:
    for param in params:
        path = (*prefix, param.name)
        yield ParamSite(tool, param, path, params)
        node = param
        while node.items is not None:
            node = node.items
        yield from tool_param_sites(tool, node.properties, path)


def tool_return_sites(
    tool: Tool, fields: tuple[ReturnField, ...], prefix: tuple[str, ...]
) -> Iterator[ReturnSite]:
    for field in fields:
        path = (*prefix, field.name)
        yield ReturnSite(tool, field, path, fields)
        node = field
        while node.items is not None:
            node = node.items
        yield from tool_return_sites(tool, node.properties, path)


class LintContext:
    """The catalogue under lint and everything derived from it that rules share."""

    # the members that are a function of one tool (the one asked about) and catalogue.yaml
    PER_TOOL: frozenset[str] = frozenset(
        {
            "schema_size",
            "prose",
            "first_by_normalized_name",
            "booleans_by_words",
            "targets",
            "context_names",
            # catalogue.yaml's own strings, for the engine
            "catalogue_source",
            "catalogue_texts",
            # catalogue.yaml's own settings
            "catalogue_name",
            "tool_budget",
        }
    )
    # the members that look beyond one tool and record what they read in `facts`
    FACTS: frozenset[str] = frozenset(
        {
            "tool",
            "profile",
            "has_tool",
            "tool_names",
            "tool_count",
            "object_counts",
            "object_words",
            "common_params",
            "tool_token_count",
        }
    )

    def __init__(self, catalogue: Catalogue, pieces: ToolPieces | None = None) -> None:
        self._catalogue = catalogue
        self._pieces = pieces
        # set by every read of a catalogue-wide member; the engine clears it per check
        self.read_wide = False
        # the facts a check read (key -> fingerprint); the engine clears it per check
        self.facts: dict[str, str] = {}
        self._prints: dict[str, str] = {}
        self._made_profiles: dict[str, ToolProfile] = {}
        self.targets = targets.declared(catalogue.targets)
        # the names of the catalogue's tools, those whose file is broken included: a text
        # that names one names a tool (fixing that file is enough)
        self._tool_names = frozenset(t.name for t in catalogue.tools) | frozenset(
            catalogue.broken_tools
        )
        self.context_names = frozenset(f.name for f in catalogue.context)
        self._by_name = {t.name: t for t in catalogue.tools}
        self._sizes: dict[str, targets.SchemaSize] = {}
        self._prose: dict[str, tuple[Prose, ...]] = {}
        # keyed by id() of a siblings tuple, which the catalogue keeps alive for the run
        self._groups: dict[int, dict[str, Param]] = {}
        self._booleans: dict[int, dict[tuple[str, ...], tuple[int, Param]]] = {}

    @property
    def catalogue(self) -> Catalogue:
        self.read_wide = True
        return self._catalogue

    @property
    def catalogue_name(self) -> str:
        return self._catalogue.name

    @property
    def tool_budget(self) -> int | None:
        """The most tokens one tool may cost (`budget.tool_tokens`), if catalogue.yaml sets it."""
        return self._catalogue.budget.tool_tokens

    # -- facts: narrow questions about the other tools, fingerprinted ------------------------

    def _read(self, key: str) -> None:
        # a check asks the same question many times (once per parameter): cheap again
        facts = self.facts
        if key not in facts:
            found = self._prints.get(key)
            facts[key] = found if found is not None else self.fingerprint(key)

    @property
    def tool_names(self) -> frozenset[str]:
        self._read("tool_names")
        return self._tool_names

    def has_tool(self, name: str) -> bool:
        """Whether `name` is a tool's of the catalogue (one whose file is broken included)."""
        self._read(f"has_tool:{name}")
        return name in self._tool_names

    @property
    def tool_count(self) -> int:
        self._read("tool_count")
        return len(self._catalogue.tools)

    def tool(self, name: str) -> Tool | None:
        self._read(f"tool:{name}")
        return self._by_name.get(name)

    def profile(self, name: str) -> ToolProfile:
        """The profile of the tool `name` (KeyError when there is none)."""
        self._read("profile:" + name)
        found = self._made_profiles.get(name)
        return found if found is not None else self._profile_of(name)

    def _profile_of(self, name: str) -> ToolProfile:
        # one at a time: a rebuild asks about a few tools, not every one
        found = self._made_profiles.get(name)
        if found is None:
            found = self._made_profiles[name] = profile(
                self._by_name[name], self._namespaces
            )
        return found

    def tool_token_count(self, name: str) -> int:
        self._read(f"tokens:{name}")
        return self._tool_tokens[name]

    def fingerprint(self, key: str) -> str:
        """What the answer to the fact `key` is a function of, as a digest; reading it
        records nothing."""
        found = self._prints.get(key)
        if found is None:
            found = self._prints[key] = _digest(self._made_of(key))
        return found

    def still(self, facts: Iterable[tuple[str, str]]) -> bool:
        """Whether every fact (key, fingerprint) read in an earlier build is the same now."""
        # a loop, not all() over fingerprint(): asked of 15,400 facts at 1,000 tools
        prints = self._prints
        for key, old in facts:
            found = prints.get(key)
            if (found if found is not None else self.fingerprint(key)) != old:
                return False
        return True

    def _made_of(self, key: str) -> Iterator[str]:
        kind, _, name = key.partition(":")
        if kind in ("tool", "profile"):
            tool = self._by_name.get(name)
            if tool is None:
                yield "-"
                return
            # a tool's IR is a function of its file's text and catalogue.yaml (which every
            # kept record shares); its profile, of the IR and the catalogue's namespaces
            yield from (tool.name, tool.file, tool.digest, str(tool.derived))
            if kind == "profile":
                yield from sorted(self._namespaces)
        elif kind == "has_tool":
            yield str(name in self._tool_names)
        elif kind == "tokens":
            yield str(self._tool_tokens.get(name))
        elif kind == "tool_names":
            yield from sorted(self._tool_names)
        elif kind == "tool_count":
            yield str(len(self._catalogue.tools))
        elif kind in ("object_counts", "object_words"):
            # a profile's objects are a function of its tool's name and the namespaces
            yield from sorted(t.name for t in self._catalogue.tools)
            yield "namespaces"
            yield from sorted(self._namespaces)
        elif kind == "common_params":
            yield from sorted(self._common_params)
        else:
            raise KeyError(key)

    @property
    def profiles(self) -> dict[str, ToolProfile]:
        self.read_wide = True
        return self._profiles

    @functools.cached_property
    def _namespaces(self) -> frozenset[str]:
        return namespaces(self._catalogue.tools)

    @functools.cached_property
    def _profiles(self) -> dict[str, ToolProfile]:
        return {t.name: self._profile_of(t.name) for t in self._catalogue.tools}

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
        key = id(siblings)
        found = self._groups.get(key)
        if found is None:
            found = {}
            for param in siblings:
                found.setdefault(words.normalized_name(param.name), param)
            self._groups[key] = found
        return found

    def booleans_by_words(
        self, siblings: tuple[Param, ...]
    ) -> dict[tuple[str, ...], tuple[int, Param]]:
        """The boolean parameters of a group by their name words, with their position."""
        key = id(siblings)
        found = self._booleans.get(key)
        if found is None:
            found = {}
            for index, param in enumerate(siblings):
                if param.type == "boolean":
                    found.setdefault(words.name_words(param.name), (index, param))
            self._booleans[key] = found
        return found

    @property
    def object_counts(self) -> Counter[str]:
        self._read("object_counts")
        return self._object_counts

    @functools.cached_property
    def _object_counts(self) -> Counter[str]:
        """How many tools of the catalogue act on each object word (stemmed)."""
        return Counter(w for objects in self._name_objects.values() for w in objects)

    @functools.cached_property
    def _name_objects(self) -> dict[str, frozenset[str]]:
        """Each tool's profile objects, of the names alone: a profile reads the IR,
        which a kept tool reads back (frontcache.KeptTool)."""
        return {
            t.name: name_objects(t.name, self._namespaces)
            for t in self._catalogue.tools
        }

    @property
    def object_words(self) -> frozenset[str]:
        self._read("object_words")
        return self._object_words

    @functools.cached_property
    def _object_words(self) -> frozenset[str]:
        return frozenset(self._object_counts)

    @property
    def common_params(self) -> frozenset[str]:
        self._read("common_params")
        return self._common_params

    @functools.cached_property
    def _common_params(self) -> frozenset[str]:
        """Parameter names a quarter of the tools or more take (owner, repo, order_id): they
        say which object, not what a tool does with it."""
        counts = Counter(p.name for t in self._catalogue.tools for p in t.params)
        floor = max(3, len(self._catalogue.tools) / 4)
        return frozenset(name for name, n in counts.items() if n >= floor)

    @property
    def tokens(self) -> TokenReport:
        self.read_wide = True
        return self._tokens

    @functools.cached_property
    def _tokens(self) -> TokenReport:
        return tokens.measure(self._catalogue, self._pieces)

    @property
    def tool_tokens(self) -> dict[str, int]:
        self.read_wide = True
        return self._tool_tokens

    @functools.cached_property
    def _tool_tokens(self) -> dict[str, int]:
        return self._tokens.by_name()

    # -- elements ------------------------------------------------------------------------------

    def tools(self) -> tuple[Tool, ...]:
        self.read_wide = True
        return self._catalogue.tools

    def catalogue_source(self) -> SourceMap:
        return self._catalogue.origin.source

    def catalogue_texts(self) -> tuple[TextAt, ...]:
        """The strings of catalogue.yaml."""
        return self._catalogue.texts

    def param_sites(self) -> Iterator[ParamSite]:
        self.read_wide = True  # every tool's
        for tool in self._catalogue.tools:
            yield from tool_param_sites(tool, tool.params, ())

    def return_sites(self) -> Iterator[ReturnSite]:
        self.read_wide = True  # every tool's
        for tool in self._catalogue.tools:
            yield from tool_return_sites(tool, tool.returns, ())

    def error_sites(self) -> Iterator[ErrorSite]:
        self.read_wide = True  # every tool's
        for tool in self._catalogue.tools:
            for error in tool.errors:
                yield ErrorSite(tool, error)

    def texts(self) -> Iterator[SpecText]:
        self.read_wide = True  # every tool's
        rejected: dict[int, frozenset[int]] = {}
        for source, tool, path, text, is_key in self.text_items():
            if tool is None:
                yield SpecText(source, path, text, is_key, None)
                continue
            places = rejected.setdefault(id(tool), rejected_examples(tool))
            refused = in_rejected_example(path, places)
            yield SpecText(source, path, text, is_key, tool, refused)

    def text_items(self) -> Iterator[tuple[SourceMap, Tool | None, PathKey, str, bool]]:
        """Every string of every spec file, without building an element for each."""
        self.read_wide = True
        owners: list[tuple[SourceMap, tuple[TextAt, ...], Tool | None]] = [
            (self._catalogue.origin.source, self._catalogue.texts, None)
        ]
        owners.extend((t.origin.source, t.texts, t) for t in self._catalogue.tools)
        for source, texts, tool in owners:
            for item in texts:
                yield source, tool, item.path, item.text, item.is_key

    def pairs(self) -> Iterator[ToolPair]:
        """Pairs of tools whose names share an object word, or differ only in case."""
        buckets: dict[str, list[str]] = defaultdict(list)
        self.read_wide = True
        for name, objects in self._name_objects.items():
            for obj in objects:
                buckets["object:" + obj].append(name)
            buckets["normalized:" + words.normalized_name(name)].append(name)
        seen: set[tuple[str, str]] = set()
        for names in buckets.values():
            for first, second in combinations(sorted(names), 2):
                if (first, second) not in seen:
                    seen.add((first, second))
                    yield ToolPair(self._by_name[first], self._by_name[second])
