"""The fuzzer judges guarded tools, pages, output contracts and token pairs, both ways.

Each generated tool of the example catalogue that has one of these passes `fuzz_module` with
the fuzzer's own boundaries and services; then the same module is rebuilt with one thing
changed (a guard that lets a path out of its root through, an answer left uncut, a confirm
tool without its token gate...), and the fuzz must fail naming that broken promise. A variant
is the generated module with some of its globals replaced: its `build_tool` runs with the
variant's globals, so it builds the tool the generated code would with the change.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import Annotated, Any
from urllib.parse import urlsplit

import pytest
from agents.tool_context import ToolContext
from pydantic import BaseModel, Field
from toolgen_runtime import Invoker, StrictArgs
from toolgen_runtime.fuzz import FuzzFailure, FuzzReport, fuzz_module, unmodelled
from toolgen_runtime.guards import (
    CheckedPath,
    CheckedUrl,
    GuardFailure,
    PathGuard,
    UrlGuard,
    as_pydantic_error,
)
from toolgen_runtime.guards.scope import CallScope, scope_of
from toolgen_runtime.output import OutputContract
from toolgen_runtime.pagination import Offset, Pagination, Position

from generated.inventory import (
    InventoryContext,
    confirm_order,
    prepare_order,
    read_document,
    read_supplier_notice,
    search_orders,
)
from toolgen.build import pipeline
from toolgen.spec.toolschema import parameters_schema

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

CONTEXT = InventoryContext(customer_id=1, run_id="run-1")
# the contracts with every constraint, from the compiler's model of the spec (what the
# generated tests pass as `contract`), as tests/runtime/test_fuzz_catalogues.py takes them
_CHECKED = pipeline.check_catalogue(
    ROOT / "spec" / "inventory", ROOT, implementations=False
)
assert _CHECKED.catalogue is not None
CONTRACTS = {
    tool.name: parameters_schema(tool.params, full=True)
    for tool in _CHECKED.catalogue.tools
}


def _fuzz(module: types.ModuleType, **options: Any) -> FuzzReport:
    return fuzz_module(
        module,
        context=CONTEXT,
        contract_schema=CONTRACTS[module.NAME],
        max_examples=options.pop("max_examples", 60),
        **options,
    )


def _variant(module: types.ModuleType, **replaced: object) -> types.ModuleType:
    """The generated module with some globals replaced, its `build_tool` reading them."""
    variant = types.ModuleType(module.__name__)
    variant.__dict__.update(vars(module))
    variant.__dict__.update(replaced)
    build = module.build_tool
    rebuilt = types.FunctionType(
        build.__code__,
        variant.__dict__,
        build.__name__,
        build.__defaults__,
        build.__closure__,
    )
    rebuilt.__kwdefaults__ = build.__kwdefaults__
    variant.__dict__["build_tool"] = rebuilt
    variant.__dict__["TOOL"] = rebuilt()
    return variant


def _editing(
    edit: Callable[[str], str], **dropped: object
) -> type[Invoker[Any, Any, Any]]:
    """An Invoker whose answers are edited on their way out, and which is built without
    the keyword arguments in `dropped` (set to the values given)."""

    class Editing(Invoker[Any, Any, Any]):
        def __init__(self, **options: Any) -> None:
            super().__init__(**{**options, **dropped})

        async def __call__(self, ctx: ToolContext[Any], raw_json: str) -> str:
            return edit(await super().__call__(ctx, raw_json))

    return Editing


def _unchanged(text: str) -> str:
    return text


# --- guarded arguments: paths and URLs ----------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _LaxPathGuard(PathGuard):
    """Checks that the name leads to a file, not that the file is inside the root: `..`
    and a link out of the root pass."""

    def check(self, value: object, context: Any) -> CheckedPath:
        root = scope_of(context, "a lax guard").boundaries.root(self.root)
        try:
            found = isinstance(value, str) and (root / value).is_file()
        except (OSError, ValueError):
            found = False
        if not found:
            raise as_pydantic_error(GuardFailure("path_not_found", "no such file"))
        assert isinstance(value, str)
        return CheckedPath(value, root, PurePosixPath(value), True, None)


@dataclasses.dataclass(frozen=True)
class _FolderlessPathGuard(PathGuard):
    """Refuses every name in a folder, as pydantic's own error (no boundary code)."""

    def check(self, value: object, context: Any) -> CheckedPath:
        if isinstance(value, str) and "/" in value:
            raise ValueError("folders are not supported")
        return super().check(value, context)


