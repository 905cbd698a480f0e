"""The build cache (build/cache.py): a rebuild compiles the tool files that changed and no
other, replays a build with nothing to do, and gives what a build without it gives; its files
are data that a build may always ignore, and nothing planted in them ever runs."""

from __future__ import annotations

import json
import os
import pickle
import shutil
from collections.abc import Callable, Iterator
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest

from toolgen.build import cache, disk, pipeline, recovery, tool_files
from toolgen.checks import implementations
from toolgen.cli import main
from toolgen.diagnostics import Severity
from toolgen.lint.context import Names
from toolgen.paths import CACHE_DIR, read_regular
from toolgen.spec import load
from toolgen.spec.load import text_digest

ROOT = Path(__file__).resolve().parents[1]
TOOLS = tuple(sorted(p.stem for p in (ROOT / "spec/inventory/tools").glob("*.yaml")))
SENTINEL = "planted-payload-ran"


def _project(root: Path, tools: tuple[str, ...] = TOOLS) -> Path:
    folder = root / "spec" / "shop"
    (folder / "tools").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    source = ROOT / "spec" / "inventory"
    text = (source / "catalogue.yaml").read_text(encoding="utf-8")
    (folder / "catalogue.yaml").write_text(
        text.replace("name: inventory", "name: shop")
    )
    for tool in tools:
        shutil.copy(source / "tools" / f"{tool}.yaml", folder / "tools")
    return folder


def _replays(folder: Path, root: Path) -> tuple[cache.Stamp | None, cache.Found]:
    """What `toolgen build` finds before it builds: the last stamp when it replays."""
    return cache.replay(root, folder, "spec/shop", [folder])


def _build(folder: Path, root: Path) -> pipeline.BuildResult:
    """A build, as `toolgen build` runs one (whether or not the stamp replays)."""
    with recovery.build_lock(root):
        built = pipeline.build_catalogue(folder, root, found=_replays(folder, root)[1])
    assert built.failure is None and built.report is not None, built
    return built


