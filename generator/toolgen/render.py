"""Render: the model becomes `{path: text}` in memory, nothing touches the disk here.

Every name, import, type annotation and literal is computed in this module (spec text becomes
Python only through `pyliteral`, which escapes it); the templates only lay the pieces out. The
output is then formatted by ruff in one batch, so it is byte for byte what `ruff format` keeps.
"""

from __future__ import annotations

import hashlib
import json
import re
import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolgen import boundary, formatting, snapshot, templating
from toolgen.model import Catalogue, JsonValue, Param, ReturnField, Tool
from toolgen.paths import CACHE_DIR, package_dir, toolgen_digest
from toolgen.pyliteral import py_literal, py_str
from toolgen.review import lockfile
from toolgen.toolschema import python_pattern
from toolgen.write import RenderedFiles

LINE_LENGTH = 88


# --- Python type annotations --------------------------------------------------------------

_SCALAR = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "date": "datetime.date",
    "datetime": "datetime.datetime",
}


_STDLIB = frozenset(
    {"collections", "copy", "dataclasses", "datetime", "json", "typing", "__future__"}
)


def _member_key(name: str) -> tuple[int, str]:
    # isort's order-by-type, as ruff applies it: CONSTANTS, then Classes, then functions
    if name.isupper() and len(name) > 1:
        return (0, name)
    return (1, name) if name[:1].isupper() else (2, name)


class _Imports:
    """The imports one module needs, collected while its pieces are computed, and laid
    out exactly as ruff's isort rules do (so no formatting pass has to move them)."""

    def __init__(self, first_party: Iterable[str] = ()) -> None:
        self.first_party = frozenset(first_party)
        self.modules: set[str] = set()
        self.names: dict[str, set[str]] = {}

    def module(self, name: str) -> None:
        self.modules.add(name)

    def name(self, module: str, *names: str) -> None:
        self.names.setdefault(module, set()).update(names)

    def _section(self, module: str) -> int:
        if module.startswith("."):
            return 3
        root = module.split(".")[0]
        if root in _STDLIB:
            return 0
        return 2 if root in self.first_party else 1

    def block(self) -> str:
        """Sections (stdlib, third party, first party, local) one blank line apart; in each,
        `import x` lines first, then `from x import ...`, modules in case-insensitive order."""
        sections: list[list[str]] = [[], [], [], []]
        for module in sorted(self.modules, key=str.lower):
            sections[self._section(module)].append(f"import {module}")
        for module in sorted(
            self.names,
            key=lambda m: (m.count(".") if m.startswith(".") else 0, m.lower()),
        ):
            names = ", ".join(sorted(self.names[module], key=_member_key))
            sections[self._section(module)].append(f"from {module} import {names}")
        return "\n\n".join("\n".join(lines) for lines in sections if lines)


def _first_party(catalogue: Catalogue) -> list[str]:
    # toolgen_runtime is an installed dependency in every project: third party
    return [
        catalogue.package.split(".")[0],
        catalogue.implementation.split(".")[0],
    ]


def _literal_type(values: Iterable[JsonValue], imports: _Imports) -> str:
    imports.name("typing", "Literal")
    return f"Literal[{', '.join(py_literal(v) for v in values)}]"


def _python_value(param: Param, value: JsonValue, imports: _Imports) -> str:
    """A default as the Python value the validated field holds (dates are dates)."""
    if param.type == "date" and isinstance(value, str):
        imports.module("datetime")
        return f"datetime.date.fromisoformat({py_str(value)})"
    if param.type == "datetime" and isinstance(value, str):
        imports.module("datetime")
        return f"datetime.datetime.fromisoformat({py_str(value)})"
    return py_literal(value)


