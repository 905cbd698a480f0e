"""The kept code of toolgen's dataclass methods (toolgen/classcode.py): a class made from it
is the class compiling its methods makes, other code's dataclasses are made as before, and a
kept file that is damaged or of another interpreter costs the compile and nothing else."""

from __future__ import annotations

import dataclasses
import marshal
import subprocess
import sys
import types
from pathlib import Path

import pytest

from toolgen import classcode

PROBE = """
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Probe:
    name: str
    count: int = 0
    tags: tuple[str, ...] = field(default_factory=tuple)
"""


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty store of kept code, written to a file of the test's own."""
    folder = tmp_path / "__pycache__"
    monkeypatch.setattr(classcode, "_FOLDER", folder)
    monkeypatch.setattr(classcode, "PATH", folder / "classcode.test.marshal")
    monkeypatch.setattr(classcode, "_kept", {})
    monkeypatch.setattr(classcode, "_made", {})
    monkeypatch.setattr(classcode, "_used", set())
    return folder / "classcode.test.marshal"


def _make(module: str, monkeypatch: pytest.MonkeyPatch) -> type:
    """The Probe class, made in a module of that name (dataclasses runs the text of its
    methods in the namespace of the module the class is in)."""
    made = types.ModuleType(module)
    monkeypatch.setitem(sys.modules, module, made)
    exec(compile(PROBE, f"<{module}>", "exec", dont_inherit=True), made.__dict__)
    probe = made.__dict__["Probe"]
    assert isinstance(probe, type)
    return probe


METHODS = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")


def _codes(cls: type) -> dict[str, types.CodeType]:
    return {name: getattr(cls, name).__code__ for name in METHODS}


def test_the_stand_in_is_installed_by_importing_toolgen() -> None:
    assert dataclasses.exec is classcode._exec  # type: ignore[attr-defined]


def test_a_class_made_from_kept_code_is_the_compiled_one(
    kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled = _make("toolgen._probe_compiled", monkeypatch)
    assert len(classcode._made) == len(METHODS)
    assert classcode.save(always=True)
    assert kept.is_file()

    # another run: the file is read, nothing is compiled
    monkeypatch.setattr(classcode, "_kept", classcode._load())
    monkeypatch.setattr(classcode, "_made", {})
    from_kept = _make("toolgen._probe_kept", monkeypatch)
    assert classcode._made == {}
    # another module's class, run by `exec` itself
    plain = _make("elsewhere_probe", monkeypatch)
    assert classcode._made == {}
    # and what Python makes with no stand-in at all
    with monkeypatch.context() as without:
        without.delattr(dataclasses, "exec")
        original = _make("toolgen._probe_original", monkeypatch)

    assert _codes(from_kept) == _codes(compiled) == _codes(original)
    assert _codes(plain) == _codes(original)
    for made in (from_kept, plain):
        one = made("a", 2)
        assert one == made("a", 2, ()) and hash(one) == hash(made("a", 2))
        assert one != made("b")
        assert repr(one) == "Probe(name='a', count=2, tags=())"
        with pytest.raises(dataclasses.FrozenInstanceError):
            one.count = 3
        with pytest.raises(TypeError):
            made()


def test_other_code_is_run_by_exec_itself(
    kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _make("elsewhere_probe", monkeypatch)
    assert classcode._made == {} and classcode._used == set()
    assert classcode.save(always=True)
    assert not kept.exists()  # nothing new: nothing written


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not marshal at all",
        marshal.dumps((b"\x00\x00\r\n", {})),  # another interpreter's
        marshal.dumps((classcode._MAGIC, ["a list"])),
        marshal.dumps({"a": "dict of text"}),
    ],
)
def test_a_damaged_or_foreign_file_holds_nothing(
    kept: Path, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    kept.parent.mkdir()
    kept.write_bytes(content)
    assert classcode._load() == {}
    probe = _make("toolgen._probe_damaged", monkeypatch)
    assert probe("x").name == "x"
    assert len(classcode._made) == len(METHODS)


def test_a_kept_entry_of_other_text_is_not_taken(
    kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept.parent.mkdir()
    wrong = compile("def __create_fn__():\n return None", "<string>", "exec")
    kept.write_bytes(marshal.dumps((classcode._MAGIC, {"other text": wrong, 3: wrong})))
    assert set(classcode._load()) == {"other text"}
    monkeypatch.setattr(classcode, "_kept", classcode._load())
    assert _make("toolgen._probe_other", monkeypatch)("y").name == "y"


def test_written_only_where_bytecode_is(
    kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _make("toolgen._probe_bytecode", monkeypatch)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert classcode.save()
    assert not kept.exists()
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert classcode.save()
    assert len(classcode._load()) == len(METHODS)


def test_only_used_leaves_out_what_no_class_is_made_of(
    kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = compile("x = 1", "<string>", "exec")
    monkeypatch.setattr(classcode, "_kept", {"a method no class has": stale})
    _make("toolgen._probe_used", monkeypatch)
    assert classcode.save(always=True)
    assert "a method no class has" in classcode._load()
    assert classcode.save(always=True, only_used=True)
    assert "a method no class has" not in classcode._load()
    assert len(classcode._load()) == len(METHODS)


def test_an_unwritable_folder_costs_the_file_only(
    kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept.parent.write_text("a file where the folder would be")
    _make("toolgen._probe_unwritable", monkeypatch)
    assert classcode.save(always=True) is False
    assert len(classcode._made) == len(METHODS)  # still to write, by a later run


def test_toolgen_imported_again_compiles_nothing() -> None:
    """What `make setup` keeps serves every class of toolgen (a new interpreter, as each
    command is)."""
    keep = "from toolgen import classcode; raise SystemExit(classcode.main())"
    subprocess.run([sys.executable, "-c", keep], check=True, capture_output=True)
    probe = (
        "import toolgen.cli, toolgen.pipeline, toolgen.review, toolgen.classcode as c; "
        "print(len(c._made), len(c._used))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    )
    made, used = map(int, done.stdout.split())
    assert made == 0
    assert used > 100
