"""Rules on context, identity and secrets: what must never be in the model's hands."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise

from toolgen.diagnostics import Severity
from toolgen.lint import words
from toolgen.lint.context import LintContext
from toolgen.lint.parameters import is_free_string
from toolgen.lint.registry import BOUNDARY, Finding, ParamSite, SpecText, rule


@rule(
    id="TG601",
    severity=Severity.ERROR,
    fix="Remove the parameter and list the context field under the tool's context: instead.",
    source=f"{BOUNDARY}: the fields that determine authorization must not be in the schema",
)
def parameter_shadows_context(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """A parameter that shadows a context field.

    ## What it does
    Reports a parameter (at any depth) with the name of a field of the catalogue's `context:`
    (the authenticated customer, the run id, ...).

    ## Why is this bad?
    The context is what the application knows for sure; a parameter with the same name is
    what the model claims. The model can put any value in it, and an implementation that
    reads the wrong one serves another customer's data.

    ## Example
    ```yaml
    params:
      customer_id: {type: integer, min: 1, max: 999999, description: The customer.}
    ```

    ## Use instead
    ```yaml
    context: [customer_id]
    ```
    """
    if site.param.name in ctx.context_names:
        yield Finding(
            f"parameter {site.dotted!r} shadows the context field {site.param.name!r}; "
            "expected the value from the run context, where the model can neither see nor "
            "forge it"
        )


IDENTITY_NAMES = words.wordset(
    """user_id userid customer_id account_id tenant tenant_id org_id organization_id
    organisation_id owner_id session_id caller caller_id principal_id requester_id
    current_user username user_name auth_user"""
)


_OTHER_PARTY = re.compile(
    r"\b(omit|leave (it )?(empty|out|blank)|null|defaults?)\b[^.]*\b(authenticated|current|"
    r"logged[- ]in|your own)\b|\b(another|other|any) (user|account|customer)s?\b",
    re.IGNORECASE,
)


@rule(
    id="TG602",
    severity=Severity.ERROR,
    fix="Declare the identity as a catalogue context field and list it under the tool's "
    "context:; if the tool really looks up another party, rename the parameter for its role.",
    source=f"{BOUNDARY}: the authenticated user belongs in the run context, where the model "
    "can neither invent nor tamper with it",
)
def identity_parameter(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """A parameter that names the caller's identity.

    ## What it does
    Reports a parameter named like an identity (`customer_id`, `user_id`, `tenant`,
    `account_id`, `session_id`, ...) that is not a context field (TG601 covers those),
    unless its description says it names another party ("omit for the authenticated user",
    "any user"), the tool creates that party (`create_user`'s `username`), or the tool looks
    one up in a catalogue that lists them (`get_user_profile`'s `user_id` beside
    `get_users`: a member of a workspace, not the caller).

    ## Why is this bad?
    Whoever fills the field decides whose data the call touches, and here the model fills it,
    from text that may come from a user, a web page or an email. Identity comes from the
    authenticated session, through the run context.

    ## Example
    ```yaml
    params:
      tenant: {type: string, description: The tenant to read from.}
    ```

    ## Use instead
    ```yaml
    # catalogue.yaml
    context:
      tenant: {type: string, description: The authenticated tenant, set by the application.}
    # the tool
    context: [tenant]
    ```
    """
    name = site.param.name.lower()
    if name not in IDENTITY_NAMES or site.param.name in ctx.context_names:
        return
    if _OTHER_PARTY.search(site.param.description):
        return  # the description says the value names someone else (or defaults to the caller)
    prof = ctx.profile_of(site.tool)
    if prof.verb_class == "create" and prof.head and name.startswith(prof.head):
        return  # create_user's username: the new account's, which no session holds yet
    party = words.name_words(name)[0] + "s"
    if prof.verb_class == "lookup" and party in ctx.names.listed:
        return  # get_user_profile beside get_users: one of the users the catalogue lists
    yield Finding(
        f"parameter {site.dotted!r} names the caller's identity; expected it in the run "
        "context, never filled in by the model"
    )


_SECRET_WORDS = words.wordset(
    """password passwd passphrase secret secrets credential credentials apikey
    privatekey"""
)
# two name words that name a secret together (api_key, access_token), joined by "_"
_SECRET_PAIRS = words.wordset(
    """api_key private_key access_key secret_key ssh_key access_token auth_token bearer_token
    refresh_token api_token session_token id_token client_secret"""
)


def secret_name(name: str) -> bool:
    """A credential's name, not one that says something of it (secret_type, token_id)."""
    parts = words.name_words(name)
    named = parts == ("token",) or bool(_SECRET_WORDS & set(parts))
    paired = any("_".join(pair) in _SECRET_PAIRS for pair in pairwise(parts))
    return (named or paired) and parts[-1] not in words.ATTRIBUTES


@rule(
    id="TG603",
    severity=Severity.ERROR,
    fix="Remove the parameter: the implementation reads credentials from its environment or "
    "a secret store.",
    source="toolgen seeds: Tools lesson, 'The traps you really fall into': a parameter "
    "api_key: str will be made up by the model",
)
def secret_parameter(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """A secret in the schema.

    ## What it does
    Reports a parameter named like a credential (`api_key`, `token`, `access_token`,
    `password`, `secret`), not one that says something of one (`secret_type`, `token_id`).

    ## Why is this bad?
    The model will make one up, or copy one from the conversation into the call and into every
    log on the way. Credentials are read from the environment inside the function.

    ## Example
    ```yaml
    params:
      api_key: {type: string, description: The supplier's API key.}
    ```

    ## Use instead
    ```yaml
    # no parameter: the implementation reads SUPPLIER_API_KEY from its environment
    ```
    """
    if secret_name(site.param.name):
        yield Finding(
            f"parameter {site.dotted!r} asks the model for a credential; expected the "
            "implementation to read it from its environment"
        )


LITERAL_SECRETS = (
    (
        "an OpenAI API key",
        re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ),
    ("an Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("an AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("a GitHub token", re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b")),
    ("a GitHub token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,}")),
    ("a GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("a Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("a Stripe key", re.compile(r"\b(?:sk|rk)_live_[A-Za-z0-9]{16,}")),
    ("a private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    (
        "a JSON web token",
        re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\."),
    ),
)
# the quick test before the shapes: a string holding none of these is not scanned
_SECRET_HINTS = words.wordset("sk- AKIA ASIA gh glpat- xox AIza _live_ ----- eyJ")


@rule(
    id="TG604",
    severity=Severity.ERROR,
    fix="Delete the key from the spec, revoke it (it is in the repository history), and use "
    "an obviously fake value in examples.",
    source="GitHub secret scanning and gitleaks patterns; OWASP Top 10 for LLM applications "
    "(sensitive information disclosure)",
)
def literal_secret(text: SpecText, ctx: LintContext) -> Iterator[Finding]:
    """A literal key anywhere in the spec.

    ## What it does
    Scans every string of the spec (descriptions, examples, patterns, keys) for the shapes of
    real credentials: OpenAI `sk-...`, AWS `AKIA...`, GitHub `ghp_...`, Slack `xox...`,
    Google `AIza...`, private key blocks and JSON web tokens.

    ## Why is this bad?
    A description or an example reaches the model on every turn, the generated code and the
    review page; a key written there is published to everyone who can read any of them.

    ## Example
    ```yaml
    examples:
      - args: {api_key: sk-proj-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c}
    ```

    ## Use instead
    ```yaml
    # no credential in the schema or the examples (see TG603)
    ```
    """
    value = text.text
    if not any(h in value for h in _SECRET_HINTS):
        return
    for label, pattern in LITERAL_SECRETS:
        if found := pattern.search(value):
            yield Finding(
                f"the spec contains what looks like {label} ({found.group(0)[:6] + '...'!r}); "
                "expected no credentials in the spec"
            )
            return


CODE_WORDS = words.wordset(
    """sql query script shell command cmd expression expr eval formula jq jsonpath xpath
    lambda snippet"""
)
_CODE_KINDS = words.wordset("source python js javascript program shell sql")


# Names that are code only when the description names a language: a search box takes a
# phrase ("The search query for the song"), a SQL console takes SQL.
SEARCH_WORDS = words.wordset("query q search keywords terms")
_LANGUAGE = re.compile(
    r"\b(sql|select\b.*\bfrom|graphql|cypher|sparql|gremlin|jq|jsonpath|xpath|javascript|"
    r"python|shell|bash|script|regex|regular expression|lucene|elasticsearch "
    r"query dsl|query language|mongodb)\b",
    re.IGNORECASE,
)


def code_name(name: str, description: str) -> bool:
    if _head(name) in words.ATTRIBUTES:  # eval_id, script_url: not code
        return False
    parts = words.name_words(name)
    if CODE_WORDS - SEARCH_WORDS & set(parts):
        return True
    if SEARCH_WORDS & set(parts):
        # qualifiers of a search syntax (language:python, in:name) name no language
        return _LANGUAGE.search(re.sub(r"\b\w+:\S+", "", description)) is not None
    return parts[-1:] == ("code",) and (len(parts) == 1 or parts[-2] in _CODE_KINDS)


@rule(
    id="TG605",
    severity=Severity.ERROR,
    fix="Accept typed filters (enum, date, bounded numbers) and build the query in the "
    "implementation; or constrain the string with a pattern.",
    source=f"{BOUNDARY}: a tool run_sql(query: str) is a SQL injection with extra steps",
)
def raw_code_parameter(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """Raw SQL or code as a parameter.

    ## What it does
    Reports a string parameter without pattern or enum named `sql`, `code`, `script`,
    `command`, `expression`, `formula` and the like; and one named `query` or `search` when
    its description names a language (SQL, GraphQL, a script, an expression). A search
    phrase ("The search query for the song") is text to match, not code to run.

    ## Why is this bad?
    You give a text generator the ability to write arbitrary commands, steered by whatever
    text it has read. "Run only SELECT" in the prompt is not a control; the shape of the tool
    is.

    ## Example
    ```yaml
    params:
      sql: {type: string, description: The query to run.}
    ```

    ## Use instead
    ```yaml
    params:
      status:
        type: string
        enum: [open, shipped, cancelled]
        description: Only orders in this status.
      since: {type: date, description: Only orders placed on or after this day.}
    ```
    """
    if is_free_string(site.scalar) and code_name(
        site.param.name, site.param.description
    ):
        yield Finding(
            f"parameter {site.dotted!r} takes raw code or a query as free text; expected "
            "typed filters the implementation turns into a query"
        )


PATH_WORDS = words.wordset(
    "path paths file files filename filepath dir directory folder"
)


# a description that places the "path" on the web, and none that places it on a disk:
# Resend's attachments.path ("Path where the attachment file is hosted"), its
# custom_return_path ("a subdomain for the Return-Path address")
_WEB_WORDS = words.wordset("url uri http https hosted domain subdomain")
_DISK_WORDS = words.wordset("directory folder local disk")
# a file name that labels an attached file (its content given beside it), not a file read
_ATTACHED_WORDS = words.wordset("attached attachment")


def _not_on_disk(site: ParamSite, named: bool) -> bool:
    said = words.content_words(site.param.description)
    if said & _DISK_WORDS:
        return False
    return bool(said & _WEB_WORDS) or (named and bool(said & _ATTACHED_WORDS))


def _head(name: str) -> str:
    """What a parameter is, by its name: the last word before a preposition (the url of
    url_to_fetch, the colour of link_color, the size of file_size)."""
    parts = words.name_words(name)
    return (words.at_preposition(parts)[0] or parts or ("",))[-1]


@rule(
    id="TG606",
    severity=Severity.ERROR,
    fix="Use type: path with a root and its suffixes (root: archive, suffixes: [.md]): the "
    "generated tool checks the path before the implementation runs.",
    source=f"{BOUNDARY}: a read_file(path: str) without normalization is a path traversal",
)
def path_parameter_as_string(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """A file path as a plain string.

    ## What it does
    Reports a string parameter without a pattern named for a path by its last word (`path`,
    `source_file`, `dir`, `folder` or similar, or `file_name`), in a tool that is not
    `open_world` (a path in a remote system, such as a file of a hosted repository, is
    resolved by that system's API, not on your disk). `file_size` and `file_urls` are not
    paths, nor is one whose description places it on the web and not on a disk ("where the
    file is hosted", "a subdomain for the Return-Path address"), nor the file name of an
    attachment ("Name of attached file.").

    ## Why is this bad?
    `../../etc/passwd`, an absolute path or a symbolic link is enough to read outside the
    folder you meant. A pattern keeps the schema honest about what is accepted; the
    implementation still resolves the path and checks it stays under its root.

    ## Example
    ```yaml
    params:
      path: {type: string, description: The document to read.}
    ```

    ## Use instead
    ```yaml
    params:
      document:
        type: path
        root: archive
        suffixes: [.md, .txt]
        description: The document's file name.
    ```

    A string with a pattern of plain names also passes, when the tool joins it to a folder
    of its own.
    """
    if site.tool.open_world:
        return  # a path in a remote system (a repository, a bucket), resolved by its API
    head = _head(site.param.name)
    named = head in ("name", "names", "filename")
    if head in ("name", "names"):  # file_name, folder_names
        head = next((w for w in site.name_words if w in PATH_WORDS), "")
    if (
        is_free_string(site.scalar)
        and head in PATH_WORDS
        and not _not_on_disk(site, named)
    ):
        yield Finding(
            f"parameter {site.dotted!r} is a file path as a plain string; expected a pattern "
            "that rules out '..' and absolute paths"
        )


URL_WORDS = words.wordset("url urls uri uris link links href endpoint webhook callback")


@rule(
    id="TG607",
    severity=Severity.ERROR,
    fix="Use type: url with the hosts it may reach (hosts: [api.example.com]): the generated "
    "tool checks the URL before the implementation runs.",
    source=f"{BOUNDARY}: a download(url: str) is a server-side request forgery; the defence "
    "is a list of allowed domains",
)
def url_parameter_as_string(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """A URL as a plain string.

    ## What it does
    Reports a string parameter without a pattern named for a URL by its last word (`url`,
    `callback_url`, `uri`, `link`, `href`, `endpoint`, `webhook` or `callback`); not
    `link_color` or `webhook_secret`, nor `redirect_url`, where a browser is sent after a
    step, not a host the tool reaches.

    ## Why is this bad?
    A model can be induced to ask for `http://169.254.169.254/` or an address on your
    internal network, and your server, which can reach things the user cannot, fetches it.

    ## Example
    ```yaml
    params:
      url: {type: string, description: The page to download.}
    ```

    ## Use instead
    ```yaml
    params:
      url:
        type: url
        hosts: [docs.example.com]
        description: The page to download.
    ```

    A string with a pattern anchored to the allowed hosts also passes; the `url` type checks
    what a pattern cannot (look-alike hosts, every form of IP address, user-info).
    """
    if (
        is_free_string(site.scalar)
        and _head(site.param.name) in URL_WORDS
        and "redirect" not in site.name_words
    ):
        yield Finding(
            f"parameter {site.dotted!r} is a URL as a plain string; expected a pattern that "
            "allows only the hosts the tool may reach"
        )
