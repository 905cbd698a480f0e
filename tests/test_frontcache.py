"""The front cache of `build` skips work, never findings and never output: after each edit, a
build that reuses the IR and the lint records of the unchanged tools reports what a cold build
of the same files reports and writes the same bytes; a cache that is corrupt or truncated is
ignored."""

from __future__ import annotations

import dataclasses
import pickle
import re
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from toolgen import frontcache, load, pipeline
from toolgen.diagnostics import Diagnostic
from toolgen.frontcache import FrontCache, KeptTool
from toolgen.ir import Tool
from toolgen.lint.context import LintContext
from toolgen.lint.registry import REGISTRY, Finding, Rule
from toolgen.paths import CACHE_DIR

ROOT = Path(__file__).parent.parent
FOLDER = "spec/inventory"
CONFIRM = f"{FOLDER}/tools/confirm_order.yaml"  # the catalogue's token contract
Edit = Callable[[Path], None]


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _edit_intent(project: Path) -> None:
    tool = project / FOLDER / "tools/read_stock.yaml"
    _replace(tool, "intent: ", "intent: Quickly, ")


def _edit_catalogue(project: Path) -> None:
    _replace(
        project / FOLDER / "catalogue.yaml",
        "The identifier of the current agent run",
        "The id of the agent run under way",
    )


def _add_suppression(project: Path) -> None:
    # a suppression of a rule that finds nothing: the unused-suppression rule reports it
    with (project / FOLDER / "tools/find_customer.yaml").open("a") as file:
        file.write(
            "suppress:\n  - rule: TG203\n    reason: the name is the lesson's.\n"
        )


def _edit_implementation(project: Path) -> None:
    # the implementation becomes a stub again: the build says so (TG151)
    impl = project / "impl/inventory/read_stock.py"
    impl.write_text(
        "from generated.inventory.read_stock import ReadStockArgs\n\n\n"
        "def read_stock(args: ReadStockArgs) -> None:\n"
        "    raise NotImplementedError\n",
        encoding="utf-8",
    )


def _restore_implementation(project: Path) -> None:
    shutil.copy(ROOT / "impl/inventory/read_stock.py", project / "impl/inventory")


def _break_tool(project: Path) -> None:
    _replace(project / FOLDER / "tools/next_batch.yaml", "effect: ", "efect: ")


def _mend_tool(project: Path) -> None:
    _replace(project / FOLDER / "tools/next_batch.yaml", "efect: ", "effect: ")


def _rename_tool(project: Path) -> None:
    # two files now give the same name: both are blamed, neither may be kept
    _replace(
        project / FOLDER / "tools/read_stock.yaml",
        "name: read_stock",
        "name: next_batch",
    )


def _rename_into_pairs(project: Path) -> None:
    # find_order shares "order" with the order tools: new pairs of tools whose files did
    # not change
    tools = project / FOLDER / "tools"
    text = (tools / "find_customer.yaml").read_text(encoding="utf-8")
    (tools / "find_customer.yaml").unlink()
    (tools / "find_order.yaml").write_text(
        text.replace("find_customer", "find_order"), encoding="utf-8"
    )


NAMESPACED = (
    "read_stock",
    "find_customer",
    "search_orders",
    "search_returns",
    "cancel_order",
    "send_order",
)


