"""`toolgen import --from openapi` of a document the size of GitHub's REST description
(bench/github_doc.py, which the benchmark times): every operation is imported, names and
shared `$ref`s as GitHub writes them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from toolgen import cli
from toolgen.interop.importers.draft import legal_name
from toolgen.spec import load

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from github_doc import github_like_document


def _operation_count(document: dict[str, Any]) -> int:
    return sum(len(set(item) - {"parameters"}) for item in document["paths"].values())


@pytest.mark.slow
def test_a_document_the_size_of_githubs_imports_every_operation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    document = github_like_document()
    assert _operation_count(document) == 1_200
    source = tmp_path / "api.json"
    source.write_text(json.dumps(document, indent=2), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "rest"
    # how long it takes is the benchmark's business, not a test's: a busy machine made a
    # bound here fail (10.3 s of processor time against 10, 7.3 s on a quiet one)
    status = cli.main(["import", "--from", "openapi", str(source), "--out", str(out)])
    err = capsys.readouterr().err
    assert "1,200 tools imported, 0 skipped" in err
    assert "0 format errors" in err
    assert status == 1  # the HTTP calls, the security and the tags are not carried
    written = sorted(p.stem for p in (out / "tools").glob("*.yaml"))
    assert len(written) == 1_200
    assert "repos_get_content" in written
    assert "security_advisories_list_check_run" in written
    text = (out / "tools" / "repos_get_content.yaml").read_text(encoding="utf-8")
    assert (
        "#   the tool: name 'repos/get-content': a tool name is 1 to 64 letters, digits, "
        "'_' or '-', so the draft is named 'repos_get_content'\n"
    ) in text
    parsed, problems = load.load_document(
        out / "tools" / "repos_update_label.yaml", "x"
    )
    assert parsed is not None and problems == []
    data = parsed.data
    assert isinstance(data, dict)
    assert data["name"] == "repos_update_label"
    params = data["params"]
    assert isinstance(params, dict)
    # the shared path parameter and the body's properties, through their $refs
    assert params["owner"]["description"] == "The account owner, not case sensitive."
    assert params["item_id"] == {"type": "integer", "min": 1}
    assert params["labels"]["items"]["properties"]["creator"]["properties"]["login"]
    assert data["returns"]["owner"]["properties"]["id"] == {
        "type": "integer",
        "description": "The account's id.",
    }


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("get_time", "get_time"),  # a legal name is kept as it is, '-' included
        ("get-time", "get-time"),
        ("repos/get-content", "repos_get_content"),
        ("github.create_issue", "github_create_issue"),
        ("  spaced out / name ", "spaced_out_name"),
        # over 64 characters: the namespace goes first, then whole words from the end
        (
            "actions/get-fork-pr-contributor-approval-permissions-organization",
            "get_fork_pr_contributor_approval_permissions_organization",
        ),
        (
            "packages/list-docker-migration-conflicting-packages-for-authenticated-user",
            "list_docker_migration_conflicting_packages_for_authenticated",
        ),
        ("a" * 70, ""),  # one word too long: no name without inventing one
        ("///", ""),
    ],
)
def test_a_source_name_becomes_a_legal_tool_name(given: str, expected: str) -> None:
    assert legal_name(given) == expected
