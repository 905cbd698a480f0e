"""What the fuzzer knows of a tool besides its argument schema: guarded arguments, pages, the
output contract and a token pair, read from the generated module, and the boundaries and
services its calls need.

- A guarded field (`PathGuard`, `UrlGuard`, a page's cursor), at the top level of the
  arguments or below it (an array's items, an object's property), takes strings the contract
  allows and the guard refuses: such a refusal is a kept promise when every problem it names
  is that field's, with a code of its kind (`toolgen_runtime.guards.CODES`). Valid arguments
  often carry a value the guard passes (a file under the root, a URL on an allowed host), and
  the sweep sends probes the guard must refuse (a path out of the root, through a link, another
  host...). What a guard passes is judged independently of it: a path resolves to a regular
  file inside its root, with an allowed suffix, not hidden; a URL has an allowed scheme, host
  and port, and no user-info.
- The boundaries are the caller's (a generated test passes its own) or made here: a folder per
  root holding a file for the spec's example, a hidden file and a link out of the root, the
  hosts of a `hosts_from` list, and a cursor signer with a random secret.
- A confirm tool's valid arguments carry `PLACEHOLDER` as their token: each call replaces it
  with a token its prepare tool (same store and signer) issues for the same arguments just
  before the call; any other token is made up.
"""

from __future__ import annotations

import importlib
import inspect
import os
import secrets
import types
import typing
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

from agents import FunctionTool
from pydantic import BaseModel

from toolgen_runtime.fuzz.contract import Loc
from toolgen_runtime.fuzz.values import ITEM
from toolgen_runtime.guards.codes import CODES
from toolgen_runtime.guards.paths import CheckedPath, PathGuard
from toolgen_runtime.guards.scope import Boundaries
from toolgen_runtime.guards.urls import DEFAULT_PORTS, CheckedUrl, UrlGuard
from toolgen_runtime.output import OutputContract
from toolgen_runtime.pagination import Cursor, CursorArgument, Pagination
from toolgen_runtime.signing import Signer
from toolgen_runtime.writes import TOKEN_PARAM, TokenConfirmation

__all__ = [
    "PLACEHOLDER",
    "Guarded",
    "ToolModel",
    "args_model_of",
    "guarded_fields",
    "make_boundaries",
    "model_of",
]

# the token of a confirm tool's valid arguments, replaced by a real one at each call
PLACEHOLDER = "toolgen-fuzz-token-placeholder"
_SHOWN_GOOD = 8  # files under a root the valid arguments name


@dataclass(frozen=True, slots=True)
class Guarded:
    """One guarded place of the arguments: `name`, the place as the model writes it
    (`path`, `cover.sheet`, `reports.*`: `*` stands for each item of an array); `steps`, each
    an object key with its attribute on the argument model (ITEM twice for an array's
    items); its kind ("path", "url", "cursor") and its guard."""

    name: str
    steps: tuple[tuple[str, str], ...]
    kind: str
    guard: PathGuard | UrlGuard | Pagination

    def holds(self, field: str) -> bool:
        """Whether a problem's field (`reports.0`) is at this place."""
        parts = field.split(".")
        return len(parts) == len(self.steps) and all(
            part == key or (key == ITEM and part.isdigit())
            for part, (key, _) in zip(parts, self.steps, strict=True)
        )

    def found(self, received: object, sent: object) -> list[tuple[Loc, object, object]]:
        """Each value at this place: where it stands, what the implementation received
        (from the argument model) and what the model sent there (None when nothing)."""
        places: list[tuple[Loc, object, object]] = [((), received, sent)]
        for key, attribute in self.steps:
            deeper: list[tuple[Loc, object, object]] = []
            for loc, got, given in places:
                if key == ITEM and isinstance(got, list | tuple):
                    items = given if isinstance(given, list) else []
                    deeper += [
                        ((*loc, n), item, items[n] if n < len(items) else None)
                        for n, item in enumerate(got)
                    ]
                elif key != ITEM and got is not None:
                    inner = given.get(key) if isinstance(given, dict) else None
                    deeper.append(((*loc, key), getattr(got, attribute, None), inner))
            places = deeper
        return places

    def broken(self, value: object, sent: object, boundaries: Boundaries) -> str | None:
        """What is wrong with the value the implementation received for `sent`, judged
        from the guard's settings (not by running it again), or None."""
        if value is None:
            return None if sent is None else "received null for a value"
        if isinstance(self.guard, PathGuard):
            return _broken_path(value, sent, self.guard, boundaries)
        if isinstance(self.guard, UrlGuard):
            return _broken_url(value, sent, self.guard, boundaries)
        if not isinstance(value, Cursor):
            return f"received a {type(value).__name__}, not a Cursor"
        return None if value.text == sent else "a cursor other than the one sent"