def param_annotation(param: Param, imports: _Imports, *, top: bool = True) -> str:
    """The annotation of one argument field: type, constraints, alias and null handling."""
    c = param.constraints
    kwargs: list[str] = []
    metadata = []
    if param.type in ("string", "integer", "number") and c.enum is not None:
        base = _literal_type(c.enum, imports)
        if param.type != "string":
            imports.name("toolgen_runtime", "not_a_bool")
            metadata.append("not_a_bool")
    elif param.type == "datetime":
        imports.name("pydantic", "AwareDatetime")
        base = "AwareDatetime"
    elif param.type == "array":
        assert param.items is not None
        base = f"list[{param_annotation(param.items, imports, top=False)}]"
    elif param.type == "object":
        base = param.class_name
    else:
        base = _SCALAR[param.type]
        if param.type == "date":
            imports.module("datetime")
    if c.pattern is not None:
        kwargs.append(f"pattern={py_str(python_pattern(c.pattern))}")
    if c.minimum is not None:
        kwargs.append(f"ge={py_literal(c.minimum)}")
    if c.maximum is not None:
        kwargs.append(f"le={py_literal(c.maximum)}")
    low, high = (
        (c.min_items, c.max_items)
        if param.type == "array"
        else (c.min_length, c.max_length)
    )
    if low is not None:
        kwargs.append(f"min_length={low}")
    if high is not None:
        kwargs.append(f"max_length={high}")
    if top and param.aliased:
        kwargs.append(f"alias={py_str(param.name)}")
    if param.optional and not param.has_default:
        base = f"{base} | None"
    if kwargs:
        imports.name("pydantic", "Field")
        metadata.append(f"Field({', '.join(kwargs)})")
    if param.has_default:
        imports.name("toolgen_runtime", "null_means")
        metadata.append(f"null_means({_python_value(param, param.default, imports)})")
    if not metadata:
        return base
    imports.name("typing", "Annotated")
    return f"Annotated[{base}, {', '.join(metadata)}]"


def return_annotation(f: ReturnField, imports: _Imports, *, top: bool = True) -> str:
    """The annotation of one result field; a field whose Python name differs from the
    name the model reads keeps that name on the wire through its serialization alias."""
    if top and f.py_name != f.name:
        imports.name("pydantic", "Field")
        imports.name("typing", "Annotated")
        inner = return_annotation(f, imports, top=False)
        return f"Annotated[{inner}, Field(serialization_alias={py_str(f.name)})]"
    if f.enum is not None and f.type in ("string", "integer"):
        base = _literal_type(f.enum, imports)
    elif f.type == "array":
        assert f.items is not None
        base = f"list[{return_annotation(f.items, imports, top=False)}]"
    elif f.type == "object":
        base = f.class_name
    else:
        base = _SCALAR[f.type]
        if f.type in ("date", "datetime"):
            imports.module("datetime")
    return f"{base} | None" if f.optional else base


# --- views the templates lay out ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FieldView:
    name: str
    annotation: str


@dataclass(frozen=True, slots=True)
class ClassView:
    name: str
    doc: str
    fields: tuple[FieldView, ...]


def _what(element: Param | ReturnField) -> str:
    if element.type == "array":
        return f"one item of {element.name}"
    return f"the {element.name} field"


def _classes(
    elements: Sequence[Param] | Sequence[ReturnField],
    name: str,
    doc: str,
    part: str,
    annotate: Callable[[Any], FieldView],
) -> list[ClassView]:
    """The classes of one tree of arguments or return fields, nested ones first so every
    name is defined before it is used. `part` starts the docstring of a nested class."""
    classes: list[ClassView] = []
    for element in elements:
        node = element.items if element.type == "array" and element.items else element
        if node.type == "object":
            classes += _classes(
                node.properties,
                node.class_name,
                f"{part}: {_what(element)}.",
                part,
                annotate,
            )
    classes.append(ClassView(name, doc, tuple(annotate(e) for e in elements)))
    return classes


def _args_classes(tool: Tool, imports: _Imports) -> list[ClassView]:
    return _classes(
        tool.params,
        tool.py.args_class,
        f"The arguments of {tool.name}, validated before the implementation runs.",
        f"Part of the {tool.name} arguments",
        lambda p: FieldView(p.py_name, param_annotation(p, imports)),
    )


def _result_classes(tool: Tool, imports: _Imports) -> list[ClassView]:
    return _classes(
        tool.returns,
        tool.py.result_class,
        f"What {tool.name} returns on success: the model receives exactly these fields.",
        f"Part of a {tool.name} result",
        lambda f: FieldView(f.py_name, return_annotation(f, imports)),
    )


