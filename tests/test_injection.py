"""Spec text is data, never code: hostile text in every string of a spec reaches the
generated Python only as escaped literals. The generated files parse, import without running
anything, carry the text back unchanged, and their own tests pass.

Lint is skipped here on purpose (it would rightly flag this spec): the subject is rendering.
"""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from loading import build_model, load_catalogue, render, run_checks, validate

from toolgen.build import pipeline
from toolgen.build.write import write_outputs

PAYLOAD = (
    'x"""\'\'\'"); import os; os.system("touch PWNED")  # \\ {{ 7*7 }} {% raw %}'
    '\u202eevil\u200b \U000e0041 end"'
)


def yaml_str(text: str) -> str:
    return json.dumps(
        text, ensure_ascii=False
    )  # a JSON string is a YAML double-quoted scalar


def write_spec(root: Path) -> Path:
    folder = root / "spec" / "hostile"
    (folder / "tools").mkdir(parents=True)
    p = yaml_str(PAYLOAD)
    pattern = yaml_str('^["\\\\]"$|^x$')
    (folder / "catalogue.yaml").write_text(
        f"format: 1\nname: hostile\ndescription: {p}\n"
        "package: hostile_generated.hostile\nimplementation: hostile_impl.hostile\n"
        f"context:\n  run_id: {{type: string, description: {p}}}\n"
    )
    (folder / "tools" / "echo_text.yaml").write_text(
        f"""name: echo_text
intent: {p}
use_when: {p}
not_when:
  - when: {p}
    use: other_tool
effect: read
params:
  text:
    type: string
    description: {p}
    enum: [{p}, plain]
    example: {p}
  mode:
    type: string
    pattern: {pattern}
    default: x
    description: {p}
context: [run_id]
returns:
  echoed: {{type: string, description: {p}}}
errors:
  refused:
    when: {p}
    how_to_fix: {p}
examples:
  - args: {{text: {p}, mode: null}}
    note: {p}
  - args: {{text: "nope", mode: null}}
    rejected_on: text
    note: {p}
"""
    )
    (folder / "tools" / "other_tool.yaml").write_text(
        "name: other_tool\nintent: Do the other thing.\neffect: read\n"
        "examples:\n  - args: {}\n"
    )
    return folder


@pytest.mark.slow
def test_hostile_text_stays_data(tmp_path: Path) -> None:
    folder = write_spec(tmp_path)
    loaded = load_catalogue(folder, "spec/hostile")
    checked = validate(loaded)
    built = build_model(
        checked.catalogue,
        checked.tools,
        folder="spec/hostile",
        broken_tools=checked.broken,
    )
    assert built.catalogue is not None
    found = run_checks(built.catalogue)
    assert [
        d.format_text()
        for d in [*loaded.diagnostics, *checked.diagnostics, *built.diagnostics, *found]
    ] == []
    # the lint findings of the hostile text (hidden characters) stop a build, not render
    result = pipeline.check_catalogue(folder, tmp_path, implementations=False)
    rendered = render(result)
    assert rendered is not None
    write_outputs(rendered, tmp_path)

    for path in tmp_path.rglob("*.py"):
        ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("hostile_generated.hostile.echo_text")
        assert " ".join(PAYLOAD.split()) in module.DESCRIPTION  # spaces are normalised
        assert module.PARAMETERS["properties"]["text"]["enum"] == [PAYLOAD, "plain"]
        assert module.ERRORS["refused"].how_to_fix == PAYLOAD
    finally:
        sys.path.remove(str(tmp_path))
        for name in [
            m
            for m in sys.modules
            if m.startswith(("hostile_generated", "hostile_impl"))
        ]:
            del sys.modules[name]
    assert not (tmp_path / "PWNED").exists()
    assert not Path("PWNED").exists()

    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "hostile_generated"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert tests.returncode == 0, tests.stdout[-3000:]
    assert not (tmp_path / "PWNED").exists()
