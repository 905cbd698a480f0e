"""CLI snapshots of broken specs: every case is a folder under tests/corpus/ (sqlc style).

A case folder holds a small catalogue (`catalogue.yaml`, `tools/*.yaml`) and:

- `expected.txt`: exactly what `toolgen check tests/corpus/<case>` prints on stdout when run
  from the repo root: `path:line:col: ID message` lines, each followed by its `  help: ...` line;
- `expected_exit`: the exit status, 0 (clean), 1 (findings) or 2 (usage error);
- `args` (optional): the command line to run instead of `check {case}`, where `{case}` is the
  case folder relative to the repo root; `impl_signatures` passes `--root {case}` so that its
  implementation package (`impl/corpus/` inside the case) resolves there;
- anything else the case needs, such as that `impl/` package (which ruff skips, see
  tests/corpus/ruff.toml).

Only diagnostics with ids below TG200 are compared: load (TG0xx), the format check (TG10x),
the model (TG11x-TG14x) and the implementation check (TG15x). Lint rules (TG200 and up) are
written and tuned on their own, so their lines and help lines are filtered out of the output
before comparing, and an expected exit status of 0 becomes 1 when lint reports an error
(warnings fail only with --max-warnings, which a case's `args` may pass). Most cases name
their catalogue `corpus`, so the implementation check looks for `impl/corpus/<tool>.py`
under the repo root and reports TG151 (no implementation yet): that
folder must not exist in the repo.

Each case runs in-process twice: with libyaml, where the output must match expected.txt
exactly, and with the pure-Python YAML composer, where every diagnostic must be at the same
place with the same id (PyYAML's two parsers word syntax errors differently, and may point at
the next column of one) and every other message must match exactly. All cases also run in
one real subprocess, which proves that no broken spec ends in a traceback, and the case with
`!!python/object/apply:os.system` tags checks that the command they hold never ran.

Maintainers: `UPDATE_CORPUS=1 .venv/bin/pytest tests/test_corpus.py` rewrites every
expected.txt from the current output instead of comparing (then read the diff before
committing). It is never on by default.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from toolgen import cli, lint
from toolgen.spec import yaml_compose

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
# hidden folders and __pycache__ are tools' caches (ruff keeps one next to ruff.toml)
CASES = sorted(
    p.name
    for p in CORPUS.iterdir()
    if p.is_dir() and not p.name.startswith((".", "__"))
)
UPDATE = os.environ.get("UPDATE_CORPUS") == "1"
# the command the python tag case would run if toolgen ever built objects from tags
SENTINEL = Path("/tmp/toolgen-corpus-sentinel")
STAGES = (
    "spec/load",
    "spec/yaml_*",
    "spec/specfile",
    "spec/validate",
    "spec/model/*",
    "checks/*",
    "build/layout",
)

_DIAGNOSTIC = re.compile(
    r"^(?P<where>.+?:\d+:\d+): (?P<code>TG\d{3}) (?:\[(?P<severity>warning|info)\] )?"
)


@dataclass(frozen=True)
class Record:
    """One printed diagnostic: its first line and its help lines."""

    lines: tuple[str, ...]

    @property
    def match(self) -> re.Match[str] | None:
        return _DIAGNOSTIC.match(self.lines[0])

    @property
    def code(self) -> str:
        return self.match["code"] if self.match else ""

    @property
    def is_lint(self) -> bool:
        return bool(self.code) and int(self.code[2:]) >= 200

    @property
    def is_finding(self) -> bool:
        """An error: what makes the CLI exit 1 (warnings do not, without --max-warnings)."""
        return self.match is not None and self.match["severity"] is None

    @property
    def place(self) -> str:
        return f"{self.match['where']}: {self.code}" if self.match else self.lines[0]

    @property
    def line_place(self) -> str:
        """The place without the column: the two YAML parsers point at different
        characters of some syntax errors (the backslash of a bad escape, or the letter after
        it)."""
        return (
            re.sub(r":\d+: ", ": ", self.place, count=1) if self.match else self.place
        )

    @property
    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)


def records(output: str) -> list[Record]:
    found: list[list[str]] = []
    for line in output.splitlines():
        if line.startswith("  help: ") and found:
            found[-1].append(line)
        else:
            found.append([line])
    return [Record(tuple(lines)) for lines in found]


def without_lint(output: str) -> str:
    return "".join(r.text for r in records(output) if not r.is_lint)


@dataclass(frozen=True)
class Case:
    name: str

    @property
    def folder(self) -> Path:
        return CORPUS / self.name

    @property
    def relative(self) -> str:
        return f"tests/corpus/{self.name}"

    @property
    def argv(self) -> list[str]:
        args_file = self.folder / "args"
        words = (
            args_file.read_text("utf-8").split()
            if args_file.exists()
            else ["check", "{case}"]
        )
        return [word.replace("{case}", self.relative) for word in words]

    @property
    def expected(self) -> str:
        return (self.folder / "expected.txt").read_text("utf-8")

    @property
    def expected_exit(self) -> int:
        return int((self.folder / "expected_exit").read_text("utf-8").strip())

    def exit_allowing_lint(self, output: str) -> int:
        """The expected status, raised to 1 when lint (not compared here) found something."""
        if self.expected_exit == 0 and any(
            r.is_lint and r.is_finding for r in records(output)
        ):
            return 1
        return self.expected_exit


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _run_in_process(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    monkeypatch.chdir(ROOT)
    capsys.readouterr()
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(autouse=True)
def _no_sentinel() -> None:
    SENTINEL.unlink(missing_ok=True)


# --- the cases ---------------------------------------------------------------------------


def test_the_corpus_is_where_the_docstring_says() -> None:
    assert CASES, "no case folders under tests/corpus"
    assert not (ROOT / "impl" / "corpus").exists(), (
        "impl/corpus/ exists in the repo: the corpus expects no implementation there"
    )
    for name in CASES:
        folder = CORPUS / name
        assert (folder / "expected.txt").is_file(), f"{name} has no expected.txt"
        assert (folder / "expected_exit").read_text("utf-8").strip() in (
            "0",
            "1",
            "2",
        ), name


@pytest.mark.parametrize("name", CASES)
def test_case_output_with_libyaml(
    name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if not yaml.__with_libyaml__:
        pytest.skip("PyYAML without libyaml: the pure-Python run checks every place")
    case = Case(name)
    before = _files(case.folder)

    status, out, err = _run_in_process(case.argv, capsys, monkeypatch)

    assert "Traceback" not in err
    if UPDATE:
        (case.folder / "expected.txt").write_text(without_lint(out), "utf-8")
    else:
        assert without_lint(out) == case.expected
    assert status == case.exit_allowing_lint(out), err
    assert _files(case.folder) == before, "toolgen check changed the case folder"
    assert not SENTINEL.exists(), "a YAML tag ran a command"


@pytest.mark.parametrize("name", CASES)
def test_case_places_with_pure_python_yaml(
    name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(yaml_compose, "FAST", yaml_compose.PySafeComposer)
    case = Case(name)

    status, out, err = _run_in_process(case.argv, capsys, monkeypatch)

    assert "Traceback" not in err
    got = [r for r in records(out) if not r.is_lint]
    want = records(case.expected)
    assert [r.line_place if r.code == "TG001" else r.place for r in got] == [
        r.line_place if r.code == "TG001" else r.place for r in want
    ]
    assert [r.text for r in got if r.code != "TG001"] == [
        r.text for r in want if r.code != "TG001"
    ]
    assert status == case.exit_allowing_lint(out), err
    assert not SENTINEL.exists(), "a YAML tag ran a command"


def test_every_case_in_one_subprocess_without_a_traceback() -> None:
    """The installed entry point, for real: one process checks every plain `check` case."""
    plain = [Case(name) for name in CASES if not (CORPUS / name / "args").exists()]
    assert "load_python_tags_never_run" in [c.name for c in plain]

    done = subprocess.run(
        [sys.executable, "-m", "toolgen.cli", "check", *(c.relative for c in plain)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stderr
    # checked together, the cases are catalogues of one project that all write to
    # generated.corpus and impl.corpus, which is TG161; each case alone is not
    together = "".join(
        record
        for record in re.split(r"(?m)^(?!  )", without_lint(done.stdout))
        if not (
            record.split(" ", 2)[1:2] == ["TG161"]
            and "of the catalogue tests/corpus/" in record
        )
    )
    assert together == "".join(c.expected for c in plain)
    assert not SENTINEL.exists(), "a YAML tag ran a command"


# --- coverage of the diagnostic ids --------------------------------------------------------


def _ids_in_code() -> set[str]:
    found: set[str] = set()
    for stage in STAGES:
        for path in sorted((ROOT / "generator" / "toolgen").glob(f"{stage}.py")):
            found |= set(re.findall(r'"(TG\d{3})"', path.read_text("utf-8")))
    return found


def _ids_in_corpus() -> set[str]:
    return {r.code for name in CASES for r in records(Case(name).expected) if r.code}


def test_every_diagnostic_id_of_the_checks_has_a_case() -> None:
    in_code = _ids_in_code()
    assert len(in_code) >= 40, sorted(in_code)
    missing = sorted(in_code - _ids_in_corpus())
    assert not missing, f"no corpus case shows {', '.join(missing)}"


def test_the_corpus_shows_no_id_the_checks_lost() -> None:
    stale = sorted(_ids_in_corpus() - _ids_in_code())
    assert not stale, (
        f"expected.txt files show ids no check reports: {', '.join(stale)}"
    )


# --- a keyword parameter name must work -----------------------------------------------------

_USE_THE_GENERATED_MODULE = """
import jsonschema