def _docstring(text: str) -> str:
    """Spec text inside a docstring, escaped so it can never end the string early: every
    backslash, every quote that touches another quote or ends the text, and every character
    that is not printable (zero-width, bidi overrides, controls) as a \\u or \\U escape."""
    escaped = re.sub(r'"(?="|$)', r'\\"', text.replace("\\", "\\\\"))
    return "".join(
        ch if ch.isprintable() or ch == "\n" else _escape(ch) for ch in escaped
    )


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def docstring(*paragraphs: str, indent: int = 0) -> str:
    """The body of a docstring: escaped paragraphs, each wrapped to the line length."""
    width = LINE_LENGTH - indent
    wrapped = []
    for index, paragraph in enumerate(p for p in paragraphs if p):
        # the first line shares its row with the opening quotes
        first = 3 if index == 0 else 0
        lines = textwrap.wrap(
            _docstring(" ".join(paragraph.split())),
            width=width,
            initial_indent=" " * first,
            break_long_words=False,
            break_on_hyphens=False,
        )
        lines[0] = lines[0][first:]
        wrapped.append(
            "\n".join(lines[:1] + [" " * indent + line for line in lines[1:]])
        )
    return ("\n\n" + " " * indent).join(wrapped)


def assignment(target: str, value: object) -> str:
    """`target = <literal>` on one line; the ruff pass that follows lays it out."""
    return f"{target} = {py_literal(value)}"


def text_block(target: str, text: str) -> str:
    """A multi-line string as parenthesized pieces, each short enough for the line length;
    the pieces concatenate back to exactly `text` (ruff joins them again if they fit)."""
    pieces: list[str] = []
    for line in text.splitlines(keepends=True):
        current = ""
        for word in re.split(r"(?<= )", line):
            if current and len(py_str(current + word)) > LINE_LENGTH - 8:
                pieces.append(current)
                current = ""
            current += word
        pieces.append(current)
    if len(pieces) == 1:
        return f"{target} = {py_str(text)}"
    body = "".join(f"    {py_str(piece)}\n" for piece in pieces)
    return f"{target} = (\n{body})"


def _hint(param: Param) -> str | None:
    """The FieldHint of one parameter, or None when there is nothing to tell. The items of
    an array of scalars share its path (the runtime drops list indexes), so what they say
    (example, pattern, choices) is told for the array's path too."""
    told = (
        param.items
        if param.items is not None and param.items.type != "object"
        else param
    )
    parts = []
    if told.has_example and told.type not in ("object", "array"):
        parts.append(f"example={py_literal(told.example)}")
    if told.constraints.pattern is not None:
        parts.append(f"pattern={py_str(told.constraints.pattern)}")
    if told.constraints.enum is not None:
        parts.append(f"one_of={py_literal(tuple(told.constraints.enum))}")
    if param.optional:
        parts.append("nullable=True")
    return f"FieldHint({', '.join(parts)})" if parts else None


def _hints(tool: Tool) -> list[tuple[str, str]]:
    """(field path, FieldHint expression) for every parameter with something to tell; paths
    are dotted and skip list indexes (parcels.weight_kg), as the runtime looks them up."""
    found: list[tuple[str, str]] = []
    stack: list[tuple[str, Param]] = [(p.name, p) for p in tool.params]
    while stack:
        path, param = stack.pop()
        hint = _hint(param)
        if hint is not None:
            found.append((path, hint))
        node = param.items if param.items is not None else param
        stack.extend((f"{path}.{q.name}", q) for q in node.properties)
    return sorted(found)


def render_tool_module(catalogue: Catalogue, tool: Tool) -> str:
    imports = _Imports(_first_party(catalogue))
    imports.name("typing", "Final")
    imports.name("pydantic", "BaseModel", "ConfigDict")
    imports.name("agents", "FunctionTool")
    imports.name("toolgen_runtime", "DeclaredError", "Invoker", "make_tool")
    imports.name("collections.abc", "Awaitable", "Callable")
    imports.name("typing", "Any")
    args_classes = _args_classes(tool, imports)
    result_classes = _result_classes(tool, imports)
    if result_classes:
        imports.name("toolgen_runtime", "result_class")
    imports.name("toolgen_runtime", "FieldHint")
    if tool.context:
        imports.name(".context", catalogue.context_class)
        imports.name("dataclasses", "dataclass")
    if tool.errors:
        imports.name("toolgen_runtime", "ToolError")
        imports.name("typing", "Literal")
    impl_module = f"{catalogue.implementation}.{tool.py.module}"
    context_fields = [
        FieldView(
            f.py_name, _SCALAR[f.type] if f.type != "datetime" else "datetime.datetime"
        )
        for f in tool.context
    ]
    if any(f.type in ("date", "datetime") for f in tool.context):
        imports.module("datetime")
    signature = [tool.py.args_class] + ([tool.py.context_class] if tool.context else [])
    return templating.render(
        "tool_module.py.jinja",
        imports=imports.block(),
        tool=tool,
        catalogue=catalogue,
        args_classes=args_classes,
        result_classes=result_classes,
        context_fields=context_fields,
        name_literal=py_str(tool.name),
        description=text_block("DESCRIPTION: Final", tool.description),
        parameters=assignment(
            "PARAMETERS: Final[dict[str, Any]]", dict(tool.parameters)
        ),
        error_codes=", ".join(py_str(e.code) for e in tool.errors),
        errors=[
            (py_str(e.code), py_str(e.how_to_fix), "True" if e.retryable else "False")
            for e in tool.errors
        ],
        hints=[(py_str(path), hint) for path, hint in _hints(tool)],
        signature=", ".join(signature),
        impl_module=impl_module,
        impl_function=tool.py.module,
        module_doc=docstring(
            f"The {tool.name} tool, generated by toolgen from {tool.file}.",
            tool.intent,
            "Do not edit: change the spec and run `toolgen build`. The business logic "
            f"lives in {package_dir(impl_module)}.py.",
        ),
    )