def _package(root: Path) -> dict[str, str]:
    base = root / "generated" / "shop"
    return {
        p.relative_to(base).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(base.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _spy(
    monkeypatch: pytest.MonkeyPatch,
    owner: object,
    name: str,
    note: Callable[..., object],
) -> list[Any]:
    """The calls of `owner.name` from now on, each as `note` makes it of the call's
    arguments; the real function still runs."""
    real = getattr(owner, name)
    noted: list[Any] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        noted.append(note(*args, **kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, spy)
    return noted


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The tool files the pipeline compiles (front: load, format check, model)."""
    return _spy(monkeypatch, tool_files, "_front", lambda source, _: source.file)


def _edit(folder: Path, tool: str) -> None:
    path = folder / "tools" / f"{tool}.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("intent: ", "intent: Edited. ", 1), encoding="utf-8")


def test_a_rebuild_compiles_only_the_tool_file_that_changed(
    tmp_path: Path, parses: list[str]
) -> None:
    folder = _project(tmp_path / "cached")
    _build(folder, tmp_path / "cached")
    assert len(parses) == len(TOOLS)
    _edit(folder, "read_stock")
    parses.clear()
    built = _build(folder, tmp_path / "cached")
    assert parses == ["spec/shop/tools/read_stock.yaml"]
    assert "generated/shop/read_stock.py" in built.report.written  # type: ignore[union-attr]
    # the same files a build without any cache writes
    clean = _project(tmp_path / "clean")
    _edit(clean, "read_stock")
    _build(clean, tmp_path / "clean")
    assert _package(tmp_path / "cached") == _package(tmp_path / "clean")


def test_a_new_tool_name_lints_every_tool_again(
    tmp_path: Path, parses: list[str]
) -> None:
    # what the rules over one tool find depends on the catalogue's names (which tools
    # exist): a tool added makes every unit's key change
    folder = _project(tmp_path)
    _build(folder, tmp_path)
    text = (folder / "tools/read_stock.yaml").read_text(encoding="utf-8")
    (folder / "tools/read_stock_level.yaml").write_text(
        text.replace("name: read_stock", "name: read_stock_level"), encoding="utf-8"
    )
    parses.clear()
    _build(folder, tmp_path)
    assert len(parses) == len(TOOLS) + 1


def test_a_build_with_nothing_to_do_replays_the_last_report(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    first = _build(folder, tmp_path)
    stamp, _ = _replays(folder, tmp_path)
    assert stamp is not None
    assert stamp.diagnostics == first.diagnostics
    assert stamp.unchanged == len(_package(tmp_path)) - 1  # the manifest is not counted
    # anything read or left that changed: no replay
    (tmp_path / "impl/shop/read_stock.py").write_text("# edited\n")
    assert _replays(folder, tmp_path)[0] is None


@pytest.mark.parametrize(
    "change",
    [
        "a generated file edited",
        "a file added to the package",
        "a spec file edited",
        "a file added beside the implementations",
        "a spec file made a link",
    ],
)
def test_a_replay_needs_every_input_and_output_as_left(
    tmp_path: Path, change: str
) -> None:
    folder = _project(tmp_path)
    _build(folder, tmp_path)
    if change == "a generated file edited":
        path = tmp_path / "generated/shop/read_stock.py"
        path.write_text(path.read_text() + "# edited\n")
    elif change == "a file added to the package":
        (tmp_path / "generated/shop/notes.txt").write_text("mine\n")
    elif change == "a spec file edited":
        _edit(folder, "find_customer")
    elif change == "a file added beside the implementations":
        (tmp_path / "impl/shop/prices.csv").write_text("sku,price\n")
    else:
        path = folder / "tools/find_customer.yaml"
        path.rename(tmp_path / "find_customer.yaml")
        path.symlink_to(tmp_path / "find_customer.yaml")
    assert _replays(folder, tmp_path)[0] is None


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What each `toolgen build` from now on reads: the spec folder (`read_sources`) and
    each implementation (root-relative)."""
    noted: list[str] = []
    read_sources = load.read_sources

    def spec(*args: Any) -> load.Sources:
        noted.append("spec")
        return read_sources(*args)

    def implementation(path: Path, *, limit: int) -> bytes:
        noted.append(path.relative_to(Path.cwd()).as_posix())
        return read_regular(path, limit=limit)

    monkeypatch.setattr(load, "read_sources", spec)
    monkeypatch.setattr(implementations, "read_regular", implementation)
    return noted


def _rebuilt(capsys: pytest.CaptureFixture[str], noted: list[str]) -> str:
    """`toolgen build spec/shop` (in the project): what it said, and `noted` emptied."""
    noted.clear()
    capsys.readouterr()
    assert main(["build", "spec/shop"]) == 0
    return capsys.readouterr().err


NOTHING = "(nothing changed since the last build)"
# what a build reads when its stamp does not replay: the spec folder, each implementation once
READ = sorted(["spec", *(f"impl/shop/{tool}.py" for tool in TOOLS)])


@pytest.fixture
def shop(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    reads: list[str],
) -> Path:
    """A project built once by `toolgen build`, in the working folder: its spec folder."""
    folder = _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert NOTHING not in _rebuilt(capsys, reads)
    return folder


def test_a_rebuild_with_nothing_changed_reads_no_file(
    shop: Path, capsys: pytest.CaptureFixture[str], reads: list[str]
) -> None:
    assert NOTHING in _rebuilt(capsys, reads)
    assert reads == []
    # one edit: the spec folder and each implementation are read once
    _edit(shop, "read_stock")
    assert NOTHING not in _rebuilt(capsys, reads)
    assert sorted(reads) == READ
    assert NOTHING in _rebuilt(capsys, reads)


def test_a_change_that_keeps_size_and_modification_time_is_seen(
    shop: Path, capsys: pytest.CaptureFixture[str], reads: list[str]
) -> None:
    # as `cp -p` or an archive leaves a file: its change time says it changed
    path = shop / "tools/read_stock.yaml"
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("intent: ", "intent:\t", 1), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (
        before.st_size,
        before.st_mtime_ns,
    )
    # as if it changed while the last build ran, before the build wrote its stamp
    (stamp,) = Path(CACHE_DIR).glob("*.stamp.jsonl")
    later = path.stat().st_ctime_ns + 10**9
    os.utime(stamp, ns=(later, later))
    assert NOTHING not in _rebuilt(capsys, reads)
    assert "spec" in reads


def test_an_implementation_edited_while_the_build_checks_it_is_checked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the first build creates the stubs, then checks them; an edit right after the check
    # read them must not be taken for what it checked (its status was taken before)
    folder = _project(tmp_path)
    check = implementations.check_implementations
    stub = tmp_path / "impl/shop/read_stock.py"

    def edited_meanwhile(*args: Any, **kwargs: Any) -> Any:
        found = check(*args, **kwargs)
        stub.write_text(stub.read_text(encoding="utf-8") + "def (\n", encoding="utf-8")
        return found

    monkeypatch.setattr(implementations, "check_implementations", edited_meanwhile)
    _build(folder, tmp_path)
    monkeypatch.undo()
    assert _replays(folder, tmp_path)[0] is None
    found = _build(folder, tmp_path).check.diagnostics
    assert any(d.span.file == "impl/shop/read_stock.py" for d in found), found


@pytest.mark.parametrize(
    "how", ["a spec file touched", "the stamp as old as the files"]
)
def test_a_file_whose_status_cannot_tell_is_built_again_then_replays(
    shop: Path, capsys: pytest.CaptureFixture[str], reads: list[str], how: str
) -> None:
    before = _package(Path.cwd())
    if how == "a spec file touched":
        os.utime(shop / "tools/read_stock.yaml")
    else:
        # a file changed in the moment the stamp was written may not show it
        (stamp,) = Path(CACHE_DIR).glob("*.stamp.jsonl")
        os.utime(stamp, ns=(0, 0))
    said = _rebuilt(capsys, reads)
    assert f"0 written, 0 created, 0 removed, {len(before) - 1} unchanged\n" in said
    assert sorted(reads) == READ
    assert _package(Path.cwd()) == before
    assert NOTHING in _rebuilt(capsys, reads)
    assert reads == []


def test_a_hand_edit_of_a_generated_file_is_undone(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    _build(folder, tmp_path)
    before = _package(tmp_path)
    path = tmp_path / "generated/shop/read_stock.py"
    path.write_text(path.read_text().replace("DESCRIPTION", "DESCRIPTION_EDITED", 1))
    built = _build(folder, tmp_path)
    assert built.report.written == ("generated/shop/read_stock.py",)  # type: ignore[union-attr]
    assert _package(tmp_path) == before


def test_a_checkout_with_cr_lf_line_ends_is_up_to_date(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """git on Windows (core.autocrlf) checks text files out with CR LF line ends, the
    specs and the generated package alike: the project is up to date as it was committed,
    whether the build cache is there or not, and the lockfile records the same digests."""
    folder = _project(tmp_path)
    _build(folder, tmp_path)
    before = _package(tmp_path)
    for path in [*folder.rglob("*.yaml"), *(tmp_path / "generated").rglob("*.*")]:
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    shutil.rmtree(tmp_path / CACHE_DIR)
    assert main(["build", "--check", "--root", str(tmp_path), str(folder)]) == 0
    for _ in range(2):  # without the cache, then with the one that build left
        assert _build(folder, tmp_path).report.written == ()  # type: ignore[union-attr]
    assert _package(tmp_path) == before  # read as text: CR LF is LF again
    assert "generated code is up to date" in capsys.readouterr().err


def _payloads(tmp_path: Path) -> dict[str, bytes]:
    """What a hostile pull request or a shared folder could leave in the cache folder: a
    pickle whose loading writes the sentinel, the caches of earlier toolgens (a pickled
    front cache, marshalled code, compiled templates), and JSON of the right format that
    lies (a unit claiming no finding for a file with errors)."""

    class Payload:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (
                exec,
                (f"open({str(tmp_path / SENTINEL)!r}, 'w').write('ran')",),
            )

    planted = pickle.dumps(Payload())
    import marshal

    code = marshal.dumps(
        compile(f"open({str(tmp_path / SENTINEL)!r}, 'w')", "<planted>", "exec")
    )
    return {
        "pickle": planted,
        "marshal": code,
        "not json": b"\x80\x04not json at all",
        "wrong shape": json.dumps({"format": 1, "code": "x", "data": [1, 2]}).encode(),
        "entries of the wrong shape": json.dumps(
            {
                "format": cache.FORMAT,
                "code": cache.BuildCache(tmp_path, "spec/shop").code,
            }
        ).encode()
        + b"\n[1, 2]\n{}",
        "nested deeper than json reads": json.dumps(
            {
                "format": cache.FORMAT,
                "code": cache.BuildCache(tmp_path, "spec/shop").code,
            }
        ).encode()
        + b"\n"
        + b"[" * 200_000,
    }


def test_nothing_planted_in_the_cache_runs_and_the_build_still_succeeds(
    tmp_path: Path,
) -> None:
    folder = _project(tmp_path)
    _build(folder, tmp_path)
    expected = _package(tmp_path)
    kept = tmp_path / CACHE_DIR
    files = sorted(p for p in kept.iterdir() if p.is_file())
    # the stamp, the units and the implementation checks: every cache file a build reads
    assert len(files) == 3
    for name, payload in _payloads(tmp_path).items():
        for file in files:
            file.write_bytes(payload)
        # and where earlier toolgens kept theirs
        (kept / "front-shop.pickle").write_bytes(payload)
        (kept / "templates").mkdir(exist_ok=True)
        (kept / "templates" / "x.jinja-compiled").write_bytes(payload)
        _edit(folder, "read_stock") if name == "pickle" else None
        _build(folder, tmp_path)
        assert not (tmp_path / SENTINEL).exists(), name
    assert _package(tmp_path) != expected  # read_stock was edited: it was rebuilt
    clean = _project(tmp_path / "clean")
    _edit(clean, "read_stock")
    _build(clean, tmp_path / "clean")
    assert _package(tmp_path) == _package(tmp_path / "clean")


def test_a_cache_file_toolgen_did_not_sign_is_not_read(tmp_path: Path) -> None:
    """What a pull request that commits the cache, or a cache shared between machines, could
    carry: a kept unit, under its own key, whose card entry (Python text the build pastes
    into the cards module) runs a command when the package is imported. The file is not
    signed with this user's key, so the build reads none of it and writes the package a
    build without a cache writes."""
    folder = _project(tmp_path)
    _build(folder, tmp_path)
    expected = _package(tmp_path)
    path = next((tmp_path / CACHE_DIR).glob("*.tools.jsonl"))
    header, *lines = path.read_text(encoding="utf-8").split("\n")
    unit = json.loads(lines[0])
    cards = unit[[f.name for f in fields(cache.ToolUnit)].index("cards")]
    name, entry = next(iter(cards.items()))
    payload = f"__import__('os').system('touch {tmp_path / SENTINEL}') or {name!r}"
    cards[name] = entry.replace(f'name="{name}"', f"name={payload}", 1)
    assert cards[name] != entry
    lines[0] = json.dumps(unit, ensure_ascii=False, separators=(",", ":"))
    path.write_text("\n".join([header, *lines]), encoding="utf-8")
    assert cache.BuildCache(tmp_path, "spec/shop").units() == {}
    next((tmp_path / CACHE_DIR).glob("*.stamp.jsonl")).unlink()  # the pass runs
    _build(folder, tmp_path)
    assert _package(tmp_path) == expected
    assert not (tmp_path / SENTINEL).exists()


@pytest.fixture
def own_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Path], None]]:
    """Sets the folder of the user's cache key (XDG_CACHE_HOME) for what follows."""

    def use(folder: Path) -> None:
        monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
        cache._key.cache_clear()

    yield use
    monkeypatch.undo()
    cache._key.cache_clear()


def _built(root: Path) -> cache.BuildCache:
    """The cache of a project built at `root`, with the key of the user set last."""
    _build(_project(root), root)
    return cache.BuildCache(root, "spec/shop")


def test_a_cache_is_read_only_with_the_key_it_was_signed_with(
    tmp_path: Path, own_key: Callable[[Path], None]
) -> None:
    own_key(tmp_path / "alice")
    kept = _built(tmp_path / "project")
    assert len(kept.units()) == len(TOOLS)
    assert (tmp_path / "alice/toolgen/cache.key").stat().st_mode & 0o777 == 0o600
    own_key(tmp_path / "bob")  # another user, or another machine
    assert kept.units() == {} and kept.stamp() is None
    own_key(tmp_path / "alice")
    assert len(kept.units()) == len(TOOLS)
    # no key can be made (the cache folder is a file): the build keeps no cache, and says so
    (tmp_path / "nowhere").write_text("")
    own_key(tmp_path / "nowhere")
    note = kept.save(None, list(kept.units().values()), {})
    assert note is not None and "no key to sign it with" in note, note


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_or_an_endless_file_in_place_of_the_cache_or_its_key_is_no_cache(
    tmp_path: Path, own_key: Callable[[Path], None]
) -> None:
    own_key(tmp_path / "keys")
    kept = _built(tmp_path / "project")
    files = sorted((tmp_path / "project" / CACHE_DIR).glob("*.jsonl"))
    for path in files:  # a plain open of a FIFO waits for a writer forever
        path.unlink()
        os.mkfifo(path)
    assert kept.units() == {} and kept.stamp() is None and kept.checked() == {}
    key = tmp_path / "keys/toolgen/cache.key"
    for planted in (os.mkfifo, lambda path: path.symlink_to("/dev/zero")):
        key.unlink()
        planted(key)
        cache._key.cache_clear()
        assert cache._key() is None  # no key: the build keeps no cache, and says so
    assert sorted(p.name for p in key.parent.iterdir()) == ["cache.key"]


def test_a_build_removes_its_cache_files_of_an_earlier_format(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    _build(folder, tmp_path)
    kept = tmp_path / CACHE_DIR
    current = sorted(p.name for p in kept.iterdir() if p.is_file())
    name = current[0].split(".")[0]
    # what toolgen 0.1's second format left (JSON, not JSON Lines), and files not the cache's
    earlier = [
        kept / f"{name}.{kind}.json" for kind in ("stamp", "tools", "implementations")
    ]
    for path in earlier:
        path.write_text("{}")
    others = [kept / "notes.txt", kept / f"{'0' * 16}.tools.jsonl"]
    for path in others:
        path.write_text("not the cache's")
    (kept / f"{name}.folder").mkdir()  # not a file an earlier build wrote: left alone
    _edit(folder, "read_stock")
    _build(folder, tmp_path)
    assert not any(path.exists() for path in earlier)
    assert all(path.exists() for path in others)
    assert (kept / f"{name}.folder").is_dir()
    assert cache.BuildCache(tmp_path, "spec/shop").stamp() is not None  # saved whole
    assert (
        sorted(p.name for p in kept.iterdir() if p.is_file() and p not in others)
        == current
    )


def test_check_and_build_check_read_no_cache(tmp_path: Path) -> None:
    # a cache that lies: the units kept for a file with a format error, under the keys of
    # its broken text, say it has no finding. A build trusts its own cache (signed with
    # this user's key); what CI runs, check and build --check, never reads it
    folder = _project(tmp_path)
    _build(folder, tmp_path)
    kept = cache.BuildCache(tmp_path, "spec/shop")
    units = kept.units()
    broken = folder / "tools" / "read_stock.yaml"
    broken.write_text(broken.read_text().replace("effect: read", "effect: wobbly"))
    catalogue = text_digest((folder / "catalogue.yaml").read_text(encoding="utf-8"))
    front = cache.digest(
        [catalogue, "spec/shop/tools/read_stock.yaml", _digest(broken)]
    )
    names = Names.of(t.name for u in units.values() for t in u.tools)
    good = units["spec/shop/tools/read_stock.yaml"]
    lie = replace(good, front=front, key=cache.digest([front, names.digest]))
    assert (
        kept.save(None, [*(u for u in units.values() if u is not good), lie], {})
        is None
    )
    assert not any(
        d.severity is Severity.ERROR for d in _build(folder, tmp_path).diagnostics
    )
    checked = pipeline.check_catalogue(folder, tmp_path)
    assert any(
        d.span.file.endswith("read_stock.yaml") and d.severity is Severity.ERROR
        for d in checked.diagnostics
    ), checked.diagnostics
    again = pipeline.build_catalogue(folder, tmp_path, check_only=True)
    assert any(
        d.span.file.endswith("read_stock.yaml") and d.severity is Severity.ERROR
        for d in again.diagnostics
    )


def _digest(path: Path) -> str:
    return text_digest(path.read_text(encoding="utf-8"))


def test_an_implementation_is_parsed_again_only_when_it_or_its_contract_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _project(tmp_path)
    _build(folder, tmp_path)
    parsed = _spy(monkeypatch, implementations, "_check_source", lambda _, rel, __: rel)
    _edit(folder, "read_stock")  # its intent: the signature expected stays the same
    stub = tmp_path / "impl/shop/find_customer.py"
    stub.write_text(stub.read_text() + "# edited by hand\n")
    built = _build(folder, tmp_path)
    assert parsed == ["impl/shop/find_customer.py"]
    assert built.diagnostics == pipeline.check_catalogue(folder, tmp_path).diagnostics


def test_a_rebuild_encodes_only_the_units_that_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a unit the cache gave is saved again as the line it was read from
    folder = _project(tmp_path)
    _build(folder, tmp_path)
    encoded = _spy(monkeypatch, cache, "unit_line", lambda unit: unit.file)
    _edit(folder, "read_stock")
    _build(folder, tmp_path)
    assert encoded == ["spec/shop/tools/read_stock.yaml"]
    # and what it saved serves the next build as a fresh one would
    kept = cache.BuildCache(tmp_path, "spec/shop").units()
    assert len(kept) == len(TOOLS)
    clean = _project(tmp_path / "clean")
    _edit(clean, "read_stock")
    _build(clean, tmp_path / "clean")
    fresh = cache.BuildCache(tmp_path / "clean", "spec/shop").units()
    assert kept == fresh


def test_a_build_creates_each_formatted_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ruff formats a copy of each Python file: the write moves that copy into the package
    # (or into place, for a stub) instead of creating the file a second time
    written = _spy(monkeypatch, disk.FS, "write_new", lambda path, _: path.name)
    folder = _project(tmp_path)
    _build(folder, tmp_path)
    python = [name for name in written if ".py" in name]  # a stub's temporary name too
    assert python == ["_cards.py"]  # assembled from the tools' entries after formatting
    assert len(_package(tmp_path)) > 10
    clean = _project(tmp_path / "clean")
    monkeypatch.undo()
    _build(clean, tmp_path / "clean")
    assert _package(tmp_path) == _package(tmp_path / "clean")


def test_a_build_stopped_by_an_error_leaves_no_unit_the_next_build_trusts(
    tmp_path: Path,
) -> None:
    # a build that stops before rendering (here at a file toolgen did not write) keeps the
    # units it compiled without their rendered parts: the next build compiles them again
    folder = _project(tmp_path)
    _build(folder, tmp_path)
    foreign = tmp_path / "generated" / "shop" / "foreign.py"
    foreign.write_text("x = 1\n")
    _edit(folder, "read_stock")
    with recovery.build_lock(tmp_path):
        stopped = pipeline.build_catalogue(folder, tmp_path)
    assert stopped.report is None
    assert any(d.code == "TG163" for d in stopped.diagnostics)
    foreign.unlink()
    _build(folder, tmp_path)
    clean = _project(tmp_path / "clean")
    _edit(clean, "read_stock")
    _build(clean, tmp_path / "clean")
    assert _package(tmp_path) == _package(tmp_path / "clean")
