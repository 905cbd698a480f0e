"""`toolgen import --from openapi` of a document the size of GitHub's REST description.

GitHub's description (npm `@octokit/openapi`, OpenAPI 3.0.3) has 1,223 operations, each
operationId with a `/` in it (`repos/get-content`), shared components reached by `$ref`, and
is 13 MB of JSON. The document here is generated with the same traits, so the test needs no
download: 1,200 operations under 12 namespaces, parameters, bodies, responses and schemas
shared through `#/components/...`, nested references.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolgen import cli
from toolgen.interop.importers.draft import legal_name
from toolgen.spec import load

NAMESPACES = (
    "repos", "issues", "pulls", "orgs", "users", "actions", "gists", "teams", "checks",
    "packages", "projects", "security-advisories",
)  # fmt: skip
OBJECTS = (
    "content", "release", "label", "milestone", "comment", "review", "webhook", "secret",
    "variable", "runner", "artifact", "deployment", "environment", "invitation", "member",
    "branch", "commit", "status", "check-run", "pages-site",
)  # fmt: skip
# the verbs of a collection's path, then of an item's, with the HTTP method of each
COLLECTION = {"list": "get", "create": "post"}
ITEM = {"get": "get", "update": "patch", "delete": "delete"}
BOUNDED = {"per_page": (1, 100), "page": (1, 10_000)}


def _ref(kind: str, name: str) -> dict[str, str]:
    return {"$ref": f"#/components/{kind}/{name}"}


def _components() -> dict[str, Any]:
    owner = {
        "type": "object",
        "required": ["login", "id"],
        "properties": {
            "login": {"type": "string", "description": "The account's login."},
            "id": {"type": "integer", "description": "The account's id."},
            "site_admin": {"type": "boolean"},
            "html_url": {"type": "string", "format": "uri"},
        },
    }
    item = {
        "type": "object",
        "required": ["id", "name", "owner"],
        "properties": {
            "id": {"type": "integer"},
            "name": {"type": "string", "maxLength": 100},
            "description": {"type": "string", "nullable": True},
            "owner": _ref("schemas", "simple-user"),
            "labels": {"type": "array", "items": _ref("schemas", "label")},
            "state": {"type": "string", "enum": ["open", "closed"]},
            "created_at": {"type": "string", "format": "date-time"},
            **{f"extra_{n}": {"type": "string"} for n in range(20)},
        },
    }
    label = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "color": {"type": "string", "pattern": "^[0-9a-f]{6}$"},
            "creator": _ref("schemas", "simple-user"),
        },
    }
    error = {"type": "object", "properties": {"message": {"type": "string"}}}
    return {
        "schemas": {
            "simple-user": owner,
            "item": item,
            "label": label,
            "basic-error": error,
        },
        "parameters": {
            "owner": {
                "name": "owner",
                "in": "path",
                "required": True,
                "description": "The account owner, not case sensitive.",
                "schema": {"type": "string"},
            },
            "item_id": {
                "name": "item_id",
                "in": "path",
                "required": True,
                "schema": {"type": "integer", "minimum": 1},
            },
            **{
                name: {
                    "name": name,
                    "in": "query",
                    "schema": {"type": "integer", "minimum": low, "maximum": high},
                }
                for name, (low, high) in BOUNDED.items()
            },
        },
        "responses": {
            "not_found": {
                "description": "Resource not found",
                "content": {
                    "application/json": {"schema": _ref("schemas", "basic-error")}
                },
            },
        },
        "requestBodies": {
            "item": {
                "required": True,
                "content": {"application/json": {"schema": _ref("schemas", "item")}},
            },
        },
    }


def _operation(namespace: str, verb: str, obj: str) -> dict[str, Any]:
    parameters: list[Any] = [_ref("parameters", "owner")]
    if verb == "list":
        parameters += [_ref("parameters", "per_page"), _ref("parameters", "page")]
    operation: dict[str, Any] = {
        "operationId": f"{namespace}/{verb}-{obj}",
        "summary": f"{verb.capitalize()} {obj.replace('-', ' ')}",
        "tags": [namespace],
        "parameters": parameters,
        "responses": {
            "200": {
                "description": "Response",
                "content": {"application/json": {"schema": _ref("schemas", "item")}},
            },
            "404": _ref("responses", "not_found"),
        },
    }
    if verb in ("create", "update"):
        operation["requestBody"] = _ref("requestBodies", "item")
    return operation


def github_like_document() -> dict[str, Any]:
    """1,200 operations (12 namespaces x 20 objects x 5 verbs), every operationId in
    GitHub's `namespace/verb-object` form; an item's path shares its id parameter."""
    paths: dict[str, Any] = {}
    for namespace in NAMESPACES:
        for obj in OBJECTS:
            collection = f"/{namespace}/{{owner}}/{obj}s"
            paths[collection] = {
                method: _operation(namespace, verb, obj)
                for verb, method in COLLECTION.items()
            }
            paths[collection + "/{item_id}"] = {
                "parameters": [_ref("parameters", "item_id")],
                **{
                    method: _operation(namespace, verb, obj)
                    for verb, method in ITEM.items()
                },
            }
    return {
        "openapi": "3.0.3",
        "info": {"title": "A REST API the size of GitHub's", "version": "1.1.4"},
        "security": [{"token": []}],
        "paths": paths,
        "components": _components(),
    }


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
    assert "1200 tools imported, 0 skipped" in err
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
