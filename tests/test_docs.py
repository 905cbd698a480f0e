"""The docs are tested: every example in docs/spec.md and docs/runtime.md goes through the real
pipeline or the real runtime, and every output they show is compared with what the code gives.

Each fenced block of the docs carries an info string that says what it is.

docs/spec.md
- ```` ```yaml catalogue ```` / ```` ```yaml catalogue-fails TG140 ````: a catalogue.yaml,
  checked with one minimal tool. The first `yaml catalogue` block is also the catalogue every
  tool block is checked in.
- ```` ```yaml tool ```` / ```` ```yaml tool-fails TG122 [TG...] ````: a tool file, checked in
  that catalogue next to a minimal tool for each tool name of spec/inventory (so `requires:
  [read_stock]` resolves); `file=NAME.yaml` sets the file name (default: the tool's name). A
  passing block must have no diagnostic and is also built; a failing block must report exactly
  the stated ids.
- ```` ```text description ````, ```` ```json exposed ````: the description and the parameter
  schema the model sees for the tool block above, compared exactly.
- ```` ```text diagnostics ````: what `toolgen check` prints for the yaml block above.
- ```` ```python module ````, ```` ```python stub ````: verbatim excerpts of the generated
  module and of the `_impl` stub of the tool block above.
- ```` ```python file=PATH ````: a verbatim excerpt of a file of this repository.
- ```` ```text files ````: the files a build of spec/inventory writes (first word of each line).
- ```` ```yaml fragment ````: not checked against the format, only parsed (no diagnostics).
- ```` ```console ````: commands to type; not run.

docs/runtime.md
- ```` ```python run ````: executed in order, in one namespace; what a block prints must equal
  the ```` ```text output ```` or ```` ```json output ```` block right after it.
- ```` ```python file=PATH ```` and ```` ```console ```` as above.

Lint ids (TG200 and up) are ignored: lint rules have their own tests and are still growing.
The tables of keys and of diagnostic ids in docs/spec.md are compared with the JSON Schemas and
with the ids the code reports, so a new key or id cannot stay undocumented.

To accept a deliberate change of the outputs: UPDATE_DOCS=1 pytest tests/test_docs.py
(rewrites the description, exposed, diagnostics and output blocks; excerpts stay by hand).
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from loading import render

from toolgen.build import pipeline
from toolgen.build.write import RenderedFiles
from toolgen.codes import CODES
from toolgen.diagnostics import Diagnostic
from toolgen.lint.registry import all_rules
from toolgen.spec.ir import Tool
from toolgen.spec.load import load_document

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SPEC_DOC = DOCS / "spec.md"
RUNTIME_DOC = DOCS / "runtime.md"
EXAMPLE_TOOLS = ROOT / "spec" / "inventory" / "tools"
SCHEMAS = ROOT / "generator" / "toolgen" / "spec" / "schemas"
UPDATE = os.environ.get("UPDATE_DOCS") == "1"
LINT_FROM = 200  # TG200 and up are lint rules


# --- reading the fenced blocks -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Block:
    doc: Path
    line: int  # the opening fence, 1-based
    end: int  # the closing fence, 1-based
    info: str
    text: str  # the body, every line ending with a newline

    @property
    def lang(self) -> str:
        return self.info.split()[0] if self.info.split() else ""

    @property
    def words(self) -> list[str]:
        return self.info.split()[1:]

    @property
    def role(self) -> str:
        words = [w for w in self.words if "=" not in w]
        return words[0] if words else ""

    @property
    def ids(self) -> list[str]:
        return [w for w in self.words if re.fullmatch(r"TG\d{3}", w)]

    def option(self, key: str) -> str | None:
        for word in self.words:
            if word.startswith(key + "="):
                return word.split("=", 1)[1]
        return None

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


FENCE = re.compile(r"^```(.*)$")


def parse_blocks(doc: Path) -> list[Block]:
    lines = doc.read_text(encoding="utf-8").splitlines(keepends=True)
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index].rstrip("\n"))
        if match is None:
            index += 1
            continue
        start = index
        index += 1
        while index < len(lines) and lines[index].rstrip("\n") != "```":
            index += 1
        if index == len(lines):
            raise AssertionError(
                f"{doc.name}:{start + 1}: the fenced block is never closed"
            )
        blocks.append(
            Block(
                doc,
                start + 1,
                index + 1,
                match.group(1).strip(),
                "".join(lines[start + 1 : index]),
            )
        )
        index += 1
    return blocks


def rewrite(doc: Path, replacements: dict[int, str]) -> None:
    """Replace the bodies of the blocks opening at the given lines (UPDATE_DOCS=1)."""
    lines = doc.read_text(encoding="utf-8").splitlines(keepends=True)
    for block in sorted(parse_blocks(doc), key=lambda b: -b.line):
        if block.line in replacements:
            body = replacements[block.line]
            lines[block.line : block.end - 1] = body.splitlines(keepends=True)
    doc.write_text("".join(lines), encoding="utf-8")


# --- checking spec.md ---------------------------------------------------------------------


def example_tool_names() -> list[str]:
    return sorted(p.stem for p in EXAMPLE_TOOLS.glob("*.yaml"))


def minimal_tool(name: str) -> str:
    return (
        f"name: {name}\n"
        "intent: A tool of the example catalogue.\n"
        "effect: read\n"
        "examples:\n"
        "  - args: {}\n"
    )


def declared_name(block: Block) -> str:
    """The tool's `name:`, which also names its file unless the block says file=NAME.yaml."""
    match = re.search(r"^name:\s*['\"]?([A-Za-z0-9_-]+)", block.text, re.MULTILINE)
    assert match, f"{block.where}: a tool block needs a name: line"
    return match.group(1)