@dataclasses.dataclass(frozen=True)
class _ClosedPathGuard(PathGuard):
    """Refuses every path, with a code of its own kind."""

    def check(self, value: object, context: Any) -> CheckedPath:
        raise as_pydantic_error(GuardFailure("path_not_found", "no such file"))


class _ClosedDocumentArgs(StrictArgs):
    name: Annotated[CheckedPath, _ClosedPathGuard("archive", suffixes=(".md", ".txt"))]


class _LaxDocumentArgs(StrictArgs):
    name: Annotated[CheckedPath, _LaxPathGuard("archive", suffixes=(".md", ".txt"))]


class _FolderlessDocumentArgs(StrictArgs):
    name: Annotated[
        CheckedPath, _FolderlessPathGuard("archive", suffixes=(".md", ".txt"))
    ]


@dataclasses.dataclass(frozen=True)
class _AnyHostUrlGuard(UrlGuard):
    """Checks the scheme only: any host passes."""

    def check(self, value: object, context: Any) -> CheckedUrl:
        if not isinstance(value, str) or not value.startswith("https://"):
            failure = GuardFailure("url_scheme_not_allowed", "not https", schemes="")
            raise as_pydantic_error(failure)
        parts = urlsplit(value)
        return CheckedUrl(
            value, "https", parts.hostname or "", 443, parts.path or "/", None, None
        )


class _AnyHostNoticeArgs(StrictArgs):
    url: Annotated[CheckedUrl, _AnyHostUrlGuard(hosts=("suppliers.example.com",))]


def test_the_generated_guarded_tools_pass() -> None:
    for module in (read_document, read_supplier_notice, search_orders):
        assert unmodelled(module) is None
        report = _fuzz(module)
        # allowed arguments refused at the boundary (counted apart), others accepted
        assert report.refused_at_boundary > 0, report.summary()
        assert report.accepted > 0 and report.rejected > 0, report.summary()


def test_a_path_guard_that_lets_a_path_out_of_its_root_through_fails() -> None:
    lax = _variant(read_document, ReadDocumentArgs=_LaxDocumentArgs)
    with pytest.raises(FuzzFailure, match="the guard of name let through") as failure:
        _fuzz(lax)
    assert "leads outside the root 'archive'" in str(failure.value)


def test_a_guard_that_refuses_a_good_path_without_a_boundary_code_fails() -> None:
    folderless = _variant(read_document, ReadDocumentArgs=_FolderlessDocumentArgs)
    # the fuzzer's own root holds the spec's example, policies/returns.md
    with pytest.raises(FuzzFailure, match="rejected arguments the contract allows"):
        _fuzz(folderless)


def test_a_guard_that_refuses_a_file_its_settings_allow_fails() -> None:
    closed = _variant(read_document, ReadDocumentArgs=_ClosedDocumentArgs)
    with pytest.raises(
        FuzzFailure,
        match=re.escape("refused name 'fuzz.md', which its guard's settings allow"),
    ):
        _fuzz(closed)


def test_a_url_guard_that_lets_another_host_through_fails() -> None:
    lax = _variant(read_supplier_notice, ReadSupplierNoticeArgs=_AnyHostNoticeArgs)
    with pytest.raises(FuzzFailure, match=r"the guard of url let through.*host"):
        _fuzz(lax)


def test_a_guarded_tool_is_fuzzed_with_the_boundaries_it_is_given() -> None:
    from toolgen_runtime.testing import boundaries_for_tests

    # the test's boundaries hold only note.md: valid arguments name it
    report = _fuzz(
        read_document, boundaries=boundaries_for_tests({"archive": ("note.md",)})
    )
    assert report.accepted > 0 and report.refused_at_boundary > 0, report.summary()


# --- output contracts ---------------------------------------------------------------------

_REDACTING = OutputContract(max_chars={"text": 2000}, sensitive=frozenset({"name"}))


def test_the_output_contract_is_judged_from_its_settings() -> None:
    assert _fuzz(read_document).accepted > 0
    # redaction too: the same tool with its name declared sensitive
    report = _fuzz(_variant(read_document, OUTPUT=_REDACTING))
    assert report.accepted > 0, report.summary()


