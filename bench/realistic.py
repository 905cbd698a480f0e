"""The realistic catalogue of the build figures: N tools that use every feature of the format,
written as toolgen YAML, as a catalogue of a business group's services reads.

Thirty domains (bench/realistic_words.py: a clinic, a shop, a warehouse, billing, HR, IT
assets, ...) hold ten kinds of record each (an appointment, a payslip, a pallet), and every
record has the same seventeen tools, each with its own verb and wording (`search_appointments`,
`book_appointment`, `confirm_appointment`, `cancel_appointment`, ...):

| tool | what it shows of the format |
| --- | --- |
| search | a read with pagination, string and integer enums, a date |
| read | a read by a patterned number; datetimes and enums returned; an error |
| create | idempotency by key; an array of objects; an object in an object; a datetime |
| update | idempotency: natural; requires and not_when |
| confirm | confirmation: token (toolgen adds prepare_<record>) |
| cancel | a destructive tool with confirmation: approval |
| import | a `path` parameter with a root and suffixes |
| verify | a `url` parameter with hosts and hosts_from; open_world |
| send | idempotency by key; an array of patterned strings |
| assign, count, track, tag, copy, approve, merge, move | the same features in other combinations |
| every tool | its domain's namespace, one `asks` in a user's words; verify has a `timeout` |

Tool `i` is the same at every size: it is tool `i % 17` of record `i // 17`, and records go
round the domains (record 0 is the clinic's, record 1 the pharmacy's, ...), so a catalogue of
N tools is the first N, and every tool refers only to tools before it (`requires`,
`not_when`, how_to_fix). Every record's words and choices come from a generator seeded with
the record's number. The catalogue is clean: `toolgen check` reports no error and no warning
at any size (the catalogue file ignores only the rules on how many tools one agent or one
namespace holds and the token budget), so the figures time the work a real catalogue costs.

Each domain is a namespace (`tool_domain(i)`, the one of tool `i`), described by the records
it holds; every namespace but the clinic's is deferred, and two toolsets name them: `assistant`,
all of them (the clinic's tools up front, the rest found by tool search), and `clinic_desk`.

bench/openapi_doc.py writes the same tools as OpenAPI operations; bench/sizes.py shows the two
inputs declare the same.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import realistic_more
import realistic_rest
import realistic_tools
import yaml
from realistic_tools import TEMPLATES, entity, record_of
from realistic_words import DOMAINS, KINDS

SpecDict = dict[str, Any]
BUILDERS = {
    **realistic_tools.BUILDERS,
    **realistic_more.BUILDERS,
    **realistic_rest.BUILDERS,
}

CATALOGUE_NAME = "realistic"
CONTEXT = {
    "account_id": {
        "type": "integer",
        "description": "The authenticated account the run acts for, set by the application.",
    },
    "run_id": {
        "type": "string",
        "description": "The identifier of the current agent run, set by the application.",
    },
}


def max_tools() -> int:
    return len(TEMPLATES) * sum(len(d.records) for d in DOMAINS)


def tool_domain(index: int) -> str:
    return record_of(index // len(TEMPLATES))[0].key


# what a user asks when the tool is the right one: {w} the record's words, {p} their plural,
# {n} a record's number, {c} the verb that makes one, {x} the one that undoes one, {s} staff
ASKS = {
    "search": "Which {p} do I have at the moment?",
    "read": "What is the status of {w} {n}?",
    "create": "Please {c} a new {w} for me.",
    "update": "Raise the priority of {w} {n}.",
    "confirm": "Make {w} {n} binding, please.",
    "cancel": "I want to {x} {w} {n}.",
    "import": "Load my {p} from the spreadsheet I uploaded.",
    "verify": "Does the partner portal agree with {w} {n}?",
    "send": "Email a copy of {w} {n} to my colleague.",
    "assign": "Hand {w} {n} over to a {s}.",
    "count": "How many {p} were made last month, by status?",
    "track": "Who changed {w} {n}, and when?",
    "tag": "Put new labels on {w} {n}.",
    "copy": "Make two more {p} like {n}.",
    "approve": "Approve {w} {n} so that it can go ahead.",
    "merge": "Some of my {p} are duplicates: combine them into one.",
    "move": "Move {w} {n} to another site from Monday.",
}
TIMEOUT = {
    "seconds": 30,
    "how_to_fix": "The partner portal did not answer within 30 seconds; verifying changes "
    "nothing. Try again in a minute, or tell the user the portal is slow.",
}


def tool_spec(index: int) -> SpecDict:
    """The index-th tool as the dictionary its YAML file holds."""
    if not 0 <= index < max_tools():
        raise ValueError(f"the realistic catalogue has at most {max_tools()} tools")
    number, template = divmod(index, len(TEMPLATES))
    made = entity(number)
    rng = random.Random(f"{made.rng_seed}-{template}")
    kind = TEMPLATES[template]
    spec: SpecDict = BUILDERS[kind](made, rng)
    words = {
        "w": made.words,
        "p": made.plural,
        "n": made.good(),
        "s": made.domain.staff[0],
    }
    words |= {"c": made.record.create, "x": KINDS[made.record.kind].cancel}
    more: SpecDict = {
        "namespace": made.domain.key,
        "asks": [ASKS[kind].format(**words)],
    }
    if kind == "verify":
        more["timeout"] = TIMEOUT
    return {"name": made.names[kind], **spec, **more}


def tool_specs(count: int) -> Iterator[SpecDict]:
    if count > max_tools():
        raise ValueError(f"the realistic catalogue has at most {max_tools()} tools")
    return (tool_spec(index) for index in range(count))


def namespaces(count: int) -> SpecDict:
    """The namespace of each domain the first `count` tools are in: every one deferred but
    the clinic's."""
    held: dict[str, list[str]] = {}
    for number in range(-(-count // len(TEMPLATES))):
        domain, record = record_of(number)
        held.setdefault(domain.key, []).append(record.plural_words)
    return {
        key: {
            "description": f"The {key.replace('_', ' ')} records of the current account: "
            f"{', '.join(plurals)}. Look here for anything about its {plurals[0]}"
            + (f" or {plurals[-1]}." if len(plurals) > 1 else "."),
            "deferred": key != DOMAINS[0].key,
        }
        for key, plurals in held.items()
    }


def catalogue_spec(count: int) -> SpecDict:
    held = list(namespaces(count))
    return {
        "format": 1,
        "name": CATALOGUE_NAME,
        "description": "The services of a business group, from its clinics and shops to "
        "its warehouses, payroll and IT support.",
        "context": CONTEXT,
        # a catalogue of thousands of tools is the point here: the per-agent limits on the
        # number of tools (TG951, TG952) and a token budget (TG955) do not apply to it, nor
        # OpenAI's advice of at most 10 tools a namespace (TG961): a domain's namespace holds
        # 17 tools per record, which a real catalogue this size would split further, at no
        # difference to what a build costs
        "lint": {"ignore": ["TG951", "TG952", "TG955", "TG961"]},
        "namespaces": namespaces(count),
        "toolsets": {
            "assistant": {
                "description": "One agent for every service: the clinic's tools up front, "
                "the others found by tool search.",
                "tools": held,
            },
            "clinic_desk": {
                "description": "The clinic's front desk.",
                "tools": held[:1],
            },
        },
    }


class _Dumper(yaml.SafeDumper):
    """Writes every value out: toolgen refuses anchors and aliases (TG004)."""

    def ignore_aliases(self, data: object) -> bool:
        return True


def dump(data: object) -> str:
    return yaml.dump(
        data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100
    )


def write_catalogue(root: Path, count: int) -> Path:
    """spec/realistic/ under root with `count` tools; returns the catalogue folder."""
    folder = root / "spec" / CATALOGUE_NAME
    (folder / "tools").mkdir(parents=True, exist_ok=True)
    (folder / "catalogue.yaml").write_text(
        dump(catalogue_spec(count)), encoding="utf-8"
    )
    for spec in tool_specs(count):
        path = folder / "tools" / f"{spec['name']}.yaml"
        path.write_text(dump(spec), encoding="utf-8")
    return folder
