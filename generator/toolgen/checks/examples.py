"""Examples: the accepted ones reach the implementation, the rejected ones fail where they say.

They are the base of the generated tests, so a wrong example would make a wrong test.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from toolgen.checks import check
from toolgen.diagnostics import Diagnostic, error
from toolgen.spec import toolschema
from toolgen.spec.ir import Catalogue, Param, Tool, guarded_values, innermost, named

_MAX_TOLD = 8
_PLAIN = re.compile(r"[\w.$-]+", re.ASCII)


def _name(text: str) -> str:
    """A field's name as spec text: quoted when it is more than letters, digits, `_`, `.`
    and `-` (an example's key may be any text, line breaks included)."""
    return text if _PLAIN.fullmatch(text) else repr(text)


def _told(found: list[tuple[toolschema.FieldPath, str]]) -> str:
    """The problems of an example as the model would read them, field by field."""
    said = [
        f"{_name(toolschema.dotted(path))} {text}" for path, text in found[:_MAX_TOLD]
    ]
    more = len(found) - len(said)
    return "; ".join(said) + (f"; and {more} more" if more else "")


@check(Tool, "TG130", "TG131", "TG132", "TG133")
def examples(tool: Tool, catalogue: Catalogue) -> Iterator[Diagnostic]:
    """The tool has an accepted example; every accepted example satisfies the contract; every
    rejected one breaks it, on the field its `rejected_on` names."""
    if not tool.accepted_examples:
        yield error(
            "TG130",
            f"tool {tool.name!r} has no accepted example",
            tool.origin.span("examples", key=True)
            if tool.origin.has("examples")
            else tool.origin.span("name"),
            "Add an example with args the tool must accept (every parameter, null for "
            "optional ones): it is the base of the generated tests.",
        )
    schema = toolschema.parameters_schema(tool.params, full=True)
    params = dict(named(tool.params))
    listed = tool.listed_hosts  # of every accepted example: once, not per example
    for example in tool.examples:
        args = dict(example.args)
        guarded = guard_problems(tool, example.args, listed)
        # the fields first: wording them imports the runtime, which only a finding needs
        fields = [*toolschema.problem_fields(schema, args), *(p for p, _ in guarded)]
        where = example.origin.span("args")
        if example.rejected_on is None:
            if fields:
                yield error(
                    "TG131",
                    "accepted example is rejected: "
                    + _told([*toolschema.worded_problems(schema, args), *guarded]),
                    where,
                    "Fix the example, or add rejected_on if it is meant to be rejected.",
                )
            continue
        target = example.rejected_on
        unindexed = ".".join(part for part in target.split(".") if not part.isdigit())
        if unindexed not in params and target not in example.args:
            yield error(
                "TG133",
                f"rejected_on names {target!r}, which is neither a parameter nor a key of "
                "the example",
                example.origin.span("rejected_on"),
                f"Name a parameter ({', '.join(map(_name, sorted(params))) or 'none'}), "
                "as a dotted path for nested fields.",
            )
            continue
        blamed = [toolschema.dotted(p) for p in fields]
        if not fields and _pattern_refused(params.get(unindexed)):
            continue  # TG122 or TG127 said why the contract has no pattern to break
        if not fields:
            yield error(
                "TG132",
                f"example rejected on {target!r} is accepted by the contract",
                where,
                f"Change the example so {target!r} breaks the contract, or tighten the "
                "parameter.",
            )
        elif target not in blamed:
            known = ", ".join(sorted(set(blamed)))
            yield error(
                "TG132",
                f"example rejected on {target!r} is rejected on {known} instead: "
                + _told([*toolschema.worded_problems(schema, args), *guarded]),
                example.origin.span("rejected_on"),
                f"Set rejected_on to the field that is wrong ({known}), or fix the others.",
            )


def _pattern_refused(param: Param | None) -> bool:
    """Whether the spec gave `param` (or its innermost items) a pattern the model refused."""
    node = None if param is None else innermost(param)
    return bool(
        node and node.origin.has("pattern") and node.constraints.pattern is None
    )


def guard_problems(
    tool: Tool, args: Mapping[str, object], listed: Mapping[str, tuple[str, ...]]
) -> list[tuple[toolschema.FieldPath, str]]:
    """What the guards of the `path` and `url` parameters, in arrays and objects too, refuse
    in `args`, as far as the build can tell: the text of a path (not the files under its
    root, which only the deployment has) and a URL as the generated tests' deployment would,
    with the hosts it lists for each `hosts_from` (`listed`: `Tool.listed_hosts`)."""
    found: list[tuple[toolschema.FieldPath, str]] = []
    if not tool.has_guards:
        return found
    # only now: importing the runtime's guards loads the Agents SDK (a guard's failures
    # are SDK exceptions), a second of a build that most catalogues need not pay
    from toolgen_runtime.guards import GuardFailure, UrlPolicy, check_url
    from toolgen_runtime.guards.paths import check_path_text

    for at, param, value in guarded_values(tool.params, args):
        if not isinstance(value, str):
            continue
        url = param.url
        try:
            if param.path is not None:
                check_path_text(value, suffixes=param.path.suffixes)
            elif url is not None:  # with the hosts the generated tests list
                hosts = (*url.hosts, *listed.get(url.hosts_from or "", ()))
                check_url(value, UrlPolicy(hosts, url.schemes, url.ports))
        except GuardFailure as failure:
            found.append((at, f"{failure.code}: {failure.problem}"))
        except ValueError:
            continue  # a policy the contract cannot make: TG171 says why
    return found