@pytest.mark.parametrize(
    ("output", "invoker", "message"),
    [
        (
            read_document.OUTPUT,
            _editing(_unchanged, output=None),
            "text has 2[0-9]{3} characters: it must be cut to at most 2000",
        ),
        (
            read_document.OUTPUT,
            _editing(lambda text: text.replace(',"truncated":["text"]', "")),
            "truncated must list exactly the cut texts",
        ),
        (
            read_document.OUTPUT,
            _editing(
                lambda text: text.replace(
                    '"truncated":["text"]', '"truncated":["name"]'
                )
            ),
            "truncated must list exactly the cut texts",
        ),
        (
            _REDACTING,
            _editing(_unchanged, output=read_document.OUTPUT),
            "name is sensitive but not \\[redacted\\]",
        ),
    ],
    ids=["not-cut", "cut-not-listed", "lists-another-field", "not-redacted"],
)
def test_an_answer_that_breaks_the_output_contract_fails(
    output: OutputContract, invoker: type[Invoker[Any, Any, Any]], message: str
) -> None:
    broken = _variant(read_document, OUTPUT=output, Invoker=invoker)
    with pytest.raises(FuzzFailure, match=message) as failure:
        _fuzz(broken)
    assert "arguments: " in str(failure.value) and "answer: " in str(failure.value)


# --- pages --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda text: text.replace('"items":[{', '"items":[{"debug":1,', 1),
            "item 0 must hold exactly",
        ),
        (
            lambda text: text.replace('"next_cursor":null,', '"next_cursor":"x",'),
            "next_cursor must be a cursor exactly when there is a next page",
        ),
        (
            lambda text: text.replace('{"ok":true,', '{"ok":true,"page":1,', 1),
            "a page must hold exactly",
        ),
        (
            lambda text: text.replace('"shown":1,', '"shown":2,', 1),
            "shown must be 1, as returned",
        ),
    ],
    ids=["item-leaks-a-field", "cursor-on-the-last-page", "extra-key", "wrong-count"],
)
def test_a_page_that_breaks_its_shape_fails(
    edit: Callable[[str], str], message: str
) -> None:
    broken = _variant(search_orders, Invoker=_editing(edit))
    with pytest.raises(FuzzFailure, match=message):
        _fuzz(broken)


class _OffByOne(Pagination):
    """Hands out cursors one row past where the page ended."""

    def encode(
        self, position: Position, shown: int, args: BaseModel, scope: CallScope
    ) -> str:
        assert isinstance(position, Offset)
        return super().encode(Offset(position.value + 1), shown, args, scope)


def _pagination(kind: type[Pagination], **changed: object) -> Pagination:
    declared = search_orders.PAGINATION
    fields = {f.name: getattr(declared, f.name) for f in dataclasses.fields(declared)}
    return kind(**{**fields, **changed})


def test_a_next_cursor_leads_to_the_next_page() -> None:
    report = _fuzz(search_orders)
    assert report.kinds["next page"] > 0, report.summary()


@pytest.mark.parametrize(
    ("pagination", "message"),
    [
        (
            # the argument model still reads cursors as search_orders's
            _pagination(Pagination, tool="search_orders_v2"),
            "refused the next_cursor it answered, with the same filters",
        ),
        (
            _pagination(_OffByOne),
            r"the next_cursor leads to Offset\(value=2\) after 1 rows, not where the page "
            r"ended \(Offset\(value=1\) after 1 rows\)",
        ),
    ],
    ids=["cursor-of-another-tool", "cursor-one-row-off"],
)
def test_a_next_cursor_the_tool_refuses_or_misplaces_fails(
    pagination: Pagination, message: str
) -> None:
    broken = _variant(search_orders, PAGINATION=pagination)
    with pytest.raises(FuzzFailure, match=message) as failure:
        _fuzz(broken)
    assert "then its next_cursor" in str(failure.value)


# --- token pairs --------------------------------------------------------------------------


def test_the_generated_token_pair_passes() -> None:
    for module in (prepare_order, confirm_order):
        assert unmodelled(module) is None
    prepared = _fuzz(prepare_order)
    assert prepared.accepted > 0 and prepared.rejected > 0, prepared.summary()
    confirmed = _fuzz(confirm_order)
    # real tokens reach the implementation (results and declared errors); made-up ones
    # are refused with token_invalid
    assert confirmed.accepted > 0 and confirmed.declared_errors > 0, confirmed.summary()
    assert confirmed.refused_token > 0, confirmed.summary()


def test_a_confirm_tool_that_runs_without_a_token_fails() -> None:
    ungated = _variant(confirm_order, Invoker=_editing(_unchanged, confirmation=None))
    with pytest.raises(FuzzFailure, match="ran without a token prepare_order issued"):
        _fuzz(ungated)


def test_a_confirm_tool_that_refuses_a_real_token_fails() -> None:
    # the gate digests another tool's name: every token prepare_order issues is refused
    other = dataclasses.replace(
        confirm_order.CONFIRMATION, confirm_tool="confirm_other"
    )
    refusing = _variant(confirm_order, CONFIRMATION=other)
    with pytest.raises(
        FuzzFailure, match="refused a token prepare_order issued for these arguments"
    ):
        _fuzz(refusing)