def _shown(value: object, limit: int = 100) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text):,} chars)"


def _broken_path(
    value: object, sent: object, guard: PathGuard, boundaries: Boundaries
) -> str | None:
    if not isinstance(value, CheckedPath):
        return f"received a {type(value).__name__}, not a CheckedPath"
    if value.requested != sent:
        return f"the checked path says {_shown(value.requested)} was sent"
    root = boundaries.root(guard.root)
    if value.root != root:
        return f"the path is under {value.root}, not the root {guard.root!r}"
    target = Path(os.path.realpath(root.joinpath(*value.relative.parts)))
    if not target.is_relative_to(root):
        return f"{_shown(sent)} leads outside the root {guard.root!r}"
    inside = PurePosixPath(target.relative_to(root).as_posix())
    if inside != value.relative:
        return (
            f"{_shown(sent)} leads to {inside}, the checked path says {value.relative}"
        )
    if guard.must_exist and not target.is_file():
        return f"{_shown(sent)} is not a regular file under the root"
    name = inside.name.casefold()
    if guard.suffixes and not any(
        name.endswith(s.casefold()) and len(name) > len(s) for s in guard.suffixes
    ):
        return f"{_shown(sent)} does not end with {' or '.join(guard.suffixes)}"
    if not guard.allow_hidden and any(part.startswith(".") for part in inside.parts):
        return f"{_shown(sent)} leads to a hidden file"
    return None


def _ascii_host(host: str) -> str:
    """A listed host as a checked URL holds it: lower case, A-labels, no trailing dot."""
    host = host.lower().rstrip(".")
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host


def _broken_url(
    value: object, sent: object, guard: UrlGuard, boundaries: Boundaries
) -> str | None:
    if not isinstance(value, CheckedUrl):
        return f"received a {type(value).__name__}, not a CheckedUrl"
    if value.requested != sent or not isinstance(sent, str):
        return f"the checked URL says {_shown(value.requested)} was sent"
    listed = list(guard.hosts)
    if guard.hosts_from is not None:
        listed += boundaries.hosts.get(guard.hosts_from, ())
    hosts = {_ascii_host(h) for h in listed}
    try:
        asked = urlsplit(sent)
        asked_host = asked.hostname
        asked_user = asked.username
    except ValueError:
        return f"{_shown(sent)} is not a URL Python can split"
    if value.scheme not in guard.schemes or asked.scheme.lower() != value.scheme:
        return f"{_shown(sent)} has the scheme {asked.scheme!r}, not {' or '.join(guard.schemes)}"
    if value.host not in hosts:
        return f"{_shown(sent)} goes to the host {value.host!r}, not {' or '.join(sorted(hosts))}"
    if (
        asked_host is not None
        and asked_host.isascii()
        and asked_host.rstrip(".") != value.host
    ):
        return (
            f"{_shown(sent)} goes to {asked_host!r}, the checked URL to {value.host!r}"
        )
    if (
        value.userinfo is not None or asked_user is not None
    ) and not guard.allow_userinfo:
        return f"{_shown(sent)} has a user name"
    if value.port != DEFAULT_PORTS.get(value.scheme) and value.port not in guard.ports:
        return f"{_shown(sent)} goes to the port {value.port}"
    return None