def early(diagnostics: tuple[Diagnostic, ...]) -> list[Diagnostic]:
    """The diagnostics of the format and the model (not lint)."""
    return [d for d in diagnostics if int(d.code[2:]) < LINT_FROM]


@dataclass
class Built:
    """What the last yaml block of spec.md gave."""

    diagnostics: list[Diagnostic]
    tool: Tool | None = None
    files: RenderedFiles | None = None


@dataclass
class SpecReport:
    # by the line of the block: what is wrong with it
    problems: dict[int, list[str]] = field(default_factory=dict)
    # by the line of an output block: the body the code produces
    expected: dict[int, str] = field(default_factory=dict)

    def fail(self, block: Block, message: str) -> None:
        self.problems.setdefault(block.line, []).append(f"{block.where}: {message}")


def check_catalogue_folder(
    root: Path, catalogue: str, tools: dict[str, str]
) -> pipeline.CheckResult:
    folder = root / "spec" / "inventory"
    (folder / "tools").mkdir(parents=True)
    (folder / "catalogue.yaml").write_text(catalogue, encoding="utf-8")
    for file_name, text in tools.items():
        (folder / "tools" / file_name).write_text(text, encoding="utf-8")
    return pipeline.check_catalogue(folder, root, implementations=False)


def expect_ids(report: SpecReport, block: Block, found: list[Diagnostic]) -> None:
    got = sorted({d.code for d in found})
    if block.role.endswith("-fails"):
        if not block.ids:
            report.fail(block, f"{block.role} needs the ids it must report")
        elif got != sorted(set(block.ids)):
            shown = "; ".join(f"{d.code} {d.message}" for d in found) or "nothing"
            report.fail(block, f"expected {sorted(set(block.ids))}, got: {shown}")
    elif found:
        shown = "; ".join(f"{d.span}: {d.code} {d.message}" for d in found)
        report.fail(block, f"expected no diagnostics, got: {shown}")


def excerpt(report: SpecReport, block: Block, text: str | None, what: str) -> None:
    if text is None:
        report.fail(block, f"there is no {what} to compare with")
    elif block.text.strip("\n") not in text:
        report.fail(block, f"this is not a verbatim excerpt of {what}")


@functools.cache
def spec_report() -> SpecReport:
    blocks = parse_blocks(SPEC_DOC)
    report = SpecReport()
    catalogues = [b for b in blocks if b.info == "yaml catalogue"]
    assert catalogues, "spec.md needs a `yaml catalogue` block for its tool examples"
    harness = catalogues[0].text
    last: Built | None = None
    with tempfile.TemporaryDirectory() as tmp:
        for number, block in enumerate(blocks):
            root = Path(tmp) / f"block{number}"
            if block.lang == "yaml":
                last = check_yaml_block(report, block, root, harness)
            elif block.info in ("text description", "json exposed"):
                if last is None or last.tool is None:
                    report.fail(block, "no passing tool block above to compare with")
                    continue
                if block.info == "text description":
                    real = last.tool.description + "\n"
                else:
                    real = json.dumps(
                        last.tool.parameters, indent=2, ensure_ascii=False
                    )
                    real += "\n"
                report.expected[block.line] = real
            elif block.info == "text diagnostics":
                if last is None:
                    report.fail(block, "no yaml block above to compare with")
                    continue
                real = "".join(d.format_text() + "\n" for d in last.diagnostics)
                report.expected[block.line] = real
            elif block.info in ("python module", "python stub"):
                tool = last.tool if last else None
                files = last.files if last else None
                if tool is None or files is None:
                    report.fail(block, "no built tool block above to compare with")
                    continue
                if block.info == "python module":
                    text = files.owned.get(f"generated/inventory/{tool.py.module}.py")
                else:
                    text = files.create_once.get(f"impl/inventory/{tool.py.module}.py")
                excerpt(report, block, text, block.info.split()[1])
            else:
                check_common_block(report, block)
    if UPDATE:
        rewrite(SPEC_DOC, report.expected)
    return report