def _tampered(text: str) -> str:
    answer = json.loads(text)
    if answer.get("ok") is True:
        token = answer["token"]
        answer["token"] = token[:-4] + (
            "AAAA" if not token.endswith("AAAA") else "BBBB"
        )
    return json.dumps(answer)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_tampered, "the token is not one confirm_order takes for these arguments"),
        (
            lambda text: text.replace('"expires_in_s":600', '"expires_in_s":60'),
            "expires_in_s must be the token's 600 s",
        ),
    ],
    ids=["token-for-nothing", "wrong-expiry"],
)
def test_a_prepare_tool_that_answers_a_bad_token_fails(
    edit: Callable[[str], str], message: str
) -> None:
    broken = _variant(prepare_order, Invoker=_editing(edit))
    with pytest.raises(FuzzFailure, match=message):
        _fuzz(broken)


# --- guards below the top level: an array's items, an object's property ---------------------


class _Attachment(StrictArgs):
    path: Annotated[CheckedPath, PathGuard("archive")]


class _NestedArgs(StrictArgs):
    attachments: list[_Attachment]
    cover: Annotated[CheckedUrl, UrlGuard(hosts=("example.com",))] | None


class _ListedArgs(StrictArgs):
    names: list[list[Annotated[CheckedPath, PathGuard("archive")]]]


def test_a_guard_is_found_at_any_depth() -> None:
    from toolgen_runtime.fuzz.model import guarded_fields

    assert list(guarded_fields(read_document.ReadDocumentArgs)) == ["name"]
    nested = guarded_fields(_NestedArgs)
    assert {name: g.kind for name, g in nested.items()} == {
        "attachments.*.path": "path",
        "cover": "url",
    }
    assert nested["attachments.*.path"].holds("attachments.3.path")
    assert not nested["attachments.*.path"].holds("attachments.path")
    assert list(guarded_fields(_ListedArgs)) == ["names.*.*"]


# the every_type golden case's read_visit_files: paths as an array's items, as an object's
# property, and a top-level one that may be null
GOLDEN = ROOT / "tests" / "golden" / "every_type" / "expected"


@pytest.fixture(scope="module")
def visit_files() -> Iterator[types.ModuleType]:
    sys.path.insert(0, str(GOLDEN))
    try:
        yield importlib.import_module("every_generated.every.read_visit_files")
    finally:
        sys.path.remove(str(GOLDEN))


def _fuzz_visit_files(module: types.ModuleType) -> FuzzReport:
    """A fuzz with the fuzzer's own boundaries, the contract and context of the module's
    generated test."""
    tests = importlib.import_module("every_generated.every.tests.test_read_visit_files")
    test = tests.TestReadVisitFiles
    return fuzz_module(module, context=test.context, contract_schema=test.contract)


def test_guards_below_the_top_level_are_fuzzed(visit_files: types.ModuleType) -> None:
    assert unmodelled(visit_files) is None
    report = _fuzz_visit_files(visit_files)
    assert report.kinds["probe"] == 36, (
        report.summary()
    )  # 12 probes at each of 3 places
    assert report.refused_at_boundary > 0 and report.accepted > 0, report.summary()


@pytest.mark.parametrize("place", ["reports", "cover"])
def test_a_nested_guard_that_lets_a_path_out_of_its_root_fails(
    visit_files: types.ModuleType, place: str
) -> None:
    lax = _LaxPathGuard("visit_files", suffixes=(".txt",))

    class LaxCover(StrictArgs):
        sheet: Annotated[CheckedPath, lax]

    class LaxArgs(visit_files.ReadVisitFilesArgs):  # type: ignore[name-defined,misc]
        if place == "reports":
            reports: Annotated[list[Annotated[CheckedPath, lax]], Field(max_length=3)]
        else:
            cover: LaxCover

    broken = _variant(visit_files, ReadVisitFilesArgs=LaxArgs)
    field = r"reports\.\d+" if place == "reports" else r"cover\.sheet"
    with pytest.raises(
        FuzzFailure, match=f"the guard of {field} let through"
    ) as failure:
        _fuzz_visit_files(broken)
    assert "outside the root 'visit_files'" in str(failure.value)


def test_a_confirm_tool_idempotent_by_key_is_left_unmodelled() -> None:
    from generated.inventory import send_order

    both = _variant(confirm_order, IDEMPOTENCY=send_order.IDEMPOTENCY)
    assert "idempotent by key" in (unmodelled(both) or "")
