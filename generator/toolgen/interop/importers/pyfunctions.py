"""A Python module of `@function_tool` functions (OpenAI Agents SDK).

The module is imported in a subprocess and each module-level `FunctionTool` is read: its
name, description and `params_json_schema`, exactly what the SDK sends to the model (why it
is run rather than read with `ast`, and what that asks of the module:
docs/howto-import-python.md). The subprocess keeps the module's globals, prints and crashes
out of toolgen's own process and has a time limit.

What the SDK's schema states is carried, with two readings of its conventions: in strict
mode the SDK lists every parameter as required, so a parameter with a default (a Python
default) is optional; and the titles pydantic derives from names (`Max Results` for
`max_results`, a model's class name, `<tool>_args`) are noise, not the author's words, and are
dropped (any other title is reported). `needs_approval`, a disabled tool, a timeout and a
non-strict schema are reported per tool: the draft holds none of them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolgen.interop.importers.source import (
    MAX_SOURCE_BYTES,
    Loss,
    SourceError,
    SourceFile,
    SourceTool,
    if_type,
)
from toolgen.paths import read_regular
from toolgen.text import json_value

KIND = "pyfunctions"
TIMEOUT_SECONDS = 60

# Runs in the subprocess: import the file as a module, list its FunctionTools as JSON.
_READER = r"""
import importlib.util, json, sys
from agents import FunctionTool

path, out = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("_toolgen_import_source", path)
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module
spec.loader.exec_module(module)

def flag(value):
    return value if isinstance(value, bool) else "callable"

found = []
for attribute, value in vars(module).items():
    if isinstance(value, FunctionTool):
        output = getattr(value, "output_json_schema", None)
        found.append({
            "attribute": attribute,
            "name": value.name,
            "description": value.description,
            "parameters": value.params_json_schema,
            "strict": value.strict_json_schema,
            "needs_approval": flag(value.needs_approval),
            "is_enabled": flag(value.is_enabled),
            "timeout_seconds": value.timeout_seconds,
            "output_schema": output if isinstance(output, dict) else None,
        })
with open(out, "w", encoding="utf-8") as handle:
    json.dump({"module": path, "tools": found}, handle)
"""


def run_module(path: Path) -> object:
    """Import `path` in a subprocess and return what it defines, as JSON data. What the
    module prints is dropped, but the last line of its error output; a process it starts is
    ended with it."""
    with tempfile.TemporaryDirectory() as scratch:
        out, errors = Path(scratch) / "tools.json", Path(scratch) / "stderr"
        env = dict(os.environ)
        # the module's folder and the current folder, as `python -m` would see them
        env["PYTHONPATH"] = os.pathsep.join(
            [str(path.resolve().parent), os.getcwd(), env.get("PYTHONPATH", "")]
        )
        with open(errors, "wb") as error_file:
            child = subprocess.Popen(
                [sys.executable, "-c", _READER, str(path), str(out)],
                stdout=subprocess.DEVNULL,
                stderr=error_file,
                env=env,
                start_new_session=True,  # its own process group, ended below
            )
            try:
                returncode = child.wait(TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired as exc:
                raise SourceError(
                    f"importing {path} took more than {TIMEOUT_SECONDS} s"
                ) from exc
            finally:
                with contextlib.suppress(OSError):
                    os.killpg(child.pid, signal.SIGKILL)
                child.wait()
        if returncode != 0 or not out.is_file():
            raise SourceError(f"importing {path} failed: {_last_line(errors)}")
        try:
            return json_value(read_regular(out, limit=MAX_SOURCE_BYTES))
        except (OSError, ValueError) as exc:  # larger than the limit; a number too long
            raise SourceError(f"cannot read the tools of {path}: {exc}") from exc


def _last_line(errors: Path) -> str:
    """The last line of what the module wrote on stderr, read from its end."""
    with open(errors, "rb") as file:
        file.seek(max(0, file.seek(0, os.SEEK_END) - 4096))
        tail = file.read().decode("utf-8", "replace")
    return (tail.strip().splitlines() or ["no error output"])[-1]


def _without_derived_titles(node: object, name: str | None = None) -> object:
    """The schema without the titles pydantic derives from names."""
    if isinstance(node, list):
        return [_without_derived_titles(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        derived = name is not None and value == name.title().replace("_", " ")
        if key == "title" and derived:
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {k: _without_derived_titles(v, k) for k, v in value.items()}
        elif key == "$defs" and isinstance(value, dict):
            out[key] = {
                k: _without_class_title(_without_derived_titles(v), k)
                for k, v in value.items()
            }
        else:
            out[key] = _without_derived_titles(value)
    return out


def _without_class_title(node: object, class_name: str) -> object:
    if isinstance(node, dict) and node.get("title") == class_name:
        return {k: v for k, v in node.items() if k != "title"}
    return node


def _parameters(entry: Mapping[str, Any]) -> Mapping[str, object] | None:
    schema = entry.get("parameters")
    if not isinstance(schema, dict):
        return None
    cleaned = _without_derived_titles(schema)
    assert isinstance(cleaned, dict)
    if cleaned.get("title") == f"{entry['name']}_args":
        del cleaned["title"]
    properties = cleaned.get("properties")
    required = cleaned.get("required")
    if (
        entry.get("strict")
        and isinstance(properties, dict)
        and isinstance(required, list)
    ):
        # strict mode lists every parameter; a Python default still makes one optional
        cleaned["required"] = [
            n
            for n in required
            if not (isinstance(properties.get(n), dict) and "default" in properties[n])
        ]
    return cleaned


def _losses(entry: Mapping[str, Any]) -> list[Loss]:
    approval, enabled = entry.get("needs_approval"), entry.get("is_enabled")
    timeout = entry.get("timeout_seconds")
    # (whether the tool says it, what it says, why the draft cannot hold it)
    said = (
        (
            approval is not False,
            f"needs_approval {approval!r}",
            "not carried over: write `confirmation: approval` in the draft if a person "
            "must approve every call (a function that decides per call has no equivalent)",
        ),
        (
            enabled is not True,
            f"is_enabled {enabled!r}",
            "a contract's tool is always offered; choose the tools per agent instead",
        ),
        (
            timeout is not None,
            f"timeout_seconds {timeout!r}",
            "not carried over: write `timeout: {seconds, how_to_fix}` in the draft, with "
            "what the model should do when the time is up",
        ),
        (
            entry.get("strict") is False,
            "strict_json_schema False",
            "every generated tool is strict: the model must send every parameter (null "
            "for an optional one)",
        ),
    )
    return [Loss("the tool", what, why) for says, what, why in said if says]


def read(data: object) -> SourceFile:
    if not isinstance(data, dict) or not isinstance(data.get("tools"), list):
        raise SourceError("expected the tools of a module")
    tools: list[SourceTool] = []
    for entry in data["tools"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise SourceError("a tool of the module has no name")
        tools.append(
            SourceTool(
                name=entry["name"],
                description=if_type(entry.get("description"), str),
                input_schema=_parameters(entry),
                output_schema=if_type(entry.get("output_schema"), dict),
                losses=tuple(_losses(entry)),
            )
        )
    if not tools:
        module = data.get("module", "the module")
        raise SourceError(f"{module} has no @function_tool function at module level")
    return SourceFile(tuple(tools))
