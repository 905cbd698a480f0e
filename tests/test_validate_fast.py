"""The quick format checks and jsonschema give the same answer, valid or not, on every
document there is: the corpus, the golden trees, the example, the synthetic bench catalogue,
and near-valid documents made from them by damaging one value, one key at a time.

validate.check_document asks a quick check first (the compiled one for a build of many
documents, quickcheck for a few) and walks a document with jsonschema only when it is refused,
so a document a quick check passes but jsonschema would refuse is a format error no one is
told about: that is what this test is here to catch. The other
way round (refused by the compiled check, passed by jsonschema) would only cost time, and is
held to the same equality so that the two stay one definition.
"""

from __future__ import annotations

import copy
import importlib
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

import fastjsonschema  # type: ignore[import-untyped]
import pytest

from toolgen import formatcheck, validate
from toolgen.load import load_document
from toolgen.validate import SchemaKind

ROOT = Path(__file__).parent.parent
# every spec file the repository holds: the corpus (broken on purpose, many of them), the
# golden trees, the example catalogue, the importers' and the docs' fixtures
SPEC_FILES = sorted(
    path
    for pattern in ("tests/**/*.yaml", "spec/**/*.yaml")
    for path in ROOT.glob(pattern)
    if "expected" not in path.parts
)
# values a writer puts where another belongs: every JSON type, the bool/int and int/float
# neighbours (True == 1 and 1.0 == 1 in Python, not in JSON Schema), empty and odd forms
JUNK: tuple[object, ...] = (
    None,
    True,
    False,
    0,
    1,
    -1,
    1.0,
    2.5,
    -0.5,
    "",
    "x",
    "read",
    "1",
    "true",
    "^[a-z]+$",
    "10s",
    "0s",
    [],
    [1],
    ["x"],
    [None],
    [{}],
    {},
    {"x": 1},
    {"type": "string"},
    {"description": "x"},
)
MUTATIONS_PER_DOCUMENT = 40


def _kind(path: Path) -> SchemaKind:
    return "catalogue" if path.name == "catalogue.yaml" else "tool"


# the quick checks validate.check_document asks before jsonschema
QUICK = {
    "compiled": lambda kind, data: validate._passes(kind, data, compiled=True),
    "quickcheck": lambda kind, data: validate._passes(kind, data, compiled=False),
    # what a schema edited without `make format-checks` is checked with
    "compiled here": lambda kind, data: _COMPILED_HERE[kind](data),
}
_COMPILED_HERE = {kind: validate._compiled_here(kind) for kind in get_args(SchemaKind)}


def _jsonschema_accepts(kind: SchemaKind, data: object) -> bool:
    return next(iter(validate._validator(kind).iter_errors(data)), None) is None


def _documents() -> Iterator[tuple[str, SchemaKind, object]]:
    for path in SPEC_FILES:
        document, _ = load_document(path, str(path.relative_to(ROOT)))
        if document is not None:
            yield str(path.relative_to(ROOT)), _kind(path), document.data
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import catalogue as bench_catalogue
    finally:
        sys.path.remove(str(ROOT / "bench"))
    yield "bench catalogue.yaml", "catalogue", bench_catalogue.catalogue_spec()
    for spec in bench_catalogue.tool_specs(60):
        yield f"bench {spec['name']}", "tool", spec


DOCUMENTS = list(_documents())