def _metadata_guard(
    metadata: Sequence[object],
) -> PathGuard | UrlGuard | Pagination | None:
    for item in metadata:
        if isinstance(item, PathGuard | UrlGuard):
            return item
        if isinstance(item, CursorArgument):
            return item.pagination
    return None


def guarded_fields(args_model: type[BaseModel]) -> dict[str, Guarded]:
    """The guarded places of an argument model, at any depth, by name (`Guarded.name`)."""
    found: dict[str, Guarded] = {}
    for steps, guard in _guards_in(args_model, (), frozenset()):
        kind = (
            "path"
            if isinstance(guard, PathGuard)
            else "url"
            if isinstance(guard, UrlGuard)
            else "cursor"
        )
        name = ".".join(key for key, _ in steps)
        found[name] = Guarded(name, steps, kind, guard)
    return found


_Steps = tuple[tuple[str, str], ...]


def _guards_in(
    model: type[BaseModel], steps: _Steps, seen: frozenset[type]
) -> Iterator[tuple[_Steps, PathGuard | UrlGuard | Pagination]]:
    for attribute, info in model.model_fields.items():
        place = (*steps, (info.alias or attribute, attribute))
        yield from _guards_of(info.annotation, info.metadata, place, seen | {model})


def _guards_of(
    annotation: object, metadata: Sequence[object], steps: _Steps, seen: frozenset[type]
) -> Iterator[tuple[_Steps, PathGuard | UrlGuard | Pagination]]:
    """The guards in one field's type: its own (in its metadata), or those of an array's
    items, of a union's members (null apart) and of a nested model's fields."""
    guard = _metadata_guard(metadata)
    if guard is not None:
        yield steps, guard
    elif typing.get_origin(annotation) is typing.Annotated:
        inner, *more = typing.get_args(annotation)
        yield from _guards_of(inner, more, steps, seen)
    elif typing.get_origin(annotation) in {list, tuple}:
        item = typing.get_args(annotation)[0]
        yield from _guards_of(item, (), (*steps, (ITEM, ITEM)), seen)
    elif typing.get_origin(annotation) in {typing.Union, types.UnionType}:
        for member in typing.get_args(annotation):
            yield from _guards_of(member, (), steps, seen)
    elif (
        isinstance(annotation, type)
        and issubclass(annotation, BaseModel)
        and annotation not in seen
    ):
        yield from _guards_in(annotation, steps, seen)


def make_boundaries(
    guarded: Mapping[str, Guarded], examples: Mapping[str, object], folder: Path
) -> Boundaries:
    """Boundaries for a fuzz: in `folder`, a root per path guard with a file for the spec's
    example (or one named after its first suffix), a hidden file and a link to a file
    outside the root; the hosts of each `hosts_from` list; a cursor signer."""
    roots: dict[str, Path] = {}
    hosts: dict[str, tuple[str, ...]] = {}
    outside = (
        folder / "roots" / "out-of-root"
    )  # ../out-of-root/ from a root (no root name has -)
    outside.mkdir(parents=True, exist_ok=True)
    for item in guarded.values():
        guard = item.guard
        if isinstance(guard, UrlGuard) and guard.hosts_from is not None:
            hosts[guard.hosts_from] = (f"{guard.hosts_from.replace('_', '-')}.example",)
        if not isinstance(guard, PathGuard) or guard.root in roots:
            continue
        root = folder / "roots" / guard.root
        root.mkdir()
        suffix = guard.suffixes[0] if guard.suffixes else ".txt"
        example = examples.get(item.name)
        names = [example] if isinstance(example, str) else []
        names.append(f"fuzz{suffix}")
        for name in names:
            target = root.joinpath(*name.split("/"))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(f"{name}\n", encoding="utf-8")
        (root / f".hidden{suffix}").write_text("hidden\n", encoding="utf-8")
        secret = outside / f"secret{suffix}"
        secret.write_text("outside the root\n", encoding="utf-8")
        (root / f"link{suffix}").symlink_to(secret)
        roots[guard.root] = root
    signer = Signer([secrets.token_bytes(32)], "cursor")
    return Boundaries(roots=roots, hosts=hosts, cursor_signer=signer)