def check_yaml_block(
    report: SpecReport, block: Block, root: Path, harness: str
) -> Built | None:
    if block.role == "fragment":
        path = root / "fragment.yaml"
        path.parent.mkdir(parents=True)
        path.write_text(block.text, encoding="utf-8")
        _, found = load_document(path, "fragment.yaml")
        if found:
            report.fail(block, "the fragment is not valid YAML: " + found[0].message)
        return None
    if block.role in ("catalogue", "catalogue-fails"):
        result = check_catalogue_folder(
            root, block.text, {"read_stock.yaml": minimal_tool("read_stock")}
        )
        found = early(result.diagnostics)
        expect_ids(report, block, found)
        return Built(found)
    if block.role in ("tool", "tool-fails"):
        name = declared_name(block)
        file_name = block.option("file") or f"{name}.yaml"
        taken = {name, file_name.rsplit(".", 1)[0]}
        tools = {
            f"{other}.yaml": minimal_tool(other)
            for other in example_tool_names()
            if other not in taken
        }
        tools[file_name] = block.text
        result = check_catalogue_folder(root, harness, tools)
        found = early(result.diagnostics)
        expect_ids(report, block, found)
        built = Built(found)
        if block.role == "tool" and not found and result.catalogue is not None:
            # lint errors (ignored here) would stop a build: render directly
            built.tool = next(
                (t for t in result.catalogue.tools if t.name == name), None
            )
            built.files = render(result)
        return built
    report.fail(block, f"unknown yaml block {block.info!r}")
    return None


def check_common_block(report: SpecReport, block: Block) -> None:
    """Blocks both documents may hold: repository excerpts, the file list, commands."""
    path = block.option("file")
    if block.lang == "python" and path is not None:
        target = ROOT / path
        text = target.read_text(encoding="utf-8") if target.is_file() else None
        excerpt(report, block, text, path)
    elif block.info == "text files":
        shown = {line.split()[0] for line in block.text.splitlines() if line.strip()}
        result = pipeline.check_catalogue(ROOT / "spec" / "inventory", ROOT)
        assert result.catalogue is not None, "spec/inventory does not check"
        files = render(result)
        assert files is not None
        real = set(files.owned) | set(files.create_once)
        if shown != real:
            report.fail(
                block,
                f"missing {sorted(real - shown)}, not written {sorted(shown - real)}",
            )
    elif block.info != "console":
        report.fail(
            block, f"unknown block {block.info!r}: mark it (see tests/test_docs.py)"
        )


def _block_id(block: Block) -> str:
    return f"L{block.line}-{block.info.replace(' ', '-')}"


SPEC_BLOCKS = parse_blocks(SPEC_DOC) if SPEC_DOC.exists() else []


@pytest.mark.parametrize("block", SPEC_BLOCKS, ids=_block_id)
def test_spec_block(block: Block) -> None:
    report = spec_report()
    problems = list(report.problems.get(block.line, []))
    real = report.expected.get(block.line)
    if real is not None and real != block.text and not UPDATE:
        problems.append(
            f"{block.where}: the doc shows\n{block.text}\nbut the code gives\n{real}"
            "(UPDATE_DOCS=1 pytest tests/test_docs.py rewrites it)"
        )
    assert not problems, "\n".join(problems)


def test_spec_has_checked_examples() -> None:
    roles = {b.info.split()[0] + " " + b.role for b in SPEC_BLOCKS}
    for wanted in ("yaml tool", "yaml tool-fails", "yaml catalogue", "json exposed"):
        assert wanted in roles, f"spec.md has no {wanted} block"


# --- every key and every id is documented ---------------------------------------------------


def _schema(kind: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        (SCHEMAS / f"{kind}.v1.json").read_text(encoding="utf-8")
    )
    return loaded


def _at(schema: dict[str, Any], *path: str) -> set[str]:
    node: Any = schema
    for part in path:
        node = node[part]
    return set(node["properties"])


