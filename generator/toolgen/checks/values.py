"""Values written in a contract satisfy that contract: defaults and examples of parameters."""

from __future__ import annotations

from collections.abc import Iterator

from toolgen.checks import check
from toolgen.diagnostics import Diagnostic, error
from toolgen.spec.ir import Catalogue, Tool
from toolgen.spec.toolschema import first_problem
from toolgen.text import json_text


@check(Tool, "TG124", "TG125")
def defaults_and_examples(tool: Tool, catalogue: Catalogue) -> Iterator[Diagnostic]:
    """A parameter's `default` and `example` satisfy its own constraints (a default the
    validator would refuse could never apply; an example the model reads must be right)."""
    for param in tool.all_params():
        for key, code, present, value in (
            ("default", "TG124", param.has_default, param.default),
            ("example", "TG125", param.has_example, param.example),
        ):
            if not present:
                continue
            problem = first_problem(param, value)
            if problem is not None:
                yield error(
                    code,
                    f"{key} {json_text(value)} of {param.name!r} does not satisfy its own "
                    f"contract: {problem}",
                    param.origin.span(key),
                    f"Change the {key} or the constraints so they agree.",
                )