def _files_under(root: Path, guard: PathGuard) -> list[str]:
    """Regular files under a root the guard passes (sorted, a few): what valid arguments
    name."""
    found: list[str] = []
    for folder, folders, files in os.walk(root):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        for name in sorted(files):
            path = Path(folder, name)
            relative = path.relative_to(root).as_posix()
            if name.startswith(".") or path.is_symlink() or not path.is_file():
                continue
            folded = name.casefold()
            if guard.suffixes and not any(
                folded.endswith(s.casefold()) for s in guard.suffixes
            ):
                continue
            found.append(relative)
    return sorted(found)[:_SHOWN_GOOD]


def _good_urls(guard: UrlGuard, example: object, boundaries: Boundaries) -> list[str]:
    hosts = list(guard.hosts)
    if guard.hosts_from is not None:
        hosts += boundaries.hosts.get(guard.hosts_from, ())
    found = [example] if isinstance(example, str) else []
    found += [f"{guard.schemes[0]}://{host}/fuzz?page=1" for host in hosts[:2]]
    return found


def _path_probes(good: str, root: Path, guard: PathGuard) -> Iterator[tuple[str, str]]:
    suffix = guard.suffixes[0] if guard.suffixes else ".txt"
    yield "a path out of the root with ..", f"../out-of-root/secret{suffix}"
    yield (
        "a path out of the root through a folder",
        f"fuzz/../../out-of-root/secret{suffix}",
    )
    yield "the root's own absolute path", str(root / good)
    yield "an absolute path", f"/etc/passwd{suffix}"
    yield "a link out of the root", f"link{suffix}"
    yield "a hidden file", f".hidden{suffix}"
    yield "a file that does not exist", f"missing{suffix}"
    yield "the root itself", "."
    yield "a path with ./", f"./{good}"
    yield "a backslash", good.replace("/", "\\") if "/" in good else f"..\\{good}"
    yield "a suffix not allowed", good + ".exe"
    yield "fullwidth dots", f"\uff0e\uff0e/out-of-root/secret{suffix}"


def _url_probes(good: str) -> Iterator[tuple[str, str]]:
    parts = urlsplit(good)
    host, rest = parts.hostname or "", good.split(parts.netloc, 1)[-1]
    yield "http for https", f"http://{parts.netloc}{rest}"
    yield "another host", f"https://evil.example{rest}"
    yield "an allowed host as a prefix", f"https://{host}.evil.example{rest}"
    yield "an allowed host as a suffix", f"https://evil{host}{rest}"
    yield "a user name", f"https://user@{parts.netloc}{rest}"
    yield "a user name that looks like the host", f"https://{host}@evil.example{rest}"
    yield "an IP address", f"https://169.254.169.254{rest}"
    yield "a decimal IP address", f"https://2852039166{rest}"
    yield "a trailing dot", f"https://{host}.{rest}"
    yield "another port", f"https://{host}:8443{rest}"
    yield "upper-case host", f"https://{host.upper()}{rest}"
    yield "a fragment", f"{good}#part"
    yield "no scheme", f"//{parts.netloc}{rest}"
    yield "a file URL", "file:///etc/passwd"


