"""Where a build would write, checked before it writes anything (TG160-TG164).

A catalogue's `package` (the generated code) and `implementation` (the hand-written code) are
dotted paths in the project. Either can be written to point anywhere, so `check` refuses, at
the key that says it, each folder docs/codes.md lists under Where a build writes: one that
leaves the project, overlaps a folder a build must not write into, or would shadow an installed
module for every program run from the project root; and a package holding a file toolgen did
not write, or a manifest it cannot read.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from toolgen.build.manifest import MANIFEST_NAME, read_package
from toolgen.build.project import SPEC_DIR, Placement
from toolgen.diagnostics import Diagnostic, Span, error
from toolgen.paths import CACHE_DIR, package_dir
from toolgen.spec.ir import Catalogue
from toolgen.spec.summary import ToolSummary

# Top-level folders of a project that a build never writes into.
PROTECTED = frozenset(
    {
        "tests", "test", "docs", SPEC_DIR, ".git", ".github", ".hg", ".venv", "venv",
        "node_modules", CACHE_DIR, "__pycache__",
    }
)  # fmt: skip
# The unknown files of one package listed one by one; the rest are counted.
SHOWN_UNKNOWN = 20


def _overlaps(first: str, second: str) -> bool:
    """generated.inventory and generated.inventory.tests overlap; generated.a and
    generated.b do not."""
    a, b = first.split("."), second.split(".")
    return a[: len(b)] == b or b[: len(a)] == a


def _installed_path() -> list[str]:
    """The part of sys.path that is the installed environment (the standard library, site
    packages and what their .pth files add): not the script folder, PYTHONPATH or the
    current folder, which differ from run to run."""
    stdlib = sysconfig.get_paths()["stdlib"]
    entries = [p for p in sys.path if p]
    for index, entry in enumerate(entries):
        if Path(entry).resolve() == Path(stdlib).resolve():
            return entries[index:]
    return entries


def _shadowed(top: str, root: Path) -> str | None:
    """Which installed module named `top` there is, if one lives elsewhere than root/top."""
    if top in sys.builtin_module_names or top in sys.stdlib_module_names:
        return f"the standard library's module {top!r}"
    spec = importlib.machinery.PathFinder.find_spec(top, _installed_path())
    if spec is None:
        return None
    locations = list(spec.submodule_search_locations or [])
    if not locations and spec.origin:
        locations = [spec.origin]
    own = (root / top).resolve()
    for location in locations:
        place = Path(location).resolve()
        if place != own and place != own.with_suffix(".py"):
            return f"the installed module {top!r} ({place})"
    return None


def _toolgen_homes() -> list[Path]:
    # found, not imported: importing toolgen_runtime imports the Agents SDK (about a second
    # on a loaded machine), which a build never needs
    specs = map(importlib.util.find_spec, ("toolgen", "toolgen_runtime"))
    return [Path(s.origin).resolve().parent for s in specs if s and s.origin]


@dataclass(frozen=True, slots=True)
class LayoutResult:
    diagnostics: tuple[Diagnostic, ...]
    # False when the implementation folder leaves the project or shadows a module: then
    # nothing there is read (the implementation check is skipped)
    implementation_readable: bool


def check_layout(
    catalogue: Catalogue,
    tools: Sequence[ToolSummary],
    root: Path,
    others: Sequence[Placement] = (),
) -> LayoutResult:
    found: list[Diagnostic] = []
    readable = True
    real_root = root.resolve()
    targets = (
        ("package", catalogue.package, catalogue.package_at),
        ("implementation", catalogue.implementation, catalogue.implementation_at),
    )
    for key, dotted, at in targets:
        folder = root / package_dir(dotted)
        # every link on the way followed, a dangling one included (a build would create
        # what it points to)
        real = folder.resolve(strict=False)
        if not real.is_relative_to(real_root):
            readable = readable and key != "implementation"
            found.append(
                error(
                    "TG160",
                    f"{key} {dotted!r} is the folder {package_dir(dotted)}, which leads out "
                    f"of the project to {real}",
                    at,
                    "Use a folder inside the project; toolgen does not write through "
                    "symbolic links that leave it.",
                )
            )
            continue
        problem = _overlap_problem(key, dotted, catalogue, others, real)
        if problem is not None:
            found.append(error("TG161", problem[0], at, problem[1]))
            continue
        top = dotted.split(".")[0]
        elsewhere = _shadowed(top, root)
        if elsewhere is not None:
            readable = readable and key != "implementation"
            found.append(
                error(
                    "TG162",
                    f"{key} {dotted!r} would create the top-level module {top!r}, which "
                    f"would shadow {elsewhere}",
                    at,
                    f"Choose another first name than {top!r}, such as "
                    f"{'generated' if key == 'package' else 'impl'}.{catalogue.name}.",
                )
            )
    if not any(d.code in ("TG160", "TG161") for d in found):
        found.extend(_unknown_files(catalogue, tools, root))
    return LayoutResult(tuple(found), readable)


def _overlap_problem(
    key: str,
    dotted: str,
    catalogue: Catalogue,
    others: Sequence[Placement],
    real: Path,
) -> tuple[str, str] | None:
    if key == "implementation" and _overlaps(dotted, catalogue.package):
        return (
            f"implementation {dotted!r} overlaps the generated package "
            f"{catalogue.package!r}: a build would mix your code with its own",
            "Keep them apart, such as package: generated.x and implementation: impl.x.",
        )
    top = dotted.split(".")[0]
    if top in PROTECTED:
        return (
            f"{key} {dotted!r} is inside {top}/, which a build never writes into",
            "Use a folder of its own, such as generated/ or impl/.",
        )
    for other in others:
        if other.folder == catalogue.folder:
            continue
        for what, theirs in (
            ("package", other.package),
            ("implementation", other.implementation),
        ):
            if _overlaps(dotted, theirs):
                return (
                    f"{key} {dotted!r} overlaps the {what} {theirs!r} of the catalogue "
                    f"{other.folder}",
                    "Give every catalogue its own package and implementation folders.",
                )
    for home in _toolgen_homes():
        if real == home or real.is_relative_to(home) or home.is_relative_to(real):
            return (
                f"{key} {dotted!r} is the folder of toolgen itself ({home})",
                "Use a folder of your project, such as generated/ or impl/.",
            )
    return None


def _unknown_files(
    catalogue: Catalogue, tools: Sequence[ToolSummary], root: Path
) -> list[Diagnostic]:
    rel = package_dir(catalogue.package)
    try:
        state = read_package(root / rel, contents=False)
    except OSError as exc:
        return [
            error(
                "TG163",
                f"cannot list the generated package {rel}: {exc.strerror or exc}",
                catalogue.package_at,
                "Check that you may read the folder.",
            )
        ]
    found = []
    if state.manifest_problem is not None:
        found.append(
            error(
                "TG164",
                f"the manifest of the generated package cannot be read: "
                f"{state.manifest_problem}",
                Span(f"{rel}/{MANIFEST_NAME}", 1, 1),
                "Without it nothing in the package can be proven toolgen's: if every file "
                f"in {rel} is toolgen's output, delete the folder and build again.",
            )
        )
    if state.unknown == (".",):
        return [
            error(
                "TG163",
                f"the generated package {rel} is not a folder toolgen made (it is a file or "
                "a symbolic link)",
                catalogue.package_at,
                f"Move {rel} away, or choose another package.",
            )
        ]
    modules = {f"{t.py.module}.py": t for t in tools}
    for entry in state.unknown[:SHOWN_UNKNOWN]:
        tool = modules.get(entry)
        clash = (
            f"; tool {tool.name!r} would be generated there" if tool is not None else ""
        )
        found.append(
            error(
                "TG163",
                f"{rel}/{entry} is in the generated package, but toolgen did not write it "
                f"(it is not in {MANIFEST_NAME}){clash}",
                Span(f"{rel}/{entry}", 1, 1),
                "toolgen never replaces or deletes a file it did not write: move this one "
                "out of the package (or delete it if it is an old toolgen output), then "
                "build again.",
            )
        )
    if len(state.unknown) > SHOWN_UNKNOWN:
        found.append(
            error(
                "TG163",
                f"and {len(state.unknown) - SHOWN_UNKNOWN} more files in {rel} that "
                "toolgen did not write",
                Span(rel, 1, 1),
                "Move them out of the package, then build again.",
            )
        )
    return found
