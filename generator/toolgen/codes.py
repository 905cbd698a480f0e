"""One table of every diagnostic code toolgen reports.

Every `Diagnostic` is made from a code of this table (`diagnostics.error` refuses an id that is
not here), and the reference pages (docs/codes.md for the checks, docs/rules.md for the lint
rules) and the SARIF rule descriptors are generated from it. The checks of the pipeline's stages
(`Stage`, each with its ids) are listed below; each lint rule (TG200 and up) enters the table
when its module registers it. Ids are never reused.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Self


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Titled(enum.Enum):
    """An enum whose members carry the title of their section of a reference page:
    `NAME = "value", "Title"`."""

    _value_: str
    title: str

    def __new__(cls, value: str, title: str) -> Self:
        member = object.__new__(cls)
        member._value_ = value
        member.title = title
        return member


class Stage(Titled):
    LOAD = "load", "Reading the files (TG0xx)"
    FORMAT = "format", "The format (TG10x)"
    MODEL = "model", "The contract (TG11x-TG14x, TG17x)"
    IMPLEMENTATION = "implementation", "Implementations (TG15x)"
    LAYOUT = "layout", "Where a build writes (TG16x)"
    LINT = "lint", "Lint rules (TG200 and up)"


@dataclass(frozen=True, slots=True)
class Code:
    id: str
    name: str  # kebab-case, stable
    stage: Stage
    severity: Severity
    summary: str  # one sentence: what was found
    fix: str  # one sentence: what to do


CODES: dict[str, Code] = {}
KEBAB_CASE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


def register(code: Code) -> Code:
    if code.id in CODES or any(c.name == code.name for c in CODES.values()):
        raise ValueError(f"diagnostic code {code.id} {code.name!r} is already taken")
    if not KEBAB_CASE.fullmatch(code.name):
        raise ValueError(f"diagnostic code name {code.name!r} is not kebab-case")
    CODES[code.id] = code
    return code


def known(id: str) -> Code:
    try:
        return CODES[id]
    except KeyError:
        raise KeyError(f"{id} is not in toolgen's table of codes (codes.py)") from None


# The table reads as prose, one code per entry: id, name, stage, summary, fix.
_TABLE: tuple[tuple[str, str, Stage, str, str], ...] = (
    ('TG001', 'yaml-syntax', Stage.LOAD,
     'The file is not valid YAML: a syntax error, tabs used for indentation, or a control character.',
     'Fix the line shown; the help line names the usual cause.'),
    ('TG002', 'duplicate-key', Stage.LOAD,
     'The same key appears twice in one mapping (YAML would silently keep one).',
     'Remove one of them.'),
    ('TG003', 'object-tag', Stage.LOAD,
     'A tag that would build an object (`!!python/...` or any other tag that is not plain data); it is never executed.',
     'Remove the tag and write the value as plain data.'),
    ('TG004', 'alias-or-merge', Stage.LOAD,
     'An anchor, alias or merge key: toolgen reads every value where it is written.',
     'Write the value out in full.'),
    ('TG005', 'unreadable-file', Stage.LOAD,
     'A spec file cannot be read (permissions, an I/O error), or is not UTF-8 text.',
     'Make the file readable, and save it as UTF-8.'),
    ('TG006', 'not-a-mapping', Stage.LOAD,
     'The file is empty, or its top level is not a mapping of keys to values.',
     'Write the file as `key: value` lines.'),
    ('TG007', 'several-documents', Stage.LOAD,
     'The file holds more than one YAML document.',
     'Keep one document per file.'),
    ('TG008', 'missing-file', Stage.LOAD,
     'The catalogue folder, its catalogue.yaml, its tools/ folder or any tool file is missing.',
     'Create what is missing: a catalogue is catalogue.yaml beside a tools/ folder of tool files.'),
    ('TG009', 'bad-key', Stage.LOAD,
     'A mapping key is empty, or is not plain text.',
     'Write every key as plain text before its colon.'),
    ('TG010', 'tag-misfit', Stage.LOAD,
     'A tag that does not fit its value, or a number too long to read.',
     'Remove the tag, or quote the number to keep it as text.'),
    ('TG011', 'over-a-limit', Stage.LOAD,
     "An input over one of toolgen's limits: a file too large, too many values or too deeply nested, too many tools, parameters or examples.",
     'Split the tool or the catalogue; the limits are listed in docs/builds.md.'),
    ('TG012', 'not-a-regular-file', Stage.LOAD,
     'An entry named like a spec file is not a regular file: a folder, a FIFO, a device, a socket, a broken link or a link loop.',
     'Replace it with a plain YAML file, or move it out of the folder.'),
    ('TG013', 'link-out-of-project', Stage.LOAD,
     'A spec file is a symbolic link to a place outside the project.',
     'Copy the spec into the project: what is built must be what is reviewed.'),
    ('TG101', 'unknown-key', Stage.FORMAT,
     'A key the format does not know (the help line says which key was probably meant).',
     'Rename or remove the key; `toolgen schema` prints every key.'),
    ('TG102', 'missing-key', Stage.FORMAT,
     'A key the format requires is missing.',
     'Add the key.'),
    ('TG103', 'wrong-value', Stage.FORMAT,
     'A value of the wrong type, or not one of the values the key allows.',
     'Write a value of the type the message names.'),
    ('TG104', 'format-rule', Stage.FORMAT,
     'A value breaks another rule of the format (such as a budget below 1).',
     'Change the value as the message says.'),
    ('TG110', 'invalid-tool-name', Stage.MODEL,
     'The tool name is not 1 to 64 letters, digits, `_` or `-`, so no model API accepts it.',
     'Rename the tool, in snake_case.'),
    ('TG111', 'file-not-named-after-tool', Stage.MODEL,
     "The tool's file is not named after the tool.",
     'Rename the file to `<tool name>.yaml`, so reviewers find it by name.'),
    ('TG112', 'duplicate-tool', Stage.MODEL,
     'Two tools share a name, or would be generated as the same Python module.',
     'Give every tool its own name.'),
    ('TG113', 'unknown-tool-reference', Stage.MODEL,
     '`not_when` or `requires` names a tool the catalogue does not have.',
     'Name a tool of the catalogue (the help line suggests the closest).'),
    ('TG114', 'self-reference', Stage.MODEL,
     '`not_when` or `requires` names the tool itself.',
     'Name another tool, or remove the entry.'),
    ('TG115', 'context-field-mismatch', Stage.MODEL,
     'A tool lists a context field the catalogue does not declare, lists one twice, or also has it as a parameter.',
     "Declare the field under the catalogue's context, and never as a parameter."),
    ('TG116', 'invalid-field-name', Stage.MODEL,
     'A parameter or return field name the model cannot use, or a context field name that is not a Python identifier.',
     'Use 1 to 64 letters, digits, `_` or `-` (snake_case).'),
    ('TG117', 'python-name-clash', Stage.MODEL,
     'Two names become the same Python name, or two generated classes the same class name.',
     'Rename one of them.'),
    ('TG120', 'key-does-not-apply', Stage.MODEL,
     'A parameter key that does not apply to its type (or `optional`/`default` on array items), or a default beside `optional: false`.',
     'Remove the key, or change the type.'),
    ('TG121', 'min-above-max', Stage.MODEL,
     'A minimum greater than its maximum.',
     'Make the minimum at most the maximum.'),
    ('TG122', 'invalid-pattern', Stage.MODEL,
     'A `pattern` that is not a valid regular expression.',
     'Fix the expression; anchor it with `^` and `$`.'),
    ('TG127', 'backtracking-pattern', Stage.MODEL,
     'A `pattern` with a part repeated many times (more than 20, or without limit) that can match one text in several ways (`(a+)+`, `(\\w+\\s?)+`): a near-match takes the validator time exponential in its length.',
     'Write it so that each character can be matched one way only: `(a+)+` as `a+`, `(\\w+\\s?)+` as `\\w+(\\s\\w+)*`.'),
    ('TG123', 'bad-bound-or-enum', Stage.MODEL,
     'A fractional bound on an integer, an enum value of the wrong type, a repeated enum value, or an enum on a number parameter.',
     'Correct the bound or the enum as the message says.'),
    ('TG124', 'default-breaks-contract', Stage.MODEL,
     "A `default` that breaks the parameter's own constraints.",
     'Choose a default the parameter accepts.'),
    ('TG125', 'example-value-breaks-contract', Stage.MODEL,
     "A parameter's `example` that breaks its own constraints.",
     'Choose an example the parameter accepts.'),
    ('TG126', 'shapeless-container', Stage.MODEL,
     'An array without `items`, or an object without `properties`: a free-form value cannot be validated.',
     "Say what the array holds, or list the object's fields."),
    ('TG130', 'no-accepted-example', Stage.MODEL,
     'The tool has no accepted example, which the generated tests start from.',
     'Add an example the tool must accept.'),
    ('TG131', 'accepted-example-rejected', Stage.MODEL,
     'An example meant to be accepted breaks the contract.',
     'Fix the example, or add `rejected_on` if it is meant to be rejected.'),
    ('TG132', 'rejected-example-accepted', Stage.MODEL,
     'An example meant to be rejected is accepted, or is rejected on another field.',
     'Make the example break the field it names, or name the field it breaks.'),
    ('TG133', 'rejected-on-unknown-field', Stage.MODEL,
     '`rejected_on` names neither a parameter nor a key of the example.',
     'Name a parameter, as a dotted path for nested ones.'),
    ('TG140', 'invalid-module-path', Stage.MODEL,
     'The catalogue name, `package` or `implementation` is not a valid Python name.',
     'Use snake_case names, dotted for packages (`generated.inventory`).'),
    ('TG141', 'envelope-key-as-return', Stage.MODEL,
     'A return field at the top is named like a key of the envelope every answer comes in.',
     'Rename the field.'),
    ('TG142', 'reserved-error-code', Stage.MODEL,
     "The error code `invalid_arguments` is toolgen's own.",
     'Name the data error after its cause.'),
    # writes (issue 9): idempotency by key and confirmation
    ('TG143', 'idempotency-key-unknown-field', Stage.MODEL,
     'An idempotency key names an argument the tool does not have, or a context field the tool does not list, or names one twice.',
     "Name the tool's own parameters under key, and context fields it lists under context."),
    ('TG144', 'idempotency-key-model-chosen', Stage.MODEL,
     'An idempotency key without a context field: made only of what the model writes, so two runs or two users with the same arguments would share one outcome.',
     'Add a context field the application sets, such as the run id: `context: [run_id]`.'),
    ('TG145', 'bad-retention', Stage.MODEL,
     'A retention period shorter than a minute or longer than a year.',
     'Choose a retention that covers a run and its retries, such as 24h or 7d.'),
    ('TG146', 'token-contract-misfit', Stage.MODEL,
     "A `confirmation: token` contract that cannot make its two tools: its effect is read, its name does not start with confirm_, it declares a parameter named token, or it lists no context field to bind the token to (a prepare tool whose name is taken is TG112).",
     'Name the contract confirm_<x> with effect write or destructive and a context field such as the customer id; toolgen makes prepare_<x> from it.'),
    ('TG147', 'idempotency-key-on-read', Stage.MODEL,
     'A read tool with idempotency by key: a read has no effect to run once.',
     'Remove the key, or declare the effect the key protects.'),
    ('TG150', 'implementation-mismatch', Stage.IMPLEMENTATION,
     'The implementation does not parse, or its signature no longer fits the contract.',
     'Update the implementation to the contract.'),
    ('TG151', 'implementation-missing', Stage.IMPLEMENTATION,
     'A tool has no implementation yet, or it is still the stub toolgen created.',
     'Run `toolgen build` to create the stubs, then write the business logic.'),
    ('TG152', 'implementation-function-missing', Stage.IMPLEMENTATION,
     "The implementation module does not define the tool's function.",
     'Define the function the help line shows.'),
    ('TG160', 'folder-leaves-project', Stage.LAYOUT,
     '`package` or `implementation` is a folder that leads out of the project through a symbolic link.',
     'Use a folder inside the project.'),
    ('TG161', 'folder-overlaps', Stage.LAYOUT,
     "`package` or `implementation` overlaps a folder a build never writes into: the other of the two, another catalogue's, spec/, tests/, docs/, version control, a virtual environment, or toolgen itself.",
     'Give the catalogue folders of its own, such as generated/ and impl/.'),
    ('TG162', 'module-shadowed', Stage.LAYOUT,
     '`package` or `implementation` would create a top-level module that shadows an installed one.',
     'Choose another first name.'),
    ('TG163', 'file-not-toolgens', Stage.LAYOUT,
     "A file in the generated package that toolgen did not write (it is not in the package's manifest); a build never replaces or deletes it.",
     'Move the file out of the package.'),
    ('TG164', 'manifest-unreadable', Stage.LAYOUT,
     "The generated package's manifest cannot be read, so nothing in it can be proven toolgen's.",
     "If every file in the package is toolgen's output, delete the folder and build again."),
    # --- boundaries: guarded parameters, pagination, output contracts ---
    ('TG170', 'bad-path-guard', Stage.MODEL,
     "A `path` parameter's root is not a snake_case name, or one of its suffixes is not a suffix (`.md`) or is listed twice.",
     'Name the root in snake_case (the deployment sets its folder with `TOOLGEN_ROOT_<NAME>`); write suffixes with their dot.'),
    ('TG171', 'bad-url-guard', Stage.MODEL,
     "A `url` parameter's allowed host is not a host name (a scheme, port or path, a trailing dot, spaces) or is listed twice, or `hosts_from` is not a list name.",
     'List bare host names (`api.example.com`, `*.example.com`) or IP addresses.'),
    ('TG172', 'bad-pagination', Stage.MODEL,
     'A pagination block whose default page size is above its cap, whose identity names a field the tool does not receive from the context, or beside a parameter named `cursor` or `page_size`.',
     'Correct the block as the message says; pagination adds `cursor` and `page_size` itself.'),
    ('TG173', 'bad-output-contract', Stage.MODEL,
     '`max_length` on a return field that is not text, `sensitive` on an object or array, or both on one field.',
     'Put `max_length` on texts and `sensitive` on the values that must not be shown.'),
    # --- namespaces, deferral and toolsets (issue 36) ---
    ('TG174', 'unknown-namespace', Stage.MODEL,
     'A tool names a namespace that catalogue.yaml does not declare.',
     'Declare the namespace under `namespaces:` in catalogue.yaml, or name one it declares.'),
    ('TG175', 'deferred-outside-namespace', Stage.MODEL,
     'A deferred tool in no namespace: tool search loads the deferred tools of a namespace.',
     'Put the tool in a namespace, or load it up front (`deferred: false`).'),
    ('TG176', 'unknown-toolset-member', Stage.MODEL,
     'A toolset lists a name that is neither a namespace nor a tool of the catalogue, or lists one twice.',
     'Name a namespace of catalogue.yaml or a tool of the catalogue, once.'),
    ('TG177', 'invalid-group-name', Stage.MODEL,
     'A namespace or toolset name that is not a Python identifier of at most 64 characters.',
     'Use snake_case letters, digits and `_`, such as `orders`.'),
    ('TG178', 'group-name-clash', Stage.MODEL,
     'A namespace or toolset has the name of a tool, or a toolset the name of a namespace: a toolset member must name one thing.',
     'Rename the namespace or the toolset.'),
)  # fmt: skip

for _id, _name, _stage, _summary, _fix in _TABLE:
    # TG151 only says what is not written yet: information, not a failure
    _severity = Severity.INFO if _id == "TG151" else Severity.ERROR
    register(Code(_id, _name, _stage, _severity, _summary, _fix))