def _add_namespace(project: Path) -> None:
    # six of the twelve names now start with inv_: a namespace, which changes how every
    # name is read (the profiles of the tools that kept their files too)
    tools = project / FOLDER / "tools"
    for path in sorted(tools.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        for name in NAMESPACED:
            text = re.sub(rf"\b{name}\b", f"inv_{name}", text)
        path.write_text(text, encoding="utf-8")
    for name in NAMESPACED:
        (tools / f"{name}.yaml").rename(tools / f"inv_{name}.yaml")


_SUPPRESSION = re.compile(r"^suppress:\n(?:  .*\n|    .*\n)*", re.MULTILINE)


def _remove_suppression(project: Path) -> None:
    # next_batch's suppression of TG203 goes: the rule's finding appears
    path = project / FOLDER / "tools/next_batch.yaml"
    text = path.read_text(encoding="utf-8")
    assert _SUPPRESSION.search(text)
    path.write_text(_SUPPRESSION.sub("", text), encoding="utf-8")


def _restore_suppression(project: Path) -> None:
    shutil.copy(ROOT / FOLDER / "tools/next_batch.yaml", project / FOLDER / "tools")


def _remove_added_suppression(project: Path) -> None:
    shutil.copy(ROOT / FOLDER / "tools/find_customer.yaml", project / FOLDER / "tools")


def _configure_lint(project: Path) -> None:
    with (project / FOLDER / "catalogue.yaml").open("a") as file:
        file.write("lint:\n  severity: {TG203: error}\n  preview: true\n")


def _configure_lint_again(project: Path) -> None:
    _replace(project / FOLDER / "catalogue.yaml", "TG203: error", "TG203: info")


EDITS: dict[str, list[Edit]] = {
    "one tool": [_edit_intent],
    "catalogue.yaml": [_edit_catalogue],
    "a suppression": [_add_suppression],
    "an implementation": [_edit_implementation],
    "a broken tool, then mended": [_break_tool, _mend_tool],
    "a duplicate name": [_rename_tool],
    "a rename that makes pairs": [_rename_into_pairs],
    "a namespace": [_add_namespace],
    "a suppression added, then removed": [_add_suppression, _remove_added_suppression],
    "a suppression removed, then restored": [_remove_suppression, _restore_suppression],
    "the lint configuration": [
        _remove_suppression,
        _configure_lint,
        _configure_lint_again,
        _restore_suppression,
    ],
    "an implementation, twice": [_edit_implementation, _restore_implementation],
}


def _project(base: Path, name: str) -> Path:
    root = base / name
    shutil.copytree(ROOT / "spec", root / "spec")
    shutil.copytree(ROOT / "impl", root / "impl")
    return root


def _build(root: Path) -> tuple[tuple[Diagnostic, ...], dict[str, bytes]]:
    with pipeline.building(root):
        built = pipeline.build_catalogue(root / FOLDER, root)
    assert built.failure is None
    files = {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
        and CACHE_DIR not in path.parts
        and "__pycache__" not in path.parts
    }
    return built.diagnostics, files


def _cold_copy(base: Path, warm: Path) -> Path:
    """`warm` as it is (spec, implementations, what earlier builds generated) without its
    caches: building it is a cold build of the same files."""
    cold = base / "cold"
    shutil.rmtree(cold, ignore_errors=True)
    shutil.copytree(warm, cold, ignore=shutil.ignore_patterns(CACHE_DIR, "__pycache__"))
    return cold


@pytest.mark.parametrize("edits", EDITS.values(), ids=EDITS.keys())
def test_a_warm_build_equals_a_cold_one(tmp_path: Path, edits: list[Edit]) -> None:
    warm = _project(tmp_path, "warm")
    _build(warm)
    _build(warm)  # every tool's IR now comes from the cache
    for edit in edits:
        edit(warm)
        cold = _cold_copy(tmp_path, warm)
        diagnostics, files = _build(warm)
        cold_diagnostics, cold_files = _build(cold)
        assert diagnostics == cold_diagnostics
        assert files.keys() == cold_files.keys()
        assert files == cold_files


def test_unchanged_tools_are_not_parsed(tmp_path: Path, parsed: list[str]) -> None:
    warm = _project(tmp_path, "warm")
    _build(warm)
    _edit_intent(warm)
    parsed.clear()
    _build(warm)
    assert parsed == [f"{FOLDER}/catalogue.yaml", f"{FOLDER}/tools/read_stock.yaml"]


def _shard_files(root: Path) -> list[Path]:
    """The front cache's shard files of FOLDER that exist, in shard order."""
    front = FrontCache(root, FOLDER)
    paths = (front.shard_path(index) for index in range(frontcache.SHARDS))
    return [path for path in paths if path.exists()]


def _shard_file(root: Path, file: str) -> Path:
    """The shard file that holds `file`'s entry."""
    return FrontCache(root, FOLDER).shard_path(frontcache._shard_of(file))


def _stored(data: bytes) -> dict[str, Any]:
    """What a shard file holds (its checksum checked)."""
    stored: dict[str, Any] = pickle.loads(frontcache._checked(data))
    return stored


def _store(stored: dict[str, Any]) -> bytes:
    """A shard file of `stored`, with the checksum that vouches for it."""
    return frontcache._framed(pickle.dumps(stored))


def _entries(root: Path) -> dict[str, Any]:
    """Every entry of the front cache of FOLDER, by tool file."""
    found: dict[str, Any] = {}
    for path in _shard_files(root):
        found.update(_stored(path.read_bytes())["tools"])
    return found


CORRUPTIONS: dict[str, Callable[[bytes], bytes]] = {
    "truncated": lambda data: data[: len(data) // 2],
    "garbage": lambda data: b"\x80\x05not a pickle at all" + data[:100],
    "empty": lambda data: b"",
    "no checksum": lambda data: pickle.dumps(_stored(data)),
    "a flipped byte": lambda data: _flipped(data),
    "another shape": lambda data: _store({"key": "x", "tools": [1, 2]}),
    # (a damaged IR under a checksum that holds: test_an_ir_that_cannot_be_read_back_...)
    "a corrupt summary": lambda data: _corrupt_summary(data),
    "corrupt lint records": lambda data: _corrupt_lint_records(data),
    "corrupt pieces": lambda data: _corrupt_pieces(data),
}


def _flipped(data: bytes) -> bytes:
    """One bit of a kept IR's bytes changed, as a failing disk would."""
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0x20]) + data[middle + 1 :]


