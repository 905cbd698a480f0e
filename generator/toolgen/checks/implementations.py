"""Checks hand-written implementations against their contracts, without importing them.

An implementation is plain Python in the catalogue's implementation package, one module per
tool with a function named like the tool. Its signature must take the generated argument model
(and the tool's context, when it declares one) and return the generated result class; when a
contract changes, `toolgen check` says which implementation no longer fits, at its line.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from toolgen.diagnostics import Diagnostic, Span, make
from toolgen.names import MODEL_NAME_RE, is_module_path
from toolgen.paths import file_digest, package_dir, read_regular
from toolgen.spec.ir import Catalogue, Tool
from toolgen.spec.limits import MAX_IMPLEMENTATION_BYTES
from toolgen.spec.summary import ToolSummary
from toolgen.text import counted, listing


def implementation_path(catalogue: Catalogue, tool: Tool | ToolSummary) -> str:
    return f"{package_dir(catalogue.implementation)}/{tool.py.module}.py"


def _annotation(node: ast.expr | None) -> str:
    return ast.unparse(node) if node is not None else "(none)"


def _expected(tool: ToolSummary) -> str:
    params = [f"args: {tool.py.args_class}"]
    if tool.has_context:
        params.append(f"context: {tool.py.context_class}")
    return f"({', '.join(params)}) -> {tool.returns_annotation}"


def _bare(annotation: str) -> str:
    """`inventory.ReadStockArgs` and `"ReadStockArgs"` both name ReadStockArgs."""
    return annotation.strip("'\"").rsplit(".", 1)[-1]


def _parameters(args: ast.arguments) -> str:
    """The parameter list as written, annotations shortened like `_bare` does."""

    def one(arg: ast.arg, stars: str = "") -> str:
        if arg.annotation is None:
            return stars + arg.arg
        return f"{stars}{arg.arg}: {_bare(_annotation(arg.annotation))}"

    shown = [one(a) for a in args.posonlyargs + args.args]
    if args.vararg is not None:
        shown.append(one(args.vararg, "*"))
    elif args.kwonlyargs:
        shown.append("*")
    shown.extend(one(a) for a in args.kwonlyargs)
    if args.kwarg is not None:
        shown.append(one(args.kwarg, "**"))
    return ", ".join(shown)


_NO_IMPLEMENTATION = "has no implementation yet"


@dataclass(frozen=True, slots=True)
class Checked:
    """What checking an implementation found, by the file's bytes and the signature expected
    of it (`key`): those a build was given (`before`, the last build's) and those it made or
    used (`now`, what it keeps for the next). A file unchanged is not parsed again."""

    before: Mapping[str, tuple[Diagnostic, ...]] = field(default_factory=dict)
    now: dict[str, tuple[Diagnostic, ...]] = field(default_factory=dict)

    @property
    def kept(self) -> Mapping[str, tuple[Diagnostic, ...]]:
        """What the next build is given: this one's, or the last one's when this one checked
        nothing (it stopped before the implementations)."""
        return self.now or self.before

    def found(self, tool: ToolSummary, rel: str, data: bytes) -> list[Diagnostic]:
        # everything _check_source reads of the tool: its name, module and signature
        expected = (tool.name, rel, tool.py.module, _expected(tool))
        key = file_digest("\0".join((file_digest(data), *expected)).encode())
        if key not in self.now:
            before = self.before.get(key)
            found = before if before is not None else _check_source(tool, rel, data)
            self.now[key] = tuple(found)
        return list(self.now[key])


def check_tool(
    catalogue: Catalogue, tool: ToolSummary, root: Path, checked: Checked | None = None
) -> list[Diagnostic]:
    """What is wrong with `tool`'s implementation (with `checked`, found there when the file
    was checked before)."""
    rel = implementation_path(catalogue, tool)
    path = root / rel
    if not os.path.lexists(path):
        return [
            make(
                "TG151",
                f"{tool.name} {_NO_IMPLEMENTATION}",
                Span(rel),
                "toolgen build creates the stub; then write the business logic there.",
            )
        ]
    try:
        data = read_regular(path, limit=MAX_IMPLEMENTATION_BYTES)
    except OSError as exc:
        return [
            make(
                "TG150",
                f"cannot read the implementation of {tool.name}: "
                f"{exc.strerror or exc.__class__.__name__}",
                Span(rel),
                "Check that the file is a readable Python file.",
            )
        ]
    if checked is not None:
        return checked.found(tool, rel, data)
    return _check_source(tool, rel, data)


def _check_source(tool: ToolSummary, rel: str, data: bytes) -> list[Diagnostic]:
    try:
        source = data.decode("utf-8-sig")  # a byte order mark, as Python reads it
        tree = ast.parse(source, filename=rel)
    except SyntaxError as exc:
        # str(exc) repeats the file's name and line, which the span already gives
        return [
            make(
                "TG150",
                f"implementation of {tool.name} does not parse: {exc.msg}",
                Span(rel, exc.lineno or 1, exc.offset or 1),
                "Fix the syntax error.",
            )
        ]
    except UnicodeDecodeError as exc:
        return [
            make(
                "TG150",
                f"implementation of {tool.name} is not UTF-8 text: {exc.reason}",
                Span(rel),
                "Save the file with UTF-8 encoding.",
            )
        ]
    function = _function(tree, tool)
    if function is None:
        return [
            make(
                "TG152",
                f"{rel} does not define the function {tool.py.module}",
                Span(rel),
                f"Define def {tool.py.module}{_expected(tool)}.",
            )
        ]
    args = function.args
    got = [_bare(_annotation(a.annotation)) for a in args.posonlyargs + args.args]
    wanted = [tool.py.args_class] + (
        [tool.py.context_class] if tool.has_context else []
    )
    got_return = _bare(_annotation(function.returns))
    span = Span(rel, function.lineno, function.col_offset + 1)
    found = []
    # the generated tool calls it positionally: a keyword-only argument without a
    # default can never be filled
    keyword_only = any(d is None for d in args.kw_defaults)
    if (
        got != wanted
        or got_return != tool.returns_annotation
        or args.vararg
        or args.kwarg
        or keyword_only
    ):
        found.append(
            make(
                "TG150",
                f"{tool.py.module} has the signature ({_parameters(args)}) -> {got_return}, "
                f"but its contract needs {_expected(tool)}",
                span,
                "Update the implementation to the contract (the spec changed), or change the "
                "spec back.",
            )
        )
    if _is_stub(function):
        found.append(
            make(
                "TG151",
                f"{tool.name} is still the stub: a call stops the run",
                span,
                f"Write its business logic in {rel}.",
            )
        )
    return found


Function = ast.FunctionDef | ast.AsyncFunctionDef


def _function(tree: ast.Module, tool: Tool | ToolSummary) -> Function | None:
    """The module's function of the tool's name (the last one, as Python binds it)."""
    name = tool.py.module
    found = [n for n in tree.body if isinstance(n, Function) and n.name == name]
    return found[-1] if found else None


def _is_stub(function: Function) -> bool:
    """The stub toolgen created, its behaviour never edited: its body is the raise of
    NotImplementedYet and nothing else (a docstring, `pass` or `...` aside). A function that
    does some work and raises it on one path only is an implementation."""
    body = [
        node
        for node in function.body
        if not (
            isinstance(node, ast.Pass)
            or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
        )
    ]
    if len(body) != 1 or not isinstance(body[0], ast.Raise):
        return False
    raised = body[0].exc
    if isinstance(raised, ast.Call):
        raised = raised.func
    return raised is not None and _bare(ast.unparse(raised)) == "NotImplementedYet"


State = Literal["implemented", "stub", "missing", "broken", "derived"]


def implementation_state(catalogue: Catalogue, tool: Tool, root: Path) -> State:
    """What stands behind `tool`, read with ast (never imported): `implemented`; `stub`,
    the function toolgen created and nobody has written yet; `missing`, no file; `broken`, a
    file that cannot be read or parsed or lacks the function; `derived`, a prepare tool,
    which the runtime answers and which has no implementation."""
    if tool.derived:
        return "derived"
    if not is_module_path(catalogue.implementation):
        return "missing"  # TG140: a path like ../x must never lead out of the project
    path = root / implementation_path(catalogue, tool)
    if not os.path.lexists(path):
        return "missing"
    try:
        tree = ast.parse(read_regular(path, limit=MAX_IMPLEMENTATION_BYTES))
    except (OSError, SyntaxError, ValueError):
        return "broken"
    function = _function(tree, tool)
    if function is None:
        return "broken"
    return "stub" if _is_stub(function) else "implemented"


def check_implementations(
    catalogue: Catalogue,
    root: Path,
    tools: Sequence[ToolSummary],
    checked: Checked | None = None,
) -> list[Diagnostic]:
    """What is wrong with the implementations of `tools`, the catalogue's (with `checked`,
    each file found there is not checked again)."""
    if not is_module_path(catalogue.implementation):
        # TG140 reports it; a path like ../x must never lead the check out of the project
        return []
    found = []
    missing: list[str] = []
    stubs: list[str] = []
    modules: set[str] = set()
    for tool in tools:
        if tool.derived:
            continue  # a prepare tool is the runtime's: it has no implementation
        # TG110 reports a name nothing can be generated under (it may not even fit in a
        # file name), and TG112 two tools of one module: no implementation to look for
        if MODEL_NAME_RE.fullmatch(tool.name) and tool.py.module not in modules:
            modules.add(tool.py.module)
            for diagnostic in check_tool(catalogue, tool, root, checked):
                if diagnostic.code == "TG151":
                    unwritten = diagnostic.message.endswith(_NO_IMPLEMENTATION)
                    (missing if unwritten else stubs).append(tool.name)
                found.append(diagnostic)
    if len(missing) + len(stubs) < 2:
        return found
    # a new catalogue is all stubs: that is one fact, said once
    folder = package_dir(catalogue.implementation)
    parts = []
    if missing:
        have = "has" if len(missing) == 1 else "have"
        parts.append(
            f"{counted(len(missing), 'tool')} {have} no implementation yet ({_named(missing)})"
        )
    if stubs:
        are = "is" if len(stubs) == 1 else "are"
        parts.append(
            f"{counted(len(stubs), 'tool')} {are} still the stub ({_named(stubs)})"
        )
    summary = make(
        "TG151",
        f"{'; '.join(parts)}: a call of one stops the run",
        catalogue.implementation_at,
        (f"toolgen build creates the missing stubs in {folder}/; " if missing else "")
        + f"write each tool's business logic in its file in {folder}/.",
    )
    return [d for d in found if d.code != "TG151"] + [summary]


def _named(names: list[str]) -> str:
    more = [f"{len(names) - _NAMED} more"] if len(names) > _NAMED else []
    return listing([*names[:_NAMED], *more])


_NAMED = 5
