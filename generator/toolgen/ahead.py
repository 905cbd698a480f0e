"""The stages before lint of a first build, in two processes: the IR of the tool files the
front cache holds nothing for, made ahead of the pipeline.

A rebuild takes the IR of every tool file that did not change from the front cache
(frontcache.py): load reads such a file but does not parse it, and the format check, the model
and the checks over one tool skip it. A first build (or one after many tool files changed) has
no such IR, and those four stages are serial. Here a forked child (parallel.py) makes the IR of
the second half of those files and the parent the first half meanwhile, each running load, the
format check, the model and the checks over one tool on its files, with catalogue.yaml as load
reads it. Every file that came through with no finding at all is then held by the front cache
as if an earlier build had kept it (`frontcache.adopt`): the pipeline reuses it, as it reuses a
kept tool, with the same catalogue-wide checks over it; lint finds no record of it and lints
it, render finds nothing kept and renders it. A file with a finding is left to the pipeline, which
makes it again and reports what it finds, as are all the child's files when the child fails
(`parallel.ChildFailed`): the build is the same either way, only its time differs. `check` and
`build --check`, which use no cache, make the IR ahead the same way, held by a front cache that
reads and writes no file.

A check over one tool reads that tool and catalogue.yaml alone (checks/__init__.py), and the
model makes each tool of its own document, so a half made apart holds the same IR and findings
as the whole catalogue does. Anything found in what is not one of the half's tool files, beyond
what catalogue.yaml alone gives, makes the half give nothing (the pipeline then does it all).

Each half also makes the pieces of its tools that the catalogue-wide lint rules and files are
assembled from (`pieces_of`: token counts, cards, lockfile entries), which the parent would
otherwise make alone after the fork, one tool after another; they reach the stages as kept
pieces do (pieces.py).

The child sends its IR as the bytes the front cache keeps (some 10 KB a tool), which the parent
reads back at once, before lint and render fork children of their own that then share it; the
front cache's save writes those bytes and the parent's own without pickling them again, so a
first build pickles each tool once, as before, in one process or the other.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from toolgen import checks, frontcache, limits, load, model, parallel, tokens, validate
from toolgen.frontcache import FrontCache, Made
from toolgen.ir import Tool
from toolgen.load import Document, LoadedCatalogue
from toolgen.pieces import CARD, LOCK, TOKENS
from toolgen.progress import Progress
from toolgen.render.modules import formatted_entries
from toolgen.review.lockfile import lock_piece

# tool files with nothing kept from which half of them are made in a forked child.
# Measured on a quiet 2-core machine, load to checks and the front cache's save: 200 tools
# 245 ms in one process, 145 ms to 180 ms in two; 100 tools 141 ms and 145 ms (no gain)
PARALLEL_FILES = 200

Reusable = Callable[[Document | None], Mapping[str, str]]


@dataclass(frozen=True, slots=True)
class Ahead:
    """What was made ahead, held by `front`: `reusable`, for load, names the tool files it
    holds (kept or made here), and `tools` gives their tools, those made here (`here`: the
    parent's half, and the child's, read back at once) with their IR already set."""

    front: FrontCache
    reusable: Reusable
    here: Mapping[str, Tool] = field(default_factory=dict)

    def tools(self, files: Iterable[str]) -> list[Tool]:
        """The tools of the files load reused (`FrontCache.tools`)."""
        found = self.front.tools(files)
        frontcache.settle(found, self.here)
        return found


def made_ahead(
    folder: Path,
    shown: str,
    root: Path,
    front: FrontCache,
    progress: Progress,
    *,
    read: bool = True,
    outputs: bool = False,
) -> Ahead:
    """The tool files of the catalogue folder with nothing kept in `front`, made in two
    processes when there are enough of them (`PARALLEL_FILES`), for `front` to hold, each
    tool with its token count and, with `outputs` (the caller renders), its card and
    lockfile entry (`pieces_of`). Without `read`, nothing is read of the cache file
    (nothing is kept: `check` and `build --check`, which use no cache, hold what is made in
    a front cache never saved)."""
    reader = front.reusable if read else front.unread
    entries = load.tool_entries(folder, shown)
    if not parallel.worth_it(len(entries), PARALLEL_FILES):
        return Ahead(front, reader)  # too few to fork for, kept ones or not
    if len(entries) > limits.MAX_TOOLS:
        return Ahead(front, reader)  # load refuses to read them
    catalogue = load.catalogue_document(folder, shown, root)
    if catalogue is None or validate.check_document(catalogue, "catalogue"):
        return Ahead(front, reader)  # the pipeline says what is wrong, and makes no IR
    kept = reader(catalogue)
    tools = folder / "tools"
    fresh = [(tools / name, file) for name, file in entries if file not in kept]
    if not parallel.worth_it(len(fresh), PARALLEL_FILES):
        return Ahead(front, _same_catalogue(catalogue, kept, reader))
    mine, theirs = fresh[: len(fresh) // 2], fresh[len(fresh) // 2 :]
    if len(mine) >= validate.COMPILED_FROM:
        validate.compile_schemas()  # once, for both processes
    with progress.stage("ahead", len(fresh)):
        child = parallel.start(
            lambda: _as_kept(made_of(catalogue, theirs, shown, root), outputs)
        )
        try:
            here = made_of(catalogue, mine, shown, root)
            made = _as_kept(here, outputs)
            sent = child.result()
            # read back now, before lint and render fork: their children then share it
            sent_tools = _read_back(sent)
        except parallel.ChildFailed:
            sent, sent_tools = {}, {}  # the pipeline makes the child's files
        except BaseException:  # an error or Ctrl-C here: the child is not left running
            child.stop()
            raise
        made.update(sent)
        here.update(sent_tools)
    adopted = frontcache.adopt(front, made)
    return Ahead(front, _same_catalogue(catalogue, {**kept, **adopted}, reader), here)


def _as_kept(tools: Mapping[str, Tool], outputs: bool) -> dict[str, Made]:
    made = pieces_of(list(tools.values()), outputs)
    return {file: frontcache.made(tool, made[file]) for file, tool in tools.items()}


def pieces_of(tools: Sequence[Tool], outputs: bool) -> dict[str, dict[str, object]]:
    """The pieces (pieces.py) of each tool's token count and, with `outputs`, of its card
    (formatted in one run for them all) and lockfile entry, by file: what the catalogue-wide
    lint rules and files would otherwise make in the parent alone, one tool after another
    (a first build of 1,000 tools: 700 ms)."""
    cards = formatted_entries(list(tools)) if outputs else []
    found: dict[str, dict[str, object]] = {}
    for index, tool in enumerate(tools):
        cost = tokens.tool_tokens(tool)
        made: dict[str, object] = {TOKENS: cost}
        if outputs:
            made[CARD] = cards[index]
            made[LOCK] = lock_piece(tool, cost)
        found[tool.file] = made
    return found


def _read_back(sent: Mapping[str, Made]) -> dict[str, Tool]:
    """The tools the child sent; `ChildFailed` when one is not the tool of its file."""
    tools: dict[str, Tool] = {}
    for file, (_, _, pickled, _) in sent.items():
        try:
            tool = pickle.loads(pickled)
        except Exception as exc:  # pickle raises anything
            raise parallel.ChildFailed(f"the IR sent for {file} does not load") from exc
        if not isinstance(tool, Tool) or tool.file != file:
            raise parallel.ChildFailed(f"the IR sent for {file} is of another tool")
        tools[file] = tool
    return tools


def _same_catalogue(
    catalogue: Document, known: Mapping[str, str], reader: Reusable
) -> Reusable:
    def reusable(loaded: Document | None) -> Mapping[str, str]:
        if loaded is not None and loaded.digest == catalogue.digest:
            return known
        # catalogue.yaml changed since: what was made or kept under the old text is not
        # read (reading the cache anew forgets what was adopted)
        return reader(loaded)

    return reusable


def made_of(
    catalogue: Document, files: Sequence[tuple[Path, str]], shown: str, root: Path
) -> dict[str, Tool]:
    """The IR of the tool files (path, display path) in which load, the format check, the
    model and the checks over one tool find nothing, by file."""
    documents: list[Document] = []
    for path, display in files:
        document, found = load.load_document(path, display, root)
        if document is not None and not found:
            documents.append(document)
    loaded = LoadedCatalogue(
        shown, catalogue, tuple(documents), (), tuple(d.file for d in documents)
    )
    validated = validate.validate(loaded)
    if validated.catalogue is None:
        return {}
    built = model.build_model(validated.catalogue, validated.tools, folder=shown)
    if built.catalogue is None:
        return {}
    alone = set(model.build_model(validated.catalogue, (), folder=shown).diagnostics)
    ours = {d.file for d in documents}
    blamed: set[str] = set()
    for diagnostic in (*validated.diagnostics, *built.diagnostics):
        if diagnostic.span.file in ours:
            blamed.add(diagnostic.span.file)
        elif diagnostic not in alone:
            return {}
    return {
        tool.file: tool
        for tool in built.catalogue.tools
        if not tool.derived
        and tool.file not in blamed
        and not checks.checks_over_one_tool(tool, built.catalogue)
    }