# heading of a key table in spec.md -> the keys the schema defines there
KEY_TABLES = {
    "Catalogue keys": lambda: _at(_schema("catalogue")),
    "Context field keys": lambda: _at(
        _schema("catalogue"), "properties", "context", "additionalProperties"
    ),
    "Budget keys": lambda: _at(_schema("catalogue"), "properties", "budget"),
    "Lint keys": lambda: _at(_schema("catalogue"), "properties", "lint"),
    "Tests keys": lambda: _at(_schema("catalogue"), "properties", "tests"),
    "Namespace keys": lambda: _at(
        _schema("catalogue"), "properties", "namespaces", "additionalProperties"
    ),
    "Toolset keys": lambda: _at(
        _schema("catalogue"), "properties", "toolsets", "additionalProperties"
    ),
    "Tool keys": lambda: _at(_schema("tool")),
    "Timeout keys": lambda: _at(_schema("tool"), "properties", "timeout"),
    "not_when keys": lambda: _at(_schema("tool"), "properties", "not_when", "items"),
    "Param keys": lambda: _at(_schema("tool"), "$defs", "param"),
    "Return field keys": lambda: _at(_schema("tool"), "$defs", "field"),
    "Error keys": lambda: _at(
        _schema("tool"), "properties", "errors", "additionalProperties"
    ),
    "Example keys": lambda: _at(_schema("tool"), "properties", "examples", "items"),
    "suppress keys": lambda: _at(_schema("tool"), "properties", "suppress", "items"),
}


def _sections(doc: Path) -> dict[str, list[str]]:
    """The lines under each heading, by heading text (without the #s)."""
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    fenced = False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if line.startswith("#") and not fenced:
            current = sections.setdefault(line.lstrip("#").strip(), [])
        else:
            current.append(line)
    return sections


@pytest.mark.parametrize("heading", sorted(KEY_TABLES))
def test_every_schema_key_has_a_row(heading: str) -> None:
    sections = _sections(SPEC_DOC)
    assert heading in sections, f"spec.md has no heading {heading!r}"
    rows = {
        key
        for line in sections[heading]
        if line.startswith("| `")
        for key in re.findall(r"`([a-z_]+)`", line.split("|")[1])
    }
    assert rows == KEY_TABLES[heading](), f"the {heading} table and the schema differ"


def _ids_in_code() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "generator" / "toolgen").rglob("*.py"):
        inside = path.relative_to(ROOT / "generator" / "toolgen")
        if "lint" in inside.parts or inside.name == "codes.py":  # the table itself
            continue
        found |= set(re.findall(r"\"(TG\d{3})\"", path.read_text(encoding="utf-8")))
    return {i for i in found if int(i[2:]) < LINT_FROM}


def test_every_code_the_checks_report_is_in_the_table_and_nothing_else() -> None:
    """The table (codes.py) is what docs/codes.md and SARIF are generated from: every id the
    code reports must be in it, and it must not list ids nothing reports."""
    in_code = _ids_in_code()
    all_rules()
    in_table = {c for c in CODES if int(c[2:]) < LINT_FROM}
    assert in_code == in_table, (
        f"not in the table: {sorted(in_code - in_table)}; in the table but reported by "
        f"nothing: {sorted(in_table - in_code)}"
    )


# --- running runtime.md ------------------------------------------------------------------


@contextlib.contextmanager
def _example_project() -> Iterator[None]:
    """Import generated.inventory and impl.inventory from the project root, and leave no
    trace: the database is closed, and the modules and the path entry are dropped again, so a
    later test can import a `generated` package of its own."""
    modules = set(sys.modules)
    added = str(ROOT) not in sys.path
    if added:
        sys.path.insert(0, str(ROOT))
    try:
        yield
    finally:
        db = sys.modules.get("impl.inventory.db")
        if db is not None:
            db.close_database()
        for name in set(sys.modules) - modules:
            if name.split(".")[0] in ("generated", "impl"):
                del sys.modules[name]
        if added:
            sys.path.remove(str(ROOT))


def test_runtime_doc_runs_and_shows_real_outputs() -> None:
    blocks = parse_blocks(RUNTIME_DOC)
    namespace: dict[str, Any] = {"__name__": "runtime_doc"}
    report = SpecReport()
    printed: tuple[Block, str] | None = None
    with _example_project():
        for block in blocks:
            if block.info == "python run":
                if printed is not None and printed[1]:
                    report.fail(printed[0], "prints output the doc does not show")
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    code = compile(block.text, block.where, "exec")
                    exec(code, namespace)
                printed = (block, out.getvalue())
            elif block.info in ("text output", "json output"):
                if printed is None:
                    report.fail(block, "no python run block right above it")
                    continue
                report.expected[block.line] = printed[1]
                printed = None
            else:
                check_common_block(report, block)
    if printed is not None and printed[1]:
        report.fail(printed[0], "prints output the doc does not show")
    problems = [p for found in report.problems.values() for p in found]
    if UPDATE:
        rewrite(RUNTIME_DOC, report.expected)
        blocks = []
    for block in blocks:
        real = report.expected.get(block.line)
        if real is not None and real != block.text:
            problems.append(
                f"{block.where}: the doc shows\n{block.text}\nbut the code prints\n{real}"
                "(UPDATE_DOCS=1 pytest tests/test_docs.py rewrites it)"
            )
    assert not problems, "\n\n".join(problems)
