"""`toolgen import --from openapi` and `--from pyfunctions`: the examples of their how-tos are
what the import writes, and what the sources state is carried exactly."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from toolgen import cli
from toolgen.build import pipeline
from toolgen.interop.importers import SourceError, read_path, read_source
from toolgen.interop.importers.draft import draft

ROOT = Path(__file__).resolve().parents[2]


def _blocks(doc: str, kind: str) -> dict[str, str]:
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    found = re.findall(rf"```{kind} (\S+)\n(.*?)```", text, re.DOTALL)
    return dict(found)


def _block(doc: str, kind: str) -> str:
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    found = re.search(rf"```{kind}\n(.*?)```", text, re.DOTALL)
    assert found, kind
    return found.group(1)


def _check_written(out: Path, doc: str) -> None:
    drafts = _blocks(doc, "yaml draft")
    assert drafts
    for name, expected in drafts.items():
        written = (out / "tools" / f"{name}.yaml").read_text(encoding="utf-8")
        body = [line for line in written.splitlines() if not line.startswith("#")]
        assert "\n".join(body) + "\n" == expected
        lost = [line[4:] for line in written.splitlines() if line.startswith("#   ")]
        noted = _blocks(doc, "text not-carried").get(name)
        if noted is not None:
            assert lost == noted.splitlines()
    result = pipeline.check_catalogue(out, out.parent, implementations=False)
    assert result.catalogue is not None
    assert not [d for d in result.diagnostics if d.code < "TG200"]
    assert "TG313" in {d.code for d in result.diagnostics}


def test_the_openapi_howto_example(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "petstore.yaml"
    source.write_text(_block("howto-import-openapi.md", "yaml openapi"))
    out = tmp_path / "pets"
    args = ["import", "--from", "openapi", str(source), "--out", str(out)]
    assert cli.main(args) == 1
    err = capsys.readouterr().err
    assert "tool 'POST /pets' not imported: it has no operationId" in err
    _check_written(out, "howto-import-openapi.md")


def test_openapi_3_1_json_body_and_put(tmp_path: Path) -> None:
    document = {
        "openapi": "3.1.0",
        "paths": {
            "/notes/{id}": {
                "put": {
                    "operationId": "replace_note",
                    "parameters": [
                        {"name": "id", "in": "path", "schema": {"type": "string"}}
                    ],
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["text"],
                                    "properties": {
                                        "text": {"type": "string", "maxLength": 500},
                                        "pinned": {"type": ["boolean", "null"]},
                                        "id": {"type": "string"},
                                    },
                                }
                            }
                        },
                    },
                    "responses": {"200": {"description": "ok"}},
                    "tags": ["notes"],
                }
            }
        },
    }
    [tool] = read_source("openapi", json.dumps(document)).tools
    assert tool.effect is None and tool.idempotent is True
    d = draft(tool)
    assert d.document["params"] == {
        "id": {"type": "string"},
        "text": {"type": "string", "max_length": 500},
        "pinned": {"type": "boolean", "optional": True},
    }
    assert d.document["idempotency"] == "natural"
    lost = {(x.where, x.what) for x in d.losses}
    assert ("body property 'id'", "the property") in lost
    assert ("the tool", "key 'tags'") in lost
    with pytest.raises(SourceError, match="OpenAPI 3"):
        read_source("openapi", "swagger: '2.0'")


def test_the_python_howto_example(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    [(name, module)] = _blocks("howto-import-python.md", "python module").items()
    source = tmp_path / name
    source.write_text(module)
    monkeypatch.chdir(tmp_path)  # run as the how-to does, from the project
    out = tmp_path / "shop"
    args = ["import", "--from", "pyfunctions", str(source), "--out", str(out)]
    assert cli.main(args) == 1
    _check_written(out, "howto-import-python.md")


def test_a_module_that_fails_to_import_stops_the_import(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import no_such_module_here\n")
    with pytest.raises(SourceError, match="No module named 'no_such_module_here'"):
        read_path("pyfunctions", broken)
    empty = tmp_path / "empty.py"
    empty.write_text("VALUE = 1\n")
    with pytest.raises(SourceError, match="has no @function_tool function at module"):
        read_path("pyfunctions", empty)
    assert not (tmp_path / "spec").exists()


def test_a_module_that_prints_bytes_that_are_not_utf8_is_read(tmp_path: Path) -> None:
    """What the module writes to stdout and stderr was decoded as UTF-8, strictly: a
    module that printed a Latin-1 byte stopped the import on a UnicodeDecodeError
    traceback, whether it defined its tools or failed."""
    noisy = tmp_path / "noisy.py"
    noisy.write_text(
        "import sys\n"
        "sys.stdout.buffer.write(b'caf\\xe9\\n')\n"
        "sys.stderr.buffer.write(b'caf\\xe9\\n')\n"
        "from agents import function_tool\n\n"
        "@function_tool\n"
        "def get_time(city: str) -> str:\n"
        '    """Get the time in a city."""\n'
        "    return 'noon'\n"
    )
    [tool] = read_path("pyfunctions", noisy).tools
    assert tool.name == "get_time"
    failing = tmp_path / "failing.py"
    failing.write_text(
        "import sys\nsys.stderr.buffer.write(b'caf\\xe9')\nsys.exit(3)\n"
    )
    with pytest.raises(SourceError, match=r"importing .* failed: caf\ufffd"):
        read_path("pyfunctions", failing)


def test_explicit_titles_and_pydantic_models_are_read(tmp_path: Path) -> None:
    source = tmp_path / "lines.py"
    source.write_text(
        "from pydantic import BaseModel, Field\n"
        "from agents import function_tool\n\n"
        "class Line(BaseModel):\n"
        "    sku: str = Field(pattern=r'^SKU-\\d+$', description='The product code.')\n"
        "    quantity: int = Field(ge=1, le=1000, title='Pieces')\n\n"
        "@function_tool(timeout=5)\n"
        "async def place_order(lines: list[Line]) -> str:\n"
        "    '''Place an order.'''\n"
        "    return 'ok'\n"
    )
    [tool] = read_path("pyfunctions", source).tools
    d = draft(tool)
    assert d.document["params"] == {
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "sku": {
                        "type": "string",
                        "pattern": "^SKU-\\d+$",
                        "description": "The product code.",
                    },
                    "quantity": {"type": "integer", "min": 1, "max": 1000},
                },
            },
        }
    }
    lost = {(x.where, x.what) for x in d.losses}
    assert ("the tool", "timeout_seconds 5.0") in lost
    assert ("parameter 'lines.quantity'", "title 'Pieces'") in lost


def test_the_openai_howto_example(tmp_path: Path) -> None:
    source = tmp_path / "functions.json"
    source.write_text(_block("howto-import-openai.md", "json openai"))
    out = tmp_path / "orders"
    args = ["import", "--from", "openai", str(source), "--out", str(out)]
    assert cli.main(args) == 0
    _check_written(out, "howto-import-openai.md")


def test_an_import_into_an_init_project_points_at_its_schemas(tmp_path: Path) -> None:
    # the copies `toolgen init` writes into spec/, which the team commits; not the path of
    # toolgen in one person's environment
    source = tmp_path / "functions.json"
    source.write_text(_block("howto-import-openai.md", "json openai"))
    project = tmp_path / "desk"
    assert cli.main(["init", str(project)]) == 0
    out = project / "spec" / "orders"
    assert cli.main(["import", "--from", "openai", str(source), "--out", str(out)]) == 0
    first = (out / "catalogue.yaml").read_text().splitlines()[0]
    assert first == "# yaml-language-server: $schema=../catalogue.v1.json"
    for tool in (out / "tools").glob("*.yaml"):
        first = tool.read_text().splitlines()[0]
        assert first == "# yaml-language-server: $schema=../../tool.v1.json"
    # outside a spec/ folder with its copies, the schemas of the toolgen that ran
    elsewhere = tmp_path / "drafts"
    cli.main(["import", "--from", "openai", str(source), "--out", str(elsewhere)])
    first = (elsewhere / "catalogue.yaml").read_text().splitlines()[0]
    assert first.endswith("toolgen/spec/schemas/catalogue.v1.json")


def test_what_a_module_prints_or_leaves_running_costs_the_import_nothing(
    tmp_path: Path,
) -> None:
    """Its prints were kept in toolgen's memory (1 GB printed: 2.9 GB), and a process it
    started, holding the output open, made the import wait its 60 s and fail."""
    busy = tmp_path / "busy.py"
    busy.write_text(
        "import subprocess, sys\n"
        "sys.stdout.write('x' * 50_000_000)\n"
        "helper = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(90)'])\n"
        "from agents import function_tool\n\n"
        "@function_tool\n"
        "def get_time(city: str) -> str:\n"
        '    """Get the time in a city."""\n'
        "    return 'noon'\n"
    )
    started = time.monotonic()
    [tool] = read_path("pyfunctions", busy).tools
    assert tool.name == "get_time"
    assert time.monotonic() - started < 30  # not the 60 s limit
