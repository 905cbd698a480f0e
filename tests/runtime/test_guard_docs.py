"""docs/boundaries.md is tested: its examples run, its outputs are what the code prints, and
its tables of codes are the runtime's table, word for word.

Blocks, by info string (as in tests/test_docs.py for docs/runtime.md):
- ```` ```python run ````: executed in order, in one namespace; what it prints must equal the
  ```` ```text output ```` or ```` ```json output ```` block right after it;
- ```` ```python file=PATH ````: a verbatim excerpt of a file of this repository;
- ```` ```python sketch ```` and ```` ```console ````: shown, not run.

To accept a deliberate change of the outputs: UPDATE_DOCS=1 pytest tests/runtime/test_guard_docs.py
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolgen_runtime.guards import CODES

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "boundaries.md"
UPDATE = os.environ.get("UPDATE_DOCS") == "1"
FENCE = re.compile(r"^```(.*)$")


@dataclass(frozen=True, slots=True)
class Block:
    line: int  # the opening fence, 1-based
    end: int  # the closing fence, 1-based
    info: str
    text: str


def blocks() -> list[Block]:
    lines = DOC.read_text(encoding="utf-8").splitlines(keepends=True)
    found: list[Block] = []
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
        assert index < len(lines), f"boundaries.md:{start + 1}: unclosed block"
        body = "".join(lines[start + 1 : index])
        found.append(Block(start + 1, index + 1, match.group(1).strip(), body))
        index += 1
    return found


def rewrite(replacements: dict[int, str]) -> None:
    lines = DOC.read_text(encoding="utf-8").splitlines(keepends=True)
    for block in sorted(blocks(), key=lambda b: -b.line):
        if block.line in replacements:
            lines[block.line : block.end - 1] = replacements[block.line].splitlines(
                keepends=True
            )
    DOC.write_text("".join(lines), encoding="utf-8")


def test_the_examples_run_and_show_what_the_code_prints() -> None:
    namespace: dict[str, Any] = {"__name__": "boundaries_doc"}
    problems: list[str] = []
    expected: dict[int, str] = {}
    printed: tuple[Block, str] | None = None
    for block in blocks():
        if block.info == "python run":
            if printed is not None and printed[1]:
                problems.append(
                    f"line {printed[0].line}: prints output the doc does not show"
                )
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                # dont_inherit: this module's `from __future__ import annotations` would
                # turn the examples' annotations into strings pydantic cannot resolve
                where = f"boundaries.md:{block.line}"
                exec(compile(block.text, where, "exec", dont_inherit=True), namespace)
            printed = (block, out.getvalue())
        elif block.info in ("text output", "json output"):
            assert printed is not None, f"line {block.line}: no python run block above"
            expected[block.line] = printed[1]
            if printed[1] != block.text and not UPDATE:
                problems.append(
                    f"line {block.line}: the doc shows\n{block.text}\nbut the code prints\n"
                    f"{printed[1]}"
                )
            printed = None
        elif block.info.startswith("python file="):
            path = ROOT / block.info.split("=", 1)[1]
            if block.text.strip("\n") not in path.read_text(encoding="utf-8"):
                problems.append(
                    f"line {block.line}: not a verbatim excerpt of {path.name}"
                )
        elif block.info not in ("python sketch", "console", "text", "json"):
            problems.append(f"line {block.line}: unknown block {block.info!r}")
    if printed is not None and printed[1]:
        problems.append(f"line {printed[0].line}: prints output the doc does not show")
    if UPDATE:
        rewrite(expected)
    assert not problems, "\n\n".join(problems)


CODE_TABLE_HEADER = "| code | reported when | the model reads (how_to_fix) |"
ROW = re.compile(r"^\| `([a-z_]+)` \| (.+?) \| (.+?) \|$")


def test_every_code_is_documented_with_its_words() -> None:
    rows: dict[str, tuple[str, str]] = {}
    in_table = False
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line == CODE_TABLE_HEADER:
            in_table = True
        elif in_table and not line.startswith("|"):
            in_table = False
        elif in_table and not line.startswith("| ---"):
            match = ROW.match(line)
            assert match, f"not a row of a code table: {line}"
            assert match.group(1) not in rows, f"{match.group(1)} is documented twice"
            rows[match.group(1)] = (match.group(2), match.group(3))
    assert set(rows) == set(CODES), (
        f"undocumented: {sorted(set(CODES) - set(rows))}; "
        f"not codes: {sorted(set(rows) - set(CODES))}"
    )
    for code, (meaning, how_to_fix) in rows.items():
        assert meaning == CODES[code].meaning, f"{code}: the meaning differs from CODES"
        assert how_to_fix == CODES[code].how_to_fix, f"{code}: the how-to-fix differs"


REASON_TABLE_HEADER = "| reason | when (`toolgen_runtime.guards.fetch.REASONS`) |"
REASON_ROW = re.compile(r"^\| `([a-z_]+)` \| (.+?) \|$")


def test_every_reason_of_fetch_is_documented_with_its_words() -> None:
    from toolgen_runtime.guards.fetch import REASONS

    lines = DOC.read_text(encoding="utf-8").splitlines()
    start = lines.index(REASON_TABLE_HEADER) + 2
    rows: dict[str, str] = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        match = REASON_ROW.match(line)
        assert match, f"not a row of the reasons table: {line}"
        rows[match.group(1)] = match.group(2)
    assert rows == dict(REASONS)