def _places(
    data: object, path: tuple[object, ...] = ()
) -> Iterator[tuple[object, ...]]:
    yield path
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _places(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _places(value, (*path, index))


def _at(data: object, path: tuple[object, ...]) -> object:
    for part in path:
        data = data[part]  # type: ignore[index]
    return data


def _damaged(data: object, rng: random.Random) -> object:
    """A copy of `data` with one thing wrong, or nearly wrong: a value replaced, a key
    removed, renamed or added, a list emptied or an item repeated."""
    copied = copy.deepcopy(data)
    places = list(_places(copied))
    path = rng.choice(places)
    if not path:
        return rng.choice(JUNK) if rng.random() < 0.1 else copied
    parent = _at(copied, path[:-1])
    last = path[-1]
    how = rng.randrange(6)
    if isinstance(parent, dict):
        assert isinstance(last, str)
        if how == 0:
            del parent[last]
        elif how == 1:
            parent[last + "s"] = parent.pop(last)
        elif how == 2:
            parent["extra"] = rng.choice(JUNK)
        else:
            parent[last] = rng.choice(JUNK)
    elif isinstance(parent, list):
        assert isinstance(last, int)
        if how == 0:
            parent.clear()
        elif how == 1:
            parent.append(copy.deepcopy(parent[last]))
        else:
            parent[last] = rng.choice(JUNK)
    return copied


def test_there_are_documents_of_both_kinds_valid_and_not() -> None:
    answers = {(kind, _jsonschema_accepts(kind, data)) for _, kind, data in DOCUMENTS}
    assert answers == {
        ("tool", True),
        ("tool", False),
        ("catalogue", True),
        ("catalogue", False),
    }
    assert len(DOCUMENTS) > 300


@pytest.mark.parametrize("quick", sorted(QUICK))
@pytest.mark.parametrize(("name", "kind", "data"), DOCUMENTS, ids=lambda v: "")
def test_both_checks_agree_on_the_document(
    name: str, kind: SchemaKind, data: object, quick: str
) -> None:
    assert QUICK[quick](kind, data) == _jsonschema_accepts(kind, data), name


@pytest.mark.parametrize("quick", sorted(QUICK))
def test_both_checks_agree_on_near_valid_documents(quick: str) -> None:
    rng = random.Random(13)
    disagreements = []
    refused = 0
    for name, kind, data in DOCUMENTS:
        if not _jsonschema_accepts(kind, data):
            continue
        for _ in range(MUTATIONS_PER_DOCUMENT):
            damaged = _damaged(data, rng)
            expected = _jsonschema_accepts(kind, damaged)
            refused += not expected
            if QUICK[quick](kind, damaged) != expected:
                disagreements.append((name, damaged, expected))
    assert disagreements == []
    # the damage is real: a good share of the copies no longer pass
    assert refused > 1000


def test_a_refused_document_is_diagnosed_by_jsonschema(tmp_path: Path) -> None:
    path = tmp_path / "read_stock.yaml"
    path.write_text(
        "name: read_stock\nintent: Read the stock.\neffect: reed\n", encoding="utf-8"
    )
    document, problems = load_document(path, "read_stock.yaml")
    assert problems == [] and document is not None
    assert not validate._accepts("tool")(document.data)
    found = validate.check_document(document, "tool", compiled=True)
    assert [(d.code, d.span.line) for d in found] == [("TG103", 3)]
    assert "expected one of read, write" in found[0].message
    # a build of a few documents (not compiling) says exactly the same
    assert validate.check_document(document, "tool", compiled=False) == found


@pytest.mark.parametrize("kind", get_args(SchemaKind))
def test_the_shipped_compiled_check_is_made_from_the_installed_schema(
    kind: SchemaKind,
) -> None:
    module = importlib.import_module(f"toolgen.formatcheck.{kind}")
    assert validate.schema_digest(kind) == module.SCHEMA_DIGEST, (
        f"schemas/{kind}.v1.json changed: run `make format-checks`"
    )
    assert validate._accepts(kind).__qualname__ == "accepting.<locals>.accepts"


@pytest.mark.parametrize("kind", get_args(SchemaKind))
def test_the_shipped_compiled_check_is_what_the_installed_fastjsonschema_makes(
    kind: SchemaKind,
) -> None:
    shipped = (ROOT / f"generator/toolgen/formatcheck/{kind}.py").read_text("utf-8")
    made_by = re.search(r'^VERSION = "(.+)"$', shipped, re.MULTILINE)
    assert made_by is not None
    if made_by.group(1) != fastjsonschema.VERSION:
        pytest.skip(
            f"made by fastjsonschema {made_by.group(1)}, {fastjsonschema.VERSION} is "
            "installed: only the answers can be compared (the tests above)"
        )
    assert shipped == validate.compiled_source(kind)


def test_a_compiled_check_of_another_schema_text_is_not_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(validate, "schema_digest", lambda kind: "edited")
    validate._accepts.cache_clear()
    try:
        assert formatcheck.check_of("tool", "edited") is None
        accepts = validate._accepts("tool")
        assert accepts.__qualname__ == "accepting.<locals>.accepts"
        assert accepts({"name": "x", "intent": "y", "effect": "read"})
        assert not accepts({"name": "x", "intent": "y", "effect": "reed"})
    finally:
        validate._accepts.cache_clear()


def test_a_build_never_imports_fastjsonschema(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    script = (
        "import sys\n"
        "from toolgen import validate\n"
        "validate.compile_schemas()\n"
        "from toolgen.cli import main\n"
        "main(['check'])\n"
        "print('fastjsonschema' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout.strip().splitlines()[-1] == "False", done.stderr
