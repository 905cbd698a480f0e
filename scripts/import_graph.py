"""The import graph of the compiler: for each module of generator/toolgen, the toolgen modules it
imports (at any depth of its body, so an import inside a function counts too).

    python scripts/import_graph.py            # one line per module: module -> imports
    python scripts/import_graph.py --dot      # Graphviz

tests/test_layers.py holds the rule this graph must keep: the stages point down the pipeline.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "generator" / "toolgen"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The toolgen modules `path` imports, resolved to modules (not names inside them)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("toolgen"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            if not base.startswith("toolgen"):
                continue
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in MODULES else base)
    found.discard(name)
    return found


MODULES = {module_name(p) for p in PACKAGE.rglob("*.py")}


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in sorted(PACKAGE.rglob("*.py"))}


def main(argv: list[str]) -> int:
    edges = graph()
    if "--dot" in argv:
        print("digraph toolgen {")
        for source, targets in sorted(edges.items()):
            for target in sorted(targets):
                print(f'  "{source}" -> "{target}";')
        print("}")
        return 0
    for source, targets in sorted(edges.items()):
        print(f"{source} -> {', '.join(sorted(targets)) or '(nothing of toolgen)'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
