"""The search benchmark's catalogue: 300 tools in 30 namespaces, read from catalogue/*.yaml.

Each file is one namespace: its `description` (written for the model) and its `tools`, each
shaped like a toolgen tool file (name, effect, intent, use_when, not_when, params) plus the
keys the contract is getting for search: `asks` (requests in a user's words for which it is
the right tool). The tool's namespace is the file's.

`grow(tools, size)` makes a larger catalogue for timing: see its docstring.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from toolgen_runtime.search import SearchDocument

HERE = Path(__file__).resolve().parent
CATALOGUE = HERE / "catalogue"


@dataclass(frozen=True, slots=True)
class Namespace:
    name: str
    description: str


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    namespace: Namespace
    intent: str
    use_when: str
    not_when: tuple[tuple[str, str], ...]  # (when, use)
    params: tuple[tuple[str, str], ...]  # (name, description)
    asks: tuple[str, ...]

    def document(self, asks: tuple[str, ...] | None = None) -> SearchDocument:
        """The tool's search document, with `asks` in place of its own when given."""
        return SearchDocument(
            name=self.name,
            intent=self.intent,
            use_when=self.use_when,
            not_when=tuple(when for when, _ in self.not_when),
            asks=self.asks if asks is None else asks,
            parameters=self.params,
            namespace=self.namespace.name,
            namespace_description=self.namespace.description,
        )

    def description(self) -> str:
        """What the model reads of the tool, roughly as toolgen composes it."""
        parts = [self.intent]
        if self.use_when:
            parts.append(f"Use when: {self.use_when}")
        parts.extend(
            f"Do not use when: {when} Use {use} instead." for when, use in self.not_when
        )
        return " ".join(parts)

    def baseline_document(self) -> SearchDocument:
        """Name and description as one field: the plain BM25 of the baseline."""
        return SearchDocument(
            name=self.name, intent=f"{self.name} {self.description()}"
        )


def load(folder: Path = CATALOGUE) -> list[Tool]:
    """Every tool of the catalogue, namespace by namespace (files in name order)."""
    tools: list[Tool] = []
    for path in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        namespace = Namespace(
            _text(data, "namespace", path), _text(data, "description", path)
        )
        if namespace.name != path.stem:
            raise ValueError(
                f"{path}: namespace {namespace.name!r} is not the file's name"
            )
        tools.extend(_tool(entry, namespace, path) for entry in data["tools"])
    names = [tool.name for tool in tools]
    if len(set(names)) != len(names):
        raise ValueError("two tools of the search catalogue have the same name")
    known = set(names)
    for tool in tools:
        for _, use in tool.not_when:
            if use not in known:
                raise ValueError(
                    f"{tool.name}: not_when names {use!r}, which is not a tool"
                )
    return tools


def _tool(entry: dict[str, Any], namespace: Namespace, path: Path) -> Tool:
    where = f"{path.name}: {entry.get('name')!r}"
    asks = entry.get("asks", [])
    if not (
        isinstance(asks, list)
        and 3 <= len(asks) <= 5
        and all(isinstance(a, str) for a in asks)
    ):
        raise ValueError(f"{where}: asks must be 3 to 5 strings")
    params = entry.get("params") or {}
    for name, spec in params.items():
        if None in spec.values():  # {description: The system, app or folder.}
            raise ValueError(
                f"{where}: parameter {name!r} has a key without a value: a comma in a "
                "flow mapping ends the description before it (quote the description)"
            )
    return Tool(
        name=_text(entry, "name", path),
        namespace=namespace,
        intent=_text(entry, "intent", path),
        use_when=str(entry.get("use_when", "")),
        not_when=tuple(
            (item["when"], item["use"]) for item in entry.get("not_when", [])
        ),
        params=tuple(
            (name, str(spec.get("description", ""))) for name, spec in params.items()
        ),
        asks=tuple(asks),
    )


def _text(data: dict[str, Any], key: str, path: Path) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{path.name}: {key} must be a non-empty string")
    return value


# the markets a grown catalogue's copies serve: one word each, added to the copy's name,
# namespace, intent and asks
MARKETS = (
    "wholesale", "partner", "franchise", "student", "premium",
    "regional", "export", "municipal", "nonprofit", "veteran",
)  # fmt: skip


def grow(tools: list[Tool], size: int) -> list[Tool]:
    """`tools` plus copies for other markets, up to `size` tools.

    Copy k of tool i serves market MARKETS[(i + k) % 10]: `book_table_partner` in namespace
    `restaurant_partner`, whose texts are the original's with "for partner customers" added.
    A large real catalogue repeats its vocabulary across namespaces in the same way (many
    `cancel_*`, `read_*`, orders of several kinds); copies make it repeat more than a real one
    would, so the posting lists a query walks are longer and the timing is pessimistic. The
    copies are near-twins of their originals: a grown catalogue times the search, it does
    not measure its accuracy.
    """
    grown = list(tools)
    copy = 0
    while len(grown) < size:
        copy += 1
        for number, tool in enumerate(tools):
            if len(grown) == size:
                break
            market = MARKETS[(number + copy) % len(MARKETS)]
            grown.append(_copy(tool, market))
    return grown


def _copy(tool: Tool, market: str) -> Tool:
    namespace = Namespace(
        f"{tool.namespace.name}_{market}",
        f"{tool.namespace.description} For {market} customers.",
    )
    return Tool(
        name=f"{tool.name}_{market}",
        namespace=namespace,
        intent=f"{tool.intent.rstrip('.')} for {market} customers.",
        use_when=tool.use_when,
        not_when=tuple((when, f"{use}_{market}") for when, use in tool.not_when),
        params=tool.params,
        asks=tuple(f"{ask} ({market} account)" for ask in tool.asks),
    )
