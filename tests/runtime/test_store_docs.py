"""docs/writes.md is tested: its code runs, its outputs are what the code prints, and its table
of token error codes is the one the code has.

The blocks follow the conventions of tests/test_docs.py: ```` ```python run ```` blocks run in
order in one namespace, and what each prints must equal the ```` ```text output ```` or
```` ```json output ```` block right after it; ```` ```console ```` blocks are not run.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass
from pathlib import Path

from toolgen_runtime.confirm import TOKEN_ERROR_CODES

DOC = Path(__file__).resolve().parents[2] / "docs" / "writes.md"
KNOWN = {"python run", "text output", "json output", "console", "text"}


@dataclass(frozen=True)
class Block:
    line: int
    info: str
    text: str


def blocks() -> list[Block]:
    found: list[Block] = []
    lines = DOC.read_text(encoding="utf-8").splitlines(keepends=True)
    index = 0
    while index < len(lines):
        match = re.match(r"^```(.*)$", lines[index].rstrip("\n"))
        if match is None:
            index += 1
            continue
        start = index
        index += 1
        while index < len(lines) and lines[index].rstrip("\n") != "```":
            index += 1
        assert index < len(lines), f"writes.md:{start + 1}: the block is never closed"
        found.append(
            Block(start + 1, match.group(1).strip(), "".join(lines[start + 1 : index]))
        )
        index += 1
    return found


def test_the_examples_run_and_print_what_the_doc_shows() -> None:
    namespace: dict[str, object] = {"__name__": "writes_doc"}
    problems = []
    printed: tuple[Block, str] | None = None
    for block in blocks():
        assert block.info in KNOWN, (
            f"writes.md:{block.line}: unknown block {block.info!r}"
        )
        if block.info == "python run":
            if printed is not None and printed[1]:
                problems.append(
                    f"writes.md:{printed[0].line}: prints what is not shown"
                )
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(block.text, f"writes.md:{block.line}", "exec"), namespace)
            printed = (block, out.getvalue())
        elif block.info in ("text output", "json output"):
            assert printed is not None, f"writes.md:{block.line}: no python run above"
            if printed[1] != block.text:
                problems.append(
                    f"writes.md:{block.line}: the doc shows\n{block.text}\n"
                    f"but the code prints\n{printed[1]}"
                )
            printed = None
    assert printed is None or not printed[1], "the last block prints what is not shown"
    assert not problems, "\n\n".join(problems)


def test_the_token_code_table_is_the_codes_in_their_order() -> None:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Token error codes", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(token_[a-z_]+)` \|", section, re.MULTILINE)
    assert rows == list(TOKEN_ERROR_CODES)
