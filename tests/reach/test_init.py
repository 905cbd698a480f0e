"""`toolgen init`: what it writes, and that it never overwrites a file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from toolgen import __version__, cli
from toolgen.build import pipeline
from toolgen.interop.init import HOOKS_REPOSITORY, InitRefused, scaffold
from toolgen.spec import validate


def test_a_new_project_checks_clean(tmp_path: Path) -> None:
    root = tmp_path / "Order-Desk"
    assert cli.main(["init", str(root)]) == 0
    spec = root / "spec" / "order_desk"
    assert (spec / "tools" / "read_order_status.yaml").is_file()
    result = pipeline.check_catalogue(spec, root, implementations=False)
    assert result.ok
    assert [d.code for d in result.diagnostics] == []  # not even a warning
    # the schema lines point at the schemas written beside the catalogues
    for path, kind in (
        (spec / "catalogue.yaml", "catalogue"),
        (spec / "tools" / "read_order_status.yaml", "tool"),
    ):
        first = path.read_text().splitlines()[0]
        referenced = (path.parent / first.split("$schema=")[1]).resolve()
        assert referenced.read_text() == validate.schema_text(kind)
    assert [
        line
        for line in (root / ".gitignore").read_text().splitlines()
        if not line.startswith("#")
    ] == [
        ".toolgen-cache/",
        "*.toolgen-*.tmp",
        "build/review/",
        "__pycache__/",  # else `git add -A` commits the bytecode of generated/ and impl/
    ]
    hooks = yaml.safe_load((root / ".pre-commit-config.yaml").read_text())
    [repo] = hooks["repos"]
    assert repo["repo"] == HOOKS_REPOSITORY and repo["rev"] == f"v{__version__}"
    assert [h["id"] for h in repo["hooks"]] == ["toolgen-check", "toolgen-build-check"]
    workflow = yaml.safe_load((root / ".github/workflows/toolgen.yml").read_text())
    runs = [s["run"] for s in workflow["jobs"]["toolgen"]["steps"] if "run" in s]
    assert runs[1:] == [
        "toolgen check --format github",
        "toolgen build --check",
        "toolgen diff --against origin/main --format github",
        "toolgen docs --against origin/main --out build/review",
        "python -m pytest generated",
    ]
    assert "pythonpath" in (root / "pyproject.toml").read_text()


def test_the_project_s_ruff_settings_leave_the_generated_package_alone(
    tmp_path: Path,
) -> None:
    """A project's own ruff settings (here a longer line and every rule) would reformat
    the generated code, which `toolgen build --check` then calls hand-edited, and report
    what nobody may edit: the ruff.toml the build writes into the package keeps ruff's
    defaults there, as the build formatted it."""
    root = tmp_path / "desk"
    assert cli.main(["init", str(root)]) == 0
    with (root / "pyproject.toml").open("a", encoding="utf-8") as settings:
        settings.write('\n[tool.ruff]\nline-length = 120\nlint.select = ["ALL"]\n')
    assert cli.main(["build", "--root", str(root)]) == 0
    ruff = str(Path(sys.executable).with_name("ruff"))
    package = root / "generated" / "desk"
    for command in (["format", "--check"], ["check"]):
        done = subprocess.run(
            [ruff, *command, str(package)],
            cwd=root, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
    # ruff keeps its cache beside that configuration: a cache, not a file nobody wrote
    assert (package / ".ruff_cache").is_dir()
    assert cli.main(["build", "--check", "--root", str(root)]) == 0
    # the MCP server module goes where the user says, with no ruff.toml beside it: it
    # starts with `# fmt: off`, so the project's formatter leaves it as export checks it
    server = root / "desk_mcp.py"
    export = ["export", "--to", "mcp", "--root", str(root), "--out", str(server)]
    assert cli.main(export) == 0
    subprocess.run(
        [ruff, "format", "--no-cache", str(server)],
        cwd=root,
        capture_output=True,
        check=True,
    )
    assert cli.main([*export, "--check"]) == 0
    # without it, the project's settings are the ones ruff reads, and find plenty
    (package / "ruff.toml").unlink()
    done = subprocess.run(
        [ruff, "format", "--check", "--no-cache", str(package)],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and "would be reformatted" in done.stdout


def test_init_never_overwrites(tmp_path: Path) -> None:
    scaffold(tmp_path, "desk")
    example = tmp_path / "spec/desk/tools/read_order_status.yaml"
    example.write_text("# mine\n")
    with pytest.raises(InitRefused, match="never overwritten"):
        scaffold(tmp_path, "desk")
    assert example.read_text() == "# mine\n"
    assert cli.main(["init", str(tmp_path), "--name", "desk"]) == 2
    with pytest.raises(InitRefused, match="identifier"):
        scaffold(tmp_path / "x", "not-a-name")


@pytest.mark.parametrize("name", [None, "import"], ids=["from the folder", "given"])
def test_a_keyword_is_no_catalogue_name(tmp_path: Path, name: str | None) -> None:
    """`toolgen init class` wrote a project whose first check failed (TG140: a keyword is
    no Python identifier), though init promises one that builds at once."""
    # it said "must be a Python identifier", which `class` is: a keyword is not a name
    keyword = "class" if name is None else name
    with pytest.raises(InitRefused, match=f"'{keyword}' is a Python keyword: pass an"):
        scaffold(tmp_path / "class", name)
    assert not (tmp_path / "class").exists()


@pytest.mark.parametrize(
    ("name", "fitting"),
    [("my-desk", "my_desk"), ("2nd desk", "tools_2nd_desk"), ("class", "tools_class")],
)
def test_a_name_refused_comes_with_one_that_fits(
    tmp_path: Path, name: str, fitting: str
) -> None:
    # it said "pass --name" to a user who had passed --name my-desk
    with pytest.raises(InitRefused) as refused:
        scaffold(tmp_path / "desk", name)
    assert str(refused.value).endswith(f"such as --name {fitting}"), refused.value


def test_an_existing_project_keeps_its_files(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'mine'\n")
    (tmp_path / ".gitignore").write_text(".venv/\n.toolgen-cache/")
    made = scaffold(tmp_path, "desk")
    assert made.pyproject_kept
    assert (tmp_path / "pyproject.toml").read_text() == "[project]\nname = 'mine'\n"
    assert made.gitignore_added == ("*.toolgen-*.tmp", "build/review/", "__pycache__/")
    assert (tmp_path / ".gitignore").read_text() == (
        ".venv/\n.toolgen-cache/\n# toolgen\n*.toolgen-*.tmp\nbuild/review/\n__pycache__/\n"
    )


def test_the_howto_lists_what_init_writes(tmp_path: Path) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "howto-init.md").read_text()
    listed = page.split("```text files\n")[1].split("```")[0].splitlines()
    made = scaffold(tmp_path / "order_desk")
    written = [str(p.relative_to(tmp_path / "order_desk")) for p in made.written]
    assert written == listed


# --- a new project is green out of the box (issue 34) ---------------------------------------
#
# As a user would: `toolgen init` outside this repository, a key-idempotent write tool and a
# token-confirmed one written as docs/spec.md says, `toolgen build`, then pytest and the
# generated workflow's commands in subprocesses with nothing of toolgen's in the environment.

RUN_ID = """\
  run_id:
    type: string
    description: The identifier of the current agent run, set by the application.
