"""The search catalogue compiled as a real toolgen catalogue: what deferral saves up front.

`write(folder)` writes bench/search's 300 tools in 30 namespaces as a toolgen catalogue
(catalogue.yaml declaring each namespace, deferred; one tool file per tool, as the search
catalogue writes it, with its namespace and asks, a one-field answer and an example), and
`figures(folder)` checks it with toolgen and counts, with the counter toolgen's lint uses
(o200k_base over each definition as the Responses API receives it):

- every definition: what a request carries when every tool is loaded up front;
- up front with deferral: what it carries when every tool is deferred, its namespaces'
  names and descriptions and the tool search tool (`toolgen.lint.toolsets.toolset_tokens`,
  the figure TG965 holds a toolset's budget to);

and the findings of the namespace and search rules (TG96x) on it.

    .venv/bin/python bench/search/compiled.py     # prints the figures as JSON
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from toolgen.build import pipeline
from toolgen.lint.registry import REGISTRY
from toolgen.lint.toolsets import toolset_tokens
from toolgen.spec import tokens
from toolgen.spec.summary import summary

HERE = Path(__file__).resolve().parent
CATALOGUE = HERE / "catalogue"
NAME = "search_bench"
_SAMPLES: dict[str, Any] = {
    "string": "A1",
    "integer": 1,
    "number": 1.5,
    "boolean": True,
    "date": "2026-01-02",
    "datetime": "2026-01-02T03:04:05Z",
}


def _sample(spec: dict[str, Any]) -> Any:
    kind = spec.get("type", "string")
    if kind == "array":
        return [_sample(spec.get("items", {}))]
    if kind == "object":
        return {k: _sample(v) for k, v in spec.get("properties", {}).items()}
    if "enum" in spec:
        return spec["enum"][0]
    return _SAMPLES[kind]


def _param(spec: dict[str, Any]) -> dict[str, Any]:
    """A parameter as toolgen reads it."""
    known = dict(spec)
    if known.get("type") == "array":
        known.setdefault("items", {"type": "string"})
    if known.get("type") == "object" and "properties" not in known:
        # a free-form object toolgen refuses: one text field in its place, same words
        known = {**known, "type": "string"}
    return known


def _tool(entry: dict[str, Any], namespace: str) -> dict[str, Any]:
    params = {k: _param(v) for k, v in (entry.get("params") or {}).items()}
    done = f"What {entry['name'].replace('_', ' ')} did, in one sentence."
    return {
        **entry,
        "params": params,
        "namespace": namespace,
        "returns": {"summary": {"type": "string", "description": done}},
        "examples": [{"args": {k: _sample(v) for k, v in params.items()}}],
    }


def write(folder: Path) -> Path:
    """The catalogue under `folder` (a project root); returns the catalogue's folder."""
    spec = folder / "spec" / NAME
    (spec / "tools").mkdir(parents=True)
    (folder / "pyproject.toml").write_text("", encoding="utf-8")
    namespaces: dict[str, Any] = {}
    for path in sorted(CATALOGUE.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        name = data["namespace"]
        namespaces[name] = {"description": data["description"], "deferred": True}
        for entry in data["tools"]:
            text = yaml.safe_dump(_tool(entry, name), sort_keys=False, width=88)
            (spec / "tools" / f"{entry['name']}.yaml").write_text(text, "utf-8")
    catalogue = {
        "format": 1,
        "name": NAME,
        "description": "The 300 tools of the tool search benchmark, in 30 namespaces.",
        "namespaces": namespaces,
        "targets": ["openai"],
    }
    text = yaml.safe_dump(catalogue, sort_keys=False, width=88)
    (spec / "catalogue.yaml").write_text(text, encoding="utf-8")
    return spec


def figures(spec: Path, root: Path) -> dict[str, Any]:
    """The token figures of the compiled catalogue, and its TG96x findings by rule."""
    result = pipeline.check_catalogue(spec, root, implementations=False)
    # the lint's findings on the bench's tools (effects, identities) are no concern here;
    # an error of the format or the model is
    errors = [
        d.format_text()
        for d in result.diagnostics
        if d.severity.value == "error" and d.code not in REGISTRY
    ]
    if result.catalogue is None or errors:
        raise SystemExit(
            "the compiled search catalogue does not check:\n" + "\n".join(errors)
        )
    catalogue = result.catalogue
    counts = {t.name: tokens.tool_tokens(t) for t in catalogue.tools}
    [cost] = toolset_tokens(catalogue, [summary(t) for t in catalogue.tools], counts)
    every = sum(counts.values())
    found = Counter(d.code for d in result.diagnostics if d.code.startswith("TG96"))
    return {
        "tools": len(catalogue.tools),
        "namespaces": len(catalogue.namespaces),
        "encoding": tokens.ENCODING,
        "every_definition": every,
        "up_front_deferred": cost.up_front,
        "ratio": round(cost.up_front / every, 4),
        "findings": dict(sorted(found.items())),
    }


def measure() -> dict[str, Any]:
    """`figures` of the catalogue written into a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="toolgen-search-") as tmp:
        root = Path(tmp)
        return figures(write(root), root)


if __name__ == "__main__":
    json.dump(measure(), sys.stdout, indent=1)
    print()