def _corrupt_summary(data: bytes) -> bytes:
    stored = _stored(data)
    shapes: list[object] = [
        None,
        ("read_stock",),
        (1, "tool", (), (), (), "", "", (), ()),
    ]
    for (file, (digest, _, blob, lint, pieces)), shape in zip(
        sorted(stored["tools"].items()), shapes, strict=False
    ):
        stored["tools"][file] = (digest, shape, blob, lint, pieces)
    return _store(stored)


def _corrupt_lint_records(data: bytes) -> bytes:
    stored = _stored(data)
    shapes = [None, "x", ((("TG203", "m", "", "f", "1", 1),), ()), ((), (5,))]
    for (file, (digest, summary, blob, _, pieces)), shape in zip(
        sorted(stored["tools"].items()), shapes, strict=False
    ):
        stored["tools"][file] = (digest, summary, blob, shape, pieces)
    return _store(stored)


def _corrupt_pieces(data: bytes) -> bytes:
    stored = _stored(data)
    shapes: list[object] = [
        "not a mapping",
        {"card": "x", "lock": (1, 2, 3), "tokens": -1},
        {"card": ("a", "b", "c", ["approval=True"]), "lock": ("a", "b"), "tokens": 1.5},
        {"tokens": True, 7: "a key that is no kind"},
    ]
    for (file, (digest, summary, blob, lint, _)), shape in zip(
        sorted(stored["tools"].items()), shapes, strict=False
    ):
        stored["tools"][file] = (digest, summary, blob, lint, shape)
    return _store(stored)


@pytest.mark.parametrize("corrupt", CORRUPTIONS.values(), ids=CORRUPTIONS.keys())
def test_a_corrupt_cache_is_ignored(
    tmp_path: Path, corrupt: Callable[[bytes], bytes]
) -> None:
    warm = _project(tmp_path, "warm")
    _build(warm)
    _edit_intent(warm)
    shards = _shard_files(warm)
    assert len(shards) > 1
    for shard in shards:
        shard.write_bytes(corrupt(shard.read_bytes()))
    cold = _cold_copy(tmp_path, warm)
    assert _build(warm) == _build(cold)
    # and the build wrote a whole cache again
    entries = _entries(warm)
    assert sorted(entries) == sorted(
        f"{FOLDER}/tools/{path.name}"
        for path in (warm / FOLDER / "tools").glob("*.yaml")
    )
    assert all(
        isinstance(pickle.loads(blob), Tool) for _, _, blob, _, _ in entries.values()
    )


def _written(root: Path) -> dict[str, tuple[int, int]]:
    """Each shard file's inode and modification time: a shard written again (through a
    temporary file and a rename) has another."""
    return {
        path.name: (path.stat().st_ino, path.stat().st_mtime_ns)
        for path in _shard_files(root)
    }


def _append_comment(project: Path) -> None:
    # a new text digest, the same IR otherwise
    with (project / FOLDER / "tools/read_stock.yaml").open("a") as file:
        file.write("# a note\n")