from generated.corpus import find_trips as module
from generated.corpus.context import CorpusContext
from toolgen_runtime.testing import Recorder, invoke

good = {
    "from": "Milano Centrale",
    "to": "Bologna Centrale",
    "class": None,
    "import": {"in": 1, "global": True},
    "json": None,
}
args = module.FindTripsArgs.model_validate(good)
assert args.from_ == "Milano Centrale", args
assert args.class_ == "second", args
assert args.import_ is not None and args.import_.in_ == 1 and args.import_.global_, args
assert args.json_ is False, args

schema = module.PARAMETERS
assert list(schema["properties"]) == ["from", "to", "class", "import", "json"], schema
jsonschema.Draft202012Validator.check_schema(schema)
jsonschema.validate(good, schema)

recorder = Recorder(module.FindTripsResult(trip_count=2))
tool = module.build_tool(recorder)
context = CorpusContext(run_id="run-1")
assert invoke(tool, good, context) == {"ok": True, "trip_count": 2}
assert recorder.calls[0].args.from_ == "Milano Centrale"

bad = invoke(tool, {**good, "from": "M"}, context)
assert bad["ok"] is False and [p["field"] for p in bad["problems"]] == ["from"], bad
assert len(recorder.calls) == 1
print("keywords work")

# then the generated tests, in the same interpreter (the SDK is imported once)
import pytest

raise SystemExit(pytest.main(["-q", "-p", "no:cacheprovider", "generated"]))
"""


@pytest.mark.slow
def test_keyword_parameter_names_build_import_and_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`from`, `class`, `import`, `in`, `global` and `json` are fine parameter names: no
    diagnostic (the keyword_params_work case), and the built module aliases them."""
    shutil.copytree(CORPUS / "keyword_params_work", tmp_path / "spec" / "corpus")
    for name in ("expected.txt", "expected_exit"):
        (tmp_path / "spec" / "corpus" / name).unlink()
    # lint findings are not this test's business: it needs the build to happen
    monkeypatch.setattr(lint, "lint", lambda catalogue: [])
    monkeypatch.chdir(tmp_path)

    status = cli.main(["build", "spec/corpus"])
    out, err = capsys.readouterr()

    assert status == 0, out + err
    assert (tmp_path / "generated" / "corpus" / "find_trips.py").is_file()
    used = subprocess.run(
        [sys.executable, "-c", _USE_THE_GENERATED_MODULE],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert used.returncode == 0, used.stdout + used.stderr
    assert used.stdout.startswith("keywords work\n"), used.stdout
    assert " passed" in used.stdout and "failed" not in used.stdout, used.stdout