@dataclass
class ToolModel:
    """What the fuzzer models of one tool besides its schema (see the module docstring)."""

    guarded: Mapping[str, Guarded] = field(default_factory=dict)
    boundaries: Boundaries | None = None
    output: OutputContract | None = None
    pagination: Pagination | None = None
    confirmation: TokenConfirmation | None = None
    # a confirm tool's prepare tool, built with the same store and signer
    prepare_tool: FunctionTool | None = None
    # values the valid arguments often carry at a place (`Guarded.name`: what passes a
    # guard; the token placeholder)
    good: Mapping[str, Sequence[object]] = field(default_factory=dict)
    # (label, place, value): values the contract allows that a guard must judge
    probes: Sequence[tuple[str, str, object]] = ()

    def __post_init__(self) -> None:
        for name, item in self.guarded.items():
            if self.boundaries is None:
                raise ValueError(f"the guarded field {name!r} needs boundaries")
            if item.kind == "path":
                assert isinstance(item.guard, PathGuard)
                root = self.boundaries.root(item.guard.root)
                files = _files_under(root, item.guard)
                self.good = {**self.good, name: files} if files else self.good
                good = files[0] if files else "fuzz.txt"
                self.probes = [
                    *self.probes,
                    *(
                        (f"{name}: {label}", name, value)
                        for label, value in _path_probes(good, root, item.guard)
                    ),
                ]
            elif item.kind == "url":
                assert isinstance(item.guard, UrlGuard)
                urls = [
                    *(str(u) for u in self.good.get(name, ())),
                    *_good_urls(item.guard, None, self.boundaries),
                ]
                self.good = {**self.good, name: urls}
                self.probes = [
                    *self.probes,
                    *(
                        (f"{name}: {label}", name, value)
                        for label, value in _url_probes(str(urls[0]))
                    ),
                ]

    @property
    def confirms(self) -> bool:
        return self.confirmation is not None and self.confirmation.role == "confirm"

    @property
    def prepares(self) -> bool:
        return self.confirmation is not None and self.confirmation.role == "prepare"

    def guard_at(self, field: str) -> Guarded | None:
        """The guarded place a problem's field (`reports.0`) stands at, or None."""
        return next((g for g in self.guarded.values() if g.holds(field)), None)

    def boundary_problem(self, problem: Mapping[str, Any]) -> bool:
        """Whether a problem of a rejection is a guarded field's, with a code of its kind."""
        item = self.guard_at(str(problem.get("field")))
        code = CODES.get(str(problem.get("code")))
        return item is not None and code is not None and code.guard == item.kind


def model_of(
    module: ModuleType,
    *,
    boundaries: Boundaries | None,
    folder: Path,
    services: Mapping[str, object],
) -> ToolModel:
    """The model of a generated tool module: its guards with `boundaries` (made in `folder`
    when None and it has any), its output contract, pagination and token confirmation (the
    prepare tool of a confirm tool built with `services`)."""
    args_model = args_model_of(module)
    guarded = guarded_fields(args_model) if args_model is not None else {}
    examples: Mapping[str, object] = getattr(module, "EXAMPLES", {}) or {}
    if guarded and boundaries is None:
        boundaries = make_boundaries(guarded, examples, folder)
    good: dict[str, Sequence[object]] = {
        name: [examples[name]]
        for name, item in guarded.items()
        if item.kind == "url" and isinstance(examples.get(name), str)
    }
    # a cursor is null on the first page: a made-up one is refused, one made here too
    good.update(
        {name: [None] for name, item in guarded.items() if item.kind == "cursor"}
    )
    confirmation = getattr(module, "CONFIRMATION", None)
    prepare_tool = None
    if confirmation is not None and confirmation.role == "confirm":
        prepare = importlib.import_module(
            f"{module.__package__}.{confirmation.prepare_tool}"
        )
        prepare_tool = prepare.build_tool(**services)
        good[TOKEN_PARAM] = [PLACEHOLDER]
    return ToolModel(
        guarded=guarded,
        boundaries=boundaries if "boundaries" in _parameters(module) else None,
        output=getattr(module, "OUTPUT", None),
        pagination=getattr(module, "PAGINATION", None),
        confirmation=confirmation,
        prepare_tool=prepare_tool,
        good=good,
    )


def _parameters(module: ModuleType) -> Mapping[str, object]:
    return inspect.signature(module.build_tool).parameters


def args_model_of(module: ModuleType) -> type[BaseModel] | None:
    """The argument model of a generated tool module (its tool's invoker's)."""
    invoker = getattr(getattr(module, "TOOL", None), "on_invoke_tool", None)
    found = getattr(invoker, "args_model", None)
    return found if isinstance(found, type) and issubclass(found, BaseModel) else None