@pytest.mark.parametrize(
    "edit", [_append_comment, _edit_intent], ids=["a comment", "the intent"]
)
def test_one_edit_rewrites_only_the_shards_of_the_entries_it_changed(
    tmp_path: Path, edit: Edit
) -> None:
    warm = _project(tmp_path, "warm")
    _build(warm)
    _build(warm)
    before, written = _entries(warm), _written(warm)
    assert len(written) > 2
    _build(warm)  # nothing changed: nothing written
    assert _written(warm) == written
    edit(warm)
    _build(warm)
    after, again = _entries(warm), _written(warm)
    assert after.keys() == before.keys()
    changed = {file for file in after if after[file] != before[file]}
    rewritten = {name for name in again if again[name] != written[name]}
    assert rewritten == {_shard_file(warm, file).name for file in changed}
    assert len(rewritten) < len(written)
    # the edited tool's entry, and the lint records that read something of it (their
    # fingerprints of it are new)
    edited = f"{FOLDER}/tools/read_stock.yaml"
    asking = {
        file
        for file, entry in before.items()
        if any(
            key.endswith(":read_stock") for _, read in entry[3][2] for key, _ in read
        )
    }
    assert edited in changed and changed <= asking | {edited}


def test_a_shard_holds_each_fact_its_lint_records_read_once(tmp_path: Path) -> None:
    """Equal facts of the lint records a build made are one object: every tool reads the
    tool names, and a shard's pickle writes them once (and reads them back once). A record
    read back is kept as it was read, sharing what its shard shared."""
    root = _project(tmp_path, "project")
    _build(root)
    repeated = 0  # facts read by more than one record of their shard
    for path in _shard_files(root):
        seen: dict[tuple[str, str], tuple[str, str]] = {}
        for entry in _stored(path.read_bytes())["tools"].values():
            _, _, facts, pairs = entry[3]
            for fact in [f for _, read in facts for f in read] + [
                f for _, _, read in pairs for f in read
            ]:
                repeated += fact in seen
                assert seen.setdefault(fact, fact) is fact, fact
    assert repeated > 0


def _missing(path: Path) -> None:
    path.unlink()


def _truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-9])


def _with_a_flipped_byte(path: Path) -> None:
    path.write_bytes(_flipped(path.read_bytes()))


def _of_another_format(path: Path) -> None:
    path.write_bytes(b"toolgen-front-4\n\0\0\0\0")


def _of_another_key(path: Path) -> None:
    stored = _stored(path.read_bytes())
    path.write_bytes(_store({**stored, "key": "another"}))


def _misplaced(path: Path) -> None:
    # an entry in a shard its file does not hash to (only other code could put it there):
    # it is left out, the shard's other entries are used, and the shard is written again
    stored = _stored(path.read_bytes())
    file, entry = next(iter(stored["tools"].items()))
    stray = next(
        f"{file}.{n}"
        for n in range(100)
        if frontcache._shard_of(f"{file}.{n}") != frontcache._shard_of(file)
    )
    stored["tools"] = {stray: entry, **stored["tools"]}
    path.write_bytes(_store(stored))


# how a shard is damaged, and whether its tools' files are read again
SHARD_DAMAGE: dict[str, tuple[Callable[[Path], None], bool]] = {
    "missing": (_missing, True),
    "truncated": (_truncated, True),
    "a flipped byte": (_with_a_flipped_byte, True),
    "of another format": (_of_another_format, True),
    "of another key": (_of_another_key, True),
    "with a misplaced entry": (_misplaced, False),
}


@pytest.mark.parametrize(
    ("damage", "reparsed"), SHARD_DAMAGE.values(), ids=SHARD_DAMAGE.keys()
)
def test_a_damaged_shard_rebuilds_only_its_tools(
    tmp_path: Path,
    parsed: list[str],
    damage: Callable[[Path], None],
    reparsed: bool,
) -> None:
    warm = _project(tmp_path, "warm")
    _build(warm)
    shard = _shard_file(warm, f"{FOLDER}/tools/read_stock.yaml")
    held = sorted(_stored(shard.read_bytes())["tools"])
    others = _written(warm)
    del others[shard.name]
    damage(shard)
    parsed.clear()
    cold = _cold_copy(tmp_path, warm)
    warm_built = _build(warm)
    reread = held if reparsed else []
    assert sorted(parsed) == sorted([f"{FOLDER}/catalogue.yaml", *reread])
    assert warm_built == _build(cold)
    # the damaged shard is written again, the others are left as they were
    assert sorted(_stored(shard.read_bytes())["tools"]) == held
    again = _written(warm)
    del again[shard.name]
    assert again == others


