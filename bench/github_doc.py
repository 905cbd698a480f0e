"""A REST description the size of GitHub's, for `toolgen import --from openapi`.

GitHub's description (npm `@octokit/openapi`, OpenAPI 3.0.3) has 1,223 operations, each
operationId with a `/` in it (`repos/get-content`), shared components reached by `$ref`, and
is 13 MB of JSON. The document here is generated with the same traits, so neither the
benchmark (`build_figures.openapi_import`) nor tests/test_import_large.py needs a download:
1,200 operations under 12 namespaces, parameters, bodies, responses and schemas shared
through `#/components/...`, nested references.
"""

from __future__ import annotations

from typing import Any

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


def github_like_document(namespaces: int = len(NAMESPACES)) -> dict[str, Any]:
    """100 operations a namespace (20 objects x 5 verbs), 1,200 with every namespace, each
    operationId in GitHub's `namespace/verb-object` form; an item's path shares its id
    parameter."""
    paths: dict[str, Any] = {}
    for namespace in NAMESPACES[:namespaces]:
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
