"""Rules on guarded parameters and output contracts: the boundary the contract draws must be
there, and what must not reach the model must be marked."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

from toolgen.diagnostics import Severity
from toolgen.lint import words
from toolgen.lint.context import LintContext
from toolgen.lint.registry import BOUNDARY, Finding, ParamSite, ReturnSite, rule


@rule(
    id="TG608",
    severity=Severity.ERROR,
    fix="List the hosts the tool may reach under hosts: (api.example.com, *.example.com), or "
    "name the deployment's list with hosts_from:.",
    source=f"{BOUNDARY}: the defence is a list of allowed domains, not a list of forbidden "
    "addresses",
)
def url_without_allow_list(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """A `url` parameter that allows no host.

    ## What it does
    Reports a parameter of `type: url` with no `hosts` and no `hosts_from`.

    ## Why is this bad?
    An allow-list is the whole defence against a model led to ask for
    `http://169.254.169.254/` or an address inside your network. A URL guard with an empty
    list refuses every call at run time (the run stops): the tool cannot work, and the
    contract does not say where it was meant to go.

    ## Example
    ```yaml
    params:
      url: {type: url, description: The notice to read.}
    ```

    ## Use instead
    ```yaml
    params:
      url:
        type: url
        hosts: [suppliers.example.com]
        description: The notice to read.
    ```
    """
    spec = site.param.url
    if spec is not None and not spec.hosts and spec.hosts_from is None:
        yield Finding(
            f"url parameter {site.dotted!r} allows no host; expected hosts: (or hosts_from:) "
            "listing where the tool may go"
        )


@rule(
    id="TG609",
    severity=Severity.WARNING,
    fix="Name the folder the files are under with root: (archive, documents); the deployment "
    "sets where it is with TOOLGEN_ROOT_<ROOT>.",
    source=f"{BOUNDARY}: resolve the path and verify that it stays inside the permitted root",
)
def path_without_root(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """A `path` parameter that does not name its root.

    ## What it does
    Reports a parameter of `type: path` without `root`.

    ## Why is this bad?
    The guard still confines the path to a folder, but the one named after the parameter
    (`TOOLGEN_ROOT_NAME` for a parameter `name`): a reviewer cannot see which folder the
    model may read, and two tools with a parameter of the same name share a folder by
    accident.

    ## Example
    ```yaml
    params:
      name: {type: path, suffixes: [.md], description: The document to read.}
    ```

    ## Use instead
    ```yaml
    params:
      name:
        type: path
        root: archive
        suffixes: [.md]
        description: The document to read.
    ```
    """
    spec = site.param.path
    if spec is not None and not spec.root_declared:
        yield Finding(
            f"path parameter {site.dotted!r} names no root; expected root: naming the folder "
            f"(now the folder of root {spec.root!r}, TOOLGEN_ROOT_{spec.root.upper()})"
        )


# words of a value that must not be shown: credentials, and numbers that identify a person
SENSITIVE_NAMES = words.wordset(
    """password passwd passphrase secret secrets token tokens api_key apikey access_key
    secret_key private_key client_secret refresh_token access_token session_token
    ssn social_security tax_code fiscal_code national_id passport iban card_number
    credit_card cvv cvc pin otp"""
)
_SENSITIVE_WORDS = words.wordset("password passwd passphrase secret ssn iban cvv cvc")


def sensitive_name(name: str) -> bool:
    parts = words.name_words(name)
    if set(parts) & words.ATTRIBUTES:
        return False
    if "_".join(parts) in SENSITIVE_NAMES or set(parts) & _SENSITIVE_WORDS:
        return True
    return any("_".join(pair) in SENSITIVE_NAMES for pair in pairwise(parts))


@rule(
    id="TG610",
    severity=Severity.WARNING,
    fix="Mark the field sensitive: true (it reaches the model as [redacted]), or stop "
    "returning it.",
    source=f"{BOUNDARY}: credentials are read from the environment inside the function",
)
def sensitive_return_not_marked(
    site: ReturnSite, ctx: LintContext
) -> Iterator[Finding]:
    """A return field named like a credential or a personal identifier, not marked sensitive.

    ## What it does
    Reports a return field (at any depth) named like a password, a secret, a token or an API
    key, or like a number that identifies a person (tax code, social security number,
    passport, IBAN, card number, CVV, PIN), without `sensitive: true`. A name that says the
    field is about such a value rather than the value (`token_count`, `password_expires`,
    `card_type`) passes.

    ## Why is this bad?
    What a tool returns enters the context, is sent again on every later turn, ends up in
    traces and logs, and can be repeated to whoever talks to the agent. A credential or a
    personal identifier there is a leak waiting for the right prompt.

    ## Example
    ```yaml
    returns:
      iban: {type: string, description: The customer's bank account.}
    ```

    ## Use instead
    ```yaml
    returns:
      iban: {type: string, sensitive: true, description: The customer's bank account.}
    ```
    """
    f = site.field
    if f.sensitive or f.type in ("object", "array", "boolean"):
        return
    if sensitive_name(f.name):
        yield Finding(
            f"return field {site.dotted!r} looks like a credential or a personal identifier "
            "and is not marked sensitive; expected sensitive: true, so the model reads "
            "[redacted]"
        )