def test_shards_of_two_builds_are_read_as_one_cache(tmp_path: Path) -> None:
    # a build killed between two renames leaves shards of two builds: each entry is judged
    # by its file's digest, its shard's key and (its lint record) the fingerprints of what
    # it read of the others, never by which build wrote it
    warm = _project(tmp_path, "warm")
    _build(warm)
    first = {path.name: path.read_bytes() for path in _shard_files(warm)}
    _edit_intent(warm)
    _build(warm)
    second = {path.name: path.read_bytes() for path in _shard_files(warm)}
    assert first.keys() == second.keys()
    edited = _shard_file(warm, f"{FOLDER}/tools/read_stock.yaml").name
    changed = {name for name in first if first[name] != second[name]}
    assert len(changed) > 1, "the test needs an edit that changes other tools' records"
    cold = _cold_copy(tmp_path, warm)
    expected = _build(cold)
    for name in changed:
        # every shard but one of the second build, and only one of it
        for new, old in ((second, first), (first, second)):
            mixed = {**new, name: old[name]}
            for shard, data in mixed.items():
                (warm / CACHE_DIR / shard).write_bytes(data)
            assert _build(warm) == expected, (name, edited)


def test_files_of_no_shard_are_removed(tmp_path: Path) -> None:
    warm = _project(tmp_path, "warm")
    _build(warm)
    cache = warm / CACHE_DIR
    prefix = _shard_file(warm, CONFIRM).name.rsplit("-", 1)[0]
    stale = [f"{prefix}.pickle", f"{prefix}-ff.pickle"]  # format 4's file, a 33rd shard
    kept = [
        f"{prefix}-notes.txt",
        f"{prefix}-00.pickle.bak",
        "front-000000000000-00.pickle",  # another catalogue's
    ]
    for name in (*stale, *kept):
        (cache / name).write_bytes(b"x")
    _rename_into_pairs(warm)  # find_customer's entry goes, find_order's comes
    _build(warm)
    assert not [name for name in stale if (cache / name).exists()]
    assert all((cache / name).exists() for name in kept)
    # exactly the shards that hold an entry are left
    assert {path.name for path in _shard_files(warm)} == {
        _shard_file(warm, file).name for file in _entries(warm)
    }
    _edit_catalogue(warm)  # a new key: every shard is written again
    _build(warm)
    keys = {_stored(path.read_bytes())["key"] for path in _shard_files(warm)}
    assert len(keys) == 1


