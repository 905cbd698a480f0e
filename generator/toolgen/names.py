"""The names toolgen gives things: what the model may be shown, and what Python may be given.

Every name of generated code is computed here, once: a tool's module and classes, the Python
attribute of a parameter, a return field or a context field. A name the model sees is kept as
written; its Python form gets `_` appended when Python, pydantic or the generated module uses
it already, so no spec name can break the code it becomes.
"""

from __future__ import annotations

import keyword
import re

MODEL_NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
IDENTIFIER_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# Module names the generated package uses itself (context.py, tests/, the functions of its
# __init__) or that generated modules import at their top level beside the tool modules: a
# tool named like one is generated under the name with "_" appended (tools -> tools_.py).
RESERVED_MODULES = frozenset(
    {
        "context", "tests", "tools", "all_tools", "importlib", "json", "datetime", "copy",
        "pytest", "agents", "pydantic", "toolgen_runtime", "typing", "collections",
        "dataclasses", "module", "builtins", "annotations", "tool_names", "toolset",
        "check_services", "lazy_tool", "require_services",
    }
)  # fmt: skip

# Return fields the envelope itself uses: a result field with one of these names would
# overwrite what the model reads first. `truncated` lists the texts an output contract cut;
# `duplicate` marks a repeated write answered with its first outcome.
ENVELOPE_KEYS = frozenset(
    {"ok", "error", "how_to_fix", "retryable", "problems", "truncated", "duplicate"}
)

# Attribute names pydantic's BaseModel already uses: a field with one of these names would
# shadow a method, so it gets an alias like a keyword does.
_BASEMODEL_NAMES = frozenset(
    {
        "construct", "copy", "dict", "from_orm", "json", "parse_file", "parse_obj",
        "parse_raw", "schema", "schema_json", "update_forward_refs", "validate",
        "model_config", "model_fields", "model_computed_fields", "model_extra",
        "model_fields_set", "model_construct", "model_copy", "model_dump",
        "model_dump_json", "model_json_schema", "model_parametrized_name",
        "model_post_init", "model_rebuild", "model_validate", "model_validate_json",
        "model_validate_strings",
    }
)  # fmt: skip

# Names a generated class body or function uses for something else: a field with one of these
# names would shadow a type in the annotations after it, or the instance itself.
_SHADOWING_NAMES = frozenset(
    {
        "self", "cls", "str", "int", "float", "bool", "list", "dict", "object", "type",
        "datetime", "Literal", "Annotated", "Field", "AwareDatetime", "Any", "Final",
    }
)  # fmt: skip

# The names a generated tool module imports or defines besides the tool's own classes; a
# class generated under one of them would shadow it.
MODULE_NAMES = frozenset(
    {
        "Annotated", "Any", "Awaitable", "AwareDatetime", "BaseModel", "Callable",
        "ConfigDict", "DeclaredError", "Field", "FieldHint", "Final", "FunctionTool",
        "Implementation", "Invoker", "Literal", "StrictArgs", "ToolError",
    }
)  # fmt: skip


_WORD_BREAKS = re.compile(r"[_\-\s]+")
_NOT_PYTHON = re.compile(r"[^A-Za-z0-9_]")


def pascal(name: str) -> str:
    """find_customer -> FindCustomer; max-results -> MaxResults."""
    return "".join(part[:1].upper() + part[1:] for part in _WORD_BREAKS.split(name))


def python_name(name: str) -> str:
    """The Python attribute for a name the model sees: keywords and reserved names get `_`."""
    candidate = _NOT_PYTHON.sub("_", name)
    if candidate[:1].isdigit() or candidate.startswith("_"):
        # pydantic treats a leading underscore as private, never as a field
        candidate = "f_" + candidate.lstrip("_")
    if (
        keyword.iskeyword(candidate)
        or candidate in _BASEMODEL_NAMES
        or candidate in _SHADOWING_NAMES
    ):
        candidate += "_"
    return candidate


def module_name(tool_name: str) -> str:
    # lower first: "Import" lowered after the keyword check would be the keyword import
    name = python_name(tool_name.replace("-", "_").lower())
    return name + "_" if name in RESERVED_MODULES else name


def is_module_path(value: str) -> bool:
    """generated.inventory: dotted Python names, none of them a keyword."""
    return all(is_identifier(part) for part in value.split("."))


def is_identifier(name: str) -> bool:
    return IDENTIFIER_RE.fullmatch(name) is not None and not keyword.iskeyword(name)


# -zes only after tz and zz (waltzes, buzzes): sizes, prizes and mazes lose the plain -s below
_PLURAL_ENDINGS = (
    ("ies", "y"), ("sses", "ss"), ("uses", "us"), ("xes", "x"), ("ches", "ch"),
    ("shes", "sh"), ("tzes", "tz"), ("zzes", "zz"),
)  # fmt: skip


def singular(word: str) -> str:
    """orders -> order, entries -> entry, boxes -> box; a word that is not an English
    plural comes back as it is (status, data)."""
    for plural, one in _PLURAL_ENDINGS:
        if word.endswith(plural) and len(word) > len(plural):
            return word[: -len(plural)] + one
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 1:
        return word[:-1]
    return word


def item_class(stem: str, name: str, siblings: frozenset[str]) -> str:
    """The class of one item of an array field: named after the item (SearchOrdersOrder for
    the items of `orders`), or `...Item` when the name is no plural, or its singular is the
    name of a sibling field or of one of the tool's own classes (whose name it would take)."""
    one = singular(name)
    # the tool's own classes end in these: `results` must not name its items ...Result
    if one == name or one in siblings or one in ("args", "context", "result", "error"):
        return stem + pascal(name) + "Item"
    return stem + pascal(one)