"""

BOOK_APPOINTMENT = """\
# yaml-language-server: $schema=../../tool.v1.json
name: book_appointment
intent: Book a visit of the current customer with a doctor.
use_when: The user asks to book a visit.
effect: write
idempotency:
  key: [booking_ref]
  context: [run_id]
context: [run_id, customer_id]
params:
  booking_ref:
    type: string
    pattern: '^[A-Z0-9-]{1,20}$'
    example: B-1
    description: Your reference for this booking, new for each distinct booking.
  doctor: {type: string, enum: [smith, jones], description: The doctor to see.}
returns:
  appointment_id: {type: string, description: The new appointment's id.}
errors:
  fully_booked:
    when: The doctor has no free slot.
    how_to_fix: Call book_appointment again with the other doctor and a new booking_ref.
examples:
  - args: {booking_ref: B-1, doctor: smith}
  - args: {booking_ref: B-2, doctor: jones}
  - args: {booking_ref: b-1, doctor: smith}
    rejected_on: booking_ref
"""

CANCEL_APPOINTMENT = """\
# yaml-language-server: $schema=../../tool.v1.json
name: confirm_cancel_appointment
intent: Cancel one of the current customer's appointments.
use_when: The user asks to cancel an appointment.
effect: destructive
confirmation: token
context: [customer_id]
params:
  appointment_id:
    type: string
    pattern: '^APT-\\d{1,8}$'
    example: APT-1
    description: The appointment to cancel.
returns:
  cancelled: {type: boolean, description: True when the appointment was cancelled now.}
examples:
  - args: {appointment_id: APT-1}
  - args: {appointment_id: APT-2}
  - args: {appointment_id: apt-1}
    rejected_on: appointment_id
"""


def _user_env(tmp: Path) -> dict[str, str]:
    """A user's shell: this virtual environment first on PATH, nothing of toolgen's set
    (this session's own plugin put TOOLGEN_* into os.environ), and a system temporary
    folder of its own, to see what a run leaves there."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("TOOLGEN_") and k != "PYTHONPATH"
    }
    env["PATH"] = os.pathsep.join((str(Path(sys.executable).parent), env["PATH"]))
    tmp.mkdir(exist_ok=True)
    env["TMPDIR"] = str(tmp)
    return env


def _sh(
    command: str | list[str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=cwd,
        env=env,
        shell=isinstance(command, str),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _clinic(tmp_path: Path, env: dict[str, str]) -> Path:
    """`toolgen init clinic`, with a run_id in the context and the two write tools."""
    done = _sh(["toolgen", "init", "clinic"], tmp_path, env)
    assert done.returncode == 0, done.stderr
    project = tmp_path / "clinic"
    catalogue = project / "spec/clinic/catalogue.yaml"
    text = catalogue.read_text()
    marker = "    description: The authenticated customer, set by the application.\n"
    catalogue.write_text(text.replace(marker, marker + RUN_ID, 1))
    tools = project / "spec/clinic/tools"
    (tools / "book_appointment.yaml").write_text(BOOK_APPOINTMENT)
    (tools / "confirm_cancel_appointment.yaml").write_text(CANCEL_APPOINTMENT)
    built = _sh(["toolgen", "build"], project, env)
    assert built.returncode == 0, built.stdout + built.stderr
    return project


@pytest.mark.slow
def test_a_new_project_with_write_tools_is_green_out_of_the_box(
    tmp_path: Path,
) -> None:
    env = _user_env(tmp_path / "system-tmp")
    project = _clinic(tmp_path, env)
    # importing the tools and making them needs no configuration; the start-up check
    # says what is missing
    probe = _sh(
        [
            "python",
            "-c",
            "import generated.clinic.book_appointment, "
            "generated.clinic.confirm_cancel_appointment, "
            "generated.clinic.prepare_cancel_appointment\n"
            "from generated.clinic import all_tools, check_services\n"
            "print(len(all_tools()))\n"
            "check_services()",
        ],
        project,
        env,
    )
    assert probe.stdout == "4\n", probe.stderr
    assert probe.returncode == 1
    assert "StoreNotConfigured: TOOLGEN_STORE_URL is not set" in probe.stderr
    # every command of the generated workflow but the installation (a download); its diff
    # compares with origin/main, which a repository of the project provides
    for git in (
        "git init -q -b main",
        "git add -A",
        "git -c user.name=t -c user.email=t@t commit -q -m init",
        "git update-ref refs/remotes/origin/main HEAD",
    ):
        assert _sh(git, project, env).returncode == 0, git
    workflow = yaml.safe_load((project / ".github/workflows/toolgen.yml").read_text())
    runs = [s["run"] for s in workflow["jobs"]["toolgen"]["steps"] if "run" in s]
    assert runs[0].startswith("python -m pip install")
    assert runs[-1] == "python -m pytest generated"
    # as a user's shell may set it: the skip reasons shown, no cache written, and every
    # warning an error (a loop the Agents SDK's run_sync left open once failed a later test)
    env["PYTEST_ADDOPTS"] = "-p no:cacheprovider -rs -W error"
    for command in runs[1:]:
        done = _sh(command, project, env)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    # the last command ran the generated tests, which pass with nothing configured and say
    # plainly that no implementation was run
    assert " passed" in done.stdout and "failed" not in done.stdout
    untested = "is untested: tests.implementation is off"
    assert done.stdout.count(untested) >= 3, done.stdout
    # how to turn it on, in words found in the project (not a path in toolgen's repository)
    assert (
        "turn it on with tests: {implementation: true} in catalogue.yaml" in done.stdout
    )
    assert list((tmp_path / "system-tmp").iterdir()) == []


CALENDAR_FIXTURE = """\
import pytest

from impl.clinic import calendar


@pytest.fixture
def clinic_calendar():
    calendar.FREE[:] = ["smith"]
    yield calendar.FREE
    calendar.FREE.clear()
"""

BOOK_IMPLEMENTATION = """\
from generated.clinic.book_appointment import (
    BookAppointmentArgs,
    BookAppointmentContext,
    BookAppointmentError,
    BookAppointmentResult,
)

from . import calendar


def book_appointment(
    args: BookAppointmentArgs, context: BookAppointmentContext
) -> BookAppointmentResult:
    if not calendar.FREE:
        raise RuntimeError("the calendar is not open")  # the fixture opens it
    if args.doctor not in calendar.FREE:
        raise BookAppointmentError("fully_booked")
    return BookAppointmentResult(appointment_id=f"{context.run_id}/{args.booking_ref}")
"""


@pytest.mark.slow
def test_implementation_tests_fail_on_a_stub_and_pass_once_it_is_written(
    tmp_path: Path,
) -> None:
    env = _user_env(tmp_path / "system-tmp")
    project = _clinic(tmp_path, env)
    # turned on for one tool: its two accepted examples run through the stub
    tool = project / "spec/clinic/tools/book_appointment.yaml"
    tool.write_text(tool.read_text() + "tests: {implementation: true}\n")
    assert _sh(["toolgen", "build"], project, env).returncode == 0
    selected = ["-k", "keeps_the_contract", "-p", "no:cacheprovider", "-rs"]
    stub = _sh(["python", "-m", "pytest", *selected], project, env)
    assert stub.returncode == 1
    assert "2 failed" in stub.stdout, stub.stdout
    assert "NotImplementedYet: book_appointment is not implemented yet" in stub.stdout
    # written, with the fixture the catalogue names for every tool's implementation tests
    catalogue = project / "spec/clinic/catalogue.yaml"
    catalogue.write_text(
        catalogue.read_text().replace(
            "  implementation: false\n",
            "  implementation: false\n  fixtures: [clinic_calendar]\n",
        )
    )
    assert _sh(["toolgen", "build"], project, env).returncode == 0
    (project / "impl/clinic/calendar.py").write_text("FREE: list[str] = []\n")
    (project / "impl/clinic/book_appointment.py").write_text(BOOK_IMPLEMENTATION)
    (project / "conftest.py").write_text(CALENDAR_FIXTURE)
    written = _sh(["python", "-m", "pytest", *selected], project, env)
    assert written.returncode == 0, written.stdout
    # one example books, the other meets the declared error: both keep the contract; the
    # other tools' implementations are not run, and say so
    assert "2 passed" in written.stdout and "skipped" in written.stdout
    assert written.stdout.count("is untested") >= 2