def tool_fingerprint(catalogue: Catalogue, tool: Tool) -> str:
    """Everything a tool's files are made from: its spec, the catalogue file, toolgen."""
    payload = {
        "tool": tool.raw,
        "file": tool.file,
        "catalogue": catalogue.origin.document.data,
        "folder": catalogue.folder,
        "toolgen": toolgen_digest(),
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _reusable(
    root: Path, manifest: dict[str, object], name: str, fp: str
) -> dict[str, str]:
    """The files of a tool as on disk, when they were made from the same inputs and nobody
    changed them since; empty when the tool must be rendered again."""
    entries = manifest.get("tools")
    entry = entries.get(name) if isinstance(entries, dict) else None
    if not isinstance(entry, dict) or entry.get("inputs") != fp:
        return {}
    found = {}
    for rel, sha in dict(entry.get("files", {})).items():
        try:
            text = (root / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return {}
        if _sha(text) != sha:
            return {}
        found[rel] = text
    return found


def _read_manifest(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def render_catalogue(catalogue: Catalogue, root: Path | None = None) -> RenderedFiles:
    """Every file of a catalogue's build, formatted.

    With `root`, a tool whose inputs did not change since the build recorded in the
    manifest (and whose files nobody edited) is not rendered again, and the stub of an
    implementation that exists is not rendered at all. Without it, everything is rendered
    (what `build --check` does, so a hand edit is always found).
    """
    pkg = package_dir(catalogue.package)
    impl = package_dir(catalogue.implementation)
    cache = f"{CACHE_DIR}/{catalogue.package}.json"
    manifest = _read_manifest(root / cache) if root is not None else {}
    owned: dict[str, str] = {}
    reused: dict[str, str] = {}
    create_once: dict[str, str] = {}
    records: dict[str, object] = {}
    for tool in catalogue.tools:
        fp = tool_fingerprint(catalogue, tool)
        paths = [f"{pkg}/{tool.py.module}.py", f"{pkg}/tests/test_{tool.py.module}.py"]
        kept = _reusable(root, manifest, tool.name, fp) if root is not None else {}
        if sorted(kept) == sorted(paths):
            reused.update(kept)
        else:
            owned[paths[0]] = render_tool_module(catalogue, tool)
            owned[paths[1]] = render_tool_tests(catalogue, tool)
        stub = f"{impl}/{tool.py.module}.py"
        if root is None or not (root / stub).exists():
            create_once[stub] = render_stub(catalogue, tool)
        records[tool.name] = {"inputs": fp, "paths": paths}
    owned[f"{pkg}/__init__.py"] = render_package_init(catalogue)
    owned[f"{pkg}/context.py"] = render_context(catalogue)
    owned[f"{pkg}/tests/__init__.py"] = templating.render(
        "tests_init.py.jinja",
        module_doc=docstring(
            f"Tests of the {catalogue.name} catalogue, generated by toolgen from "
            f"{catalogue.folder}."
        ),
    )
    owned[f"{pkg}/tests/test_catalogue.py"] = render_catalogue_tests(catalogue)
    owned[f"{pkg}/{lockfile.LOCK_NAME}"] = lockfile.text(
        snapshot.catalogue_snapshot(catalogue)
    )
    create_once.update(
        _package_markers(catalogue.package, stop=len(catalogue.package.split(".")) - 1)
    )
    create_once.update(_package_markers(catalogue.implementation))
    formatted = formatting.format_sources(
        {**owned, **create_once}, root / CACHE_DIR if root is not None else None
    )
    every = {**{p: formatted[p] for p in owned}, **reused}
    tools_manifest = {
        name: {
            "inputs": record["inputs"],  # type: ignore[index]
            "files": {p: _sha(every[p]) for p in record["paths"]},  # type: ignore[index]
        }
        for name, record in records.items()
    }
    return RenderedFiles(
        package=pkg,
        catalogue=catalogue.folder,
        owned={p: every[p] for p in sorted(every)},
        create_once={p: formatted[p] for p in sorted(create_once)},
        cache=(cache, json.dumps({"tools": tools_manifest}, indent=2, sort_keys=True)),
    )


def _package_markers(dotted: str, stop: int | None = None) -> dict[str, str]:
    """`__init__.py` for every level of a dotted package (the levels above the generated
    package, or all of the implementation package), so imports work without configuration."""
    parts = dotted.split(".")
    levels = range(1, (stop if stop is not None else len(parts)) + 1)
    return {
        "/".join(parts[:n]) + "/__init__.py": f'"""The {parts[n - 1]} package."""\n'
        for n in levels
    }


def render_package_init(catalogue: Catalogue) -> str:
    return templating.render(
        "package_init.py.jinja",
        catalogue=catalogue,
        module_doc=docstring(
            f"The {catalogue.name} tool catalogue, generated by toolgen from "
            f"{catalogue.folder}.",
            catalogue.description,
            "Do not edit. Importing the package is cheap: tool modules load when "
            "`all_tools()` or `tools(...)` is called, implementations on a tool's first "
            "call.",
        ),
        modules=[t.py.module for t in catalogue.tools],
        names=", ".join(py_str(t.name) for t in catalogue.tools),
        name_modules=[(py_str(t.name), py_str(t.py.module)) for t in catalogue.tools],
        context_class_literal=py_str(catalogue.context_class),
    )


def render_context(catalogue: Catalogue) -> str:
    fields = [
        FieldView(
            f.py_name, _SCALAR[f.type] if f.type != "datetime" else "datetime.datetime"
        )
        for f in catalogue.context
    ]
    return templating.render(
        "context.py.jinja",
        catalogue=catalogue,
        module_doc=docstring(
            f"The run context of the {catalogue.name} catalogue, generated by toolgen from "
            f"{catalogue.origin.file}.",
            "Do not edit. The application builds one per run and passes it as "
            "`Runner.run(agent, input, context=...)`; each tool receives only the fields its "
            "contract lists, and the model never sees any of them.",
        ),
        fields=fields,
        docs={f.py_name: _docstring(f.description) for f in catalogue.context},
        needs_datetime=any(f.type in ("date", "datetime") for f in catalogue.context),
    )


def render_stub(catalogue: Catalogue, tool: Tool) -> str:
    imports = _Imports(_first_party(catalogue))
    generated = f"{catalogue.package}.{tool.py.module}"
    imports.name(generated, tool.py.args_class, tool.py.result_class)
    if tool.context:
        imports.name(generated, tool.py.context_class)
    imports.name("toolgen_runtime", "NotImplementedYet")
    return templating.render(
        "impl_stub.py.jinja",
        catalogue=catalogue,
        tool=tool,
        imports=imports.block(),
        module_doc=docstring(
            f"The business logic of {tool.name}: {tool.intent}",
            "toolgen created this file once and never overwrites it: it is yours. The "
            "generated module validates the arguments before this function runs, and turns "
            "what it returns or raises into what the model receives.",
        ),
        function_doc=docstring(tool.intent, indent=4),
        errors=[(e.code, _docstring(e.when)) for e in tool.errors],
        returns=[(f.name, _docstring(f.description)) for f in tool.returns],
        context_names=[f.name for f in tool.context],
        name_literal=py_str(tool.name),
        path_literal=py_str(
            package_dir(f"{catalogue.implementation}.{tool.py.module}") + ".py"
        ),
    )


def render_tool_tests(catalogue: Catalogue, tool: Tool) -> str:
    rejected = [
        (
            f"example {index + 1}" + (f": {e.note}" if e.note else ""),
            dict(e.args),
            e.rejected_on,
        )
        for index, e in enumerate(tool.examples)
        if e.rejected_on is not None
    ]
    cases = [(c.label, c.args, c.field) for c in boundary.cases(tool)]
    kind = "list[tuple[str, dict[str, Any], str]]"
    imports = _Imports(_first_party(catalogue))
    imports.module("copy")
    if boundary.needs_datetime(tool) or boundary.context_needs_datetime(catalogue):
        imports.module("datetime")
    imports.name("typing", "Any")
    imports.module("pytest")
    imports.name("agents.strict_schema", "ensure_strict_json_schema")
    imports.name(catalogue.package, f"{tool.py.module} as module")
    imports.name(f"{catalogue.package}.context", catalogue.context_class)
    imports.name("toolgen_runtime", "ContractViolation", "ToolError", "UndeclaredError")
    imports.name(
        "toolgen_runtime.testing",
        "Recorder",
        "invoke",
        "invoke_raw",
        "problem_fields",
        "schema_keywords",
    )
    return templating.render(
        "test_tool.py.jinja",
        imports=imports.block(),
        catalogue=catalogue,
        tool=tool,
        module_doc=docstring(
            f"Tests of the {tool.name} contract, generated by toolgen from {tool.file}.",
            "Do not edit. They check the contract layer (schema, validation, envelopes) "
            "with a recording fake in place of the implementation.",
        ),
        name_literal=py_str(tool.name),
        needs_datetime=boundary.needs_datetime(tool)
        or boundary.context_needs_datetime(catalogue),
        sample_context=boundary.sample_context_expression(catalogue),
        sample_result=boundary.sample_result_expression(tool, "module."),
        sample_json=assignment(
            "SAMPLE_JSON: dict[str, Any]", boundary.sample_result_json(tool)
        ),
        accepted=assignment(
            "ACCEPTED: list[dict[str, Any]]",
            [dict(e.args) for e in tool.accepted_examples],
        ),
        rejected=assignment(f"REJECTED: {kind}", rejected),
        boundary=assignment(f"BOUNDARY: {kind}", cases),
        property_names=py_literal(sorted(p.name for p in tool.params)),
        context_names=py_literal([f.name for f in tool.context]),
        errors=[
            (py_str(e.code), py_str(e.how_to_fix), "True" if e.retryable else "False")
            for e in tool.errors
        ],
    )


def render_catalogue_tests(catalogue: Catalogue) -> str:
    calls = [
        (
            t.py.module,
            py_str(t.name),
            boundary.sample_result_expression(t, f"{t.py.module}."),
            py_literal(dict(t.accepted_examples[0].args))
            if t.accepted_examples
            else "{}",
            py_str(f"call-{t.py.module}"),
        )
        for t in catalogue.tools
    ]
    imports = _Imports(_first_party(catalogue))
    if any(boundary.needs_datetime(t) for t in catalogue.tools) or (
        boundary.context_needs_datetime(catalogue)
    ):
        imports.module("datetime")
    imports.module("json")
    imports.name("agents", "Agent", "RunConfig", "Runner", "Tool")
    imports.name("agents.items", "ToolCallOutputItem")
    imports.name(
        "agents.testing", "ScriptedModel", "assistant_message", "function_call"
    )
    imports.module("pytest")
    imports.name(
        catalogue.package,
        "TOOL_NAMES",
        "all_tools",
        "tools",
        *(t.py.module for t in catalogue.tools),
    )
    imports.name(f"{catalogue.package}.context", catalogue.context_class)
    imports.name("toolgen_runtime.testing", "Recorder")
    return templating.render(
        "test_catalogue.py.jinja",
        imports=imports.block(),
        catalogue=catalogue,
        module_doc=docstring(
            f"Tests of the {catalogue.name} catalogue as a whole, generated by toolgen from "
            f"{catalogue.folder}.",
            "Do not edit. One run of every tool through the real Agents SDK Runner, with a "
            "scripted model and recording fakes as implementations.",
        ),
        modules=[t.py.module for t in catalogue.tools],
        calls=calls,
        agent_name=py_str(catalogue.name),
        needs_datetime=any(boundary.needs_datetime(t) for t in catalogue.tools)
        or boundary.context_needs_datetime(catalogue),
        sample_context=boundary.sample_context_expression(catalogue),
        names=py_literal(sorted(t.name for t in catalogue.tools)),
    )
