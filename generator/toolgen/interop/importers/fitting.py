"""Whether a value fits a scalar parameter the importer converted (its `ParamDoc`), judged as
`toolgen check` judges a contract's defaults and examples: by the one validator of argument
values (`toolgen_runtime.schema`), on the parameter's JSON Schema. The importer keeps a
source's default or example only when it fits, so the contract it writes never contradicts
itself (it keeps neither on an array or an object)."""

from __future__ import annotations

from collections.abc import Mapping

import regress
from toolgen_runtime.schema import validator

# the keys of a converted scalar parameter, as the JSON Schema keywords they stand for
_KEYWORDS = {
    "enum": "enum",
    "min": "minimum",
    "max": "maximum",
    "min_length": "minLength",
    "max_length": "maxLength",
    "pattern": "pattern",
}
_FORMATS = {"date": "date", "datetime": "date-time"}


def satisfies(doc: Mapping[str, object], value: object) -> bool:
    """Whether a value passes the type and constraints of a converted scalar parameter."""
    kind = str(doc["type"])
    schema = {key: doc[name] for name, key in _KEYWORDS.items() if name in doc}
    schema["type"] = "string" if kind in _FORMATS else kind
    if kind in _FORMATS:
        schema["format"] = _FORMATS[kind]
    try:
        return bool(validator(schema).is_valid(value))
    except regress.RegressError:  # a pattern ECMA-262 cannot read fits nothing (TG122)
        return False