def _read_backs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files of the kept tools whose IR is read back from now on, in order."""
    read_back: list[str] = []
    real = KeptTool._read_back

    def spy(tool: KeptTool) -> None:
        read_back.append(tool.file)
        real(tool)

    monkeypatch.setattr(KeptTool, "_read_back", spy)
    return read_back


def test_an_ir_that_cannot_be_read_back_is_built_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a kept IR is read back only when a stage needs it: a damaged one (under a checksum
    # that holds: what only other code could write) is found then, and the build starts
    # again without the cache
    warm = _project(tmp_path, "warm")
    _build(warm)
    file = f"{FOLDER}/tools/read_stock.yaml"
    cache = _shard_file(warm, file)
    stored = _stored(cache.read_bytes())
    digest, summary, blob, lint, pieces = stored["tools"][file]
    stored["tools"][file] = (digest, summary, blob[:-7], lint, pieces)
    cache.write_bytes(_store(stored))
    # the render cache then needs the tool's IR to render its module again
    (warm / "generated/inventory/read_stock.py").unlink()
    read_back = _read_backs(monkeypatch)
    cold = _cold_copy(tmp_path, warm)
    assert _build(warm) == _build(cold)
    # (a token contract is read back every build: its prepare tool is made of it)
    assert sorted(set(read_back)) == [CONFIRM, file]
    again = _stored(cache.read_bytes())["tools"][file]
    assert isinstance(pickle.loads(again[2]), Tool)


def test_a_rebuild_after_one_edit_reads_back_no_other_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # what makes a rebuild after one edit cost that edit: the other tools' IR stays bytes
    warm = _project(tmp_path, "warm")
    _build(warm)
    _build(warm)
    read_back = _read_backs(monkeypatch)
    # the tools a lint rule asked about the edited one (which re-run that rule), and the
    # token contract (its prepare tool is made of its IR every build)
    asking = {
        file
        for file, entry in _entries(warm).items()
        if any(
            key.endswith(":read_stock") for _, read in entry[3][2] for key, _ in read
        )
    }
    assert asking, "the test needs a tool whose rules ask about the edited one"
    _edit_intent(warm)
    _build(warm)
    assert read_back
    assert set(read_back) <= asking | {CONFIRM}


def test_check_only_reads_and_writes_no_cache(tmp_path: Path) -> None:
    root = _project(tmp_path, "p")
    built = pipeline.build_catalogue(root / FOLDER, root, check_only=True)
    assert built.check.catalogue is not None
    assert not list((root / CACHE_DIR).glob("front-*"))


def test_unchanged_tools_run_only_the_rules_that_read_the_catalogue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warm = _project(tmp_path, "warm")
    _build(warm)
    _edit_intent(warm)
    entries = _entries(warm)
    live = {file: set(entry[3][1]) for file, entry in entries.items()}
    # the rules whose checks asked about the edited tool (its profile, its contract)
    asked = {
        file: {
            rule_id
            for rule_id, read in entry[3][2]
            if any(key.endswith(":read_stock") for key, _ in read)
        }
        for file, entry in entries.items()
    }
    ran: list[tuple[str, str]] = []

    def spied(rule_: Rule) -> Rule:
        real = rule_.check
        assert real is not None

        def check(element: object, ctx: LintContext) -> Iterable[Finding]:
            tool = (
                element if isinstance(element, Tool) else getattr(element, "tool", None)
            )
            if isinstance(tool, Tool):
                ran.append((tool.file, rule_.id))
            return real(element, ctx)

        return dataclasses.replace(rule_, check=check)

    for rule_id, rule_ in list(REGISTRY.items()):
        if rule_.check is not None:
            monkeypatch.setitem(REGISTRY, rule_id, spied(rule_))
    _build(_cold_copy(tmp_path, warm))
    edited = f"{FOLDER}/tools/read_stock.yaml"
    cold = [(file, rule_id) for file, rule_id in ran if file != edited]
    ran.clear()
    _build(warm)
    assert {rule_id for file, rule_id in ran if file == edited} - live[edited]
    others = [(file, rule_id) for file, rule_id in ran if file != edited]
    assert all(rule_id in live[file] | asked[file] for file, rule_id in others), (
        "an unchanged tool ran a rule that read nothing that changed"
    )
    # the rules that read the catalogue are few: most checks of unchanged tools are kept
    assert len(others) * 4 < len(cold)


@pytest.mark.parametrize(
    "change",
    [
        lambda data: data.replace(b"\n", b"\r\n"),  # the same text, read with newlines
        lambda data: data + b"# a hand edit\n",
    ],
    ids=["crlf", "appended"],
)
def test_a_changed_output_is_written_again(
    tmp_path: Path, change: Callable[[bytes], bytes]
) -> None:
    # the render cache reads reused files back; the write stage trusts that reading, so it
    # must be of the bytes themselves
    warm = _project(tmp_path, "warm")
    _, files = _build(warm)
    _build(warm)
    target = "generated/inventory/read_stock.py"
    (warm / target).write_bytes(change(files[target]))
    _, again = _build(warm)
    assert again == files


def test_a_kept_tool_is_the_tool_it_was_made_from(tmp_path: Path) -> None:
    warm = _project(tmp_path, "warm")
    _build(warm)
    fresh = {
        tool.file: tool
        for tool in pipeline.check_catalogue(warm / FOLDER, warm).catalogue.tools  # type: ignore[union-attr]
        if not tool.derived
    }
    front = FrontCache(warm, FOLDER)
    catalogue = load.load_catalogue(warm / FOLDER, FOLDER, warm).catalogue
    held = front.reusable(catalogue)
    assert held.keys() == fresh.keys()
    for kept, tool in zip(front.tools(sorted(held)), sorted(fresh), strict=True):
        original = fresh[tool]
        assert isinstance(kept, KeptTool)
        # what it holds without its IR
        assert (kept.name, kept.file, kept.digest, kept.role) == (
            original.name,
            original.file,
            original.digest,
            original.role,
        )
        assert kept.not_when_uses == original.not_when_uses
        assert kept.param_names == original.param_names
        assert kept.suppressed_rules == original.suppressed_rules
        with pytest.raises(AttributeError):  # not read back yet
            object.__getattribute__(kept, "params")
        # the rest, read back on first use
        assert kept == original and original == kept
        assert hash(kept) == hash(original)
        assert kept.params == original.params and kept.texts == original.texts
        assert object.__getattribute__(kept, "params") == original.params
        assert type(pickle.loads(pickle.dumps(kept))) is Tool
        assert pickle.loads(pickle.dumps(kept)) == original
        assert dataclasses.replace(kept, intent="other").intent == "other"
        assert dataclasses.replace(kept, intent="other").file == original.file
        assert kept.as_tool() == original and type(kept.as_tool()) is Tool
