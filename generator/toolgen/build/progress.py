"""What a long build is doing, and how long each stage took: the line of stderr a build
overwrites on a terminal and the time of each stage `--verbose` prints, as docs/builds.md (What
a build is doing) shows them. The line is cleared when done, so the output that stays is the
same as without it; it is never drawn where a line rewritten with carriage returns is noise (a
pipe, a file, CI, a dumb terminal)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

# redraws of the live line per second at most: a terminal is slower than the loop it shows
REDRAWS_PER_SECOND = 20
_CLEAR = "\r\x1b[K"


def _interactive(stream: TextIO) -> bool:
    if os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


class Progress:
    """A build's report of what it is doing. `live`: the overwritten line; `verbose`: one
    line per stage with its time. Neither: it costs a few calls and prints nothing."""

    def __init__(self, *, live: bool = False, verbose: bool = False) -> None:
        self.stream = sys.stderr
        self.live = live
        self.verbose = verbose
        self.label = ""
        self._shown = False
        self._drawn_at = 0.0

    @classmethod
    def for_stderr(cls, *, verbose: bool = False) -> Progress:
        return cls(live=_interactive(sys.stderr), verbose=verbose)

    def _draw(self, text: str) -> None:
        self.stream.write(f"{_CLEAR}toolgen: {text}")
        self.stream.flush()
        self._shown = True

    def clear(self) -> None:
        """Take the live line away (before anything else is printed, and at the end)."""
        if self._shown:
            self.stream.write(_CLEAR)
            self.stream.flush()
            self._shown = False

    @contextmanager
    def stage(
        self, name: str, total: int | None = None, unit: str = "tools"
    ) -> Iterator[Callable[[], None]]:
        """Time one stage; yields `advance`, to call once per item (of `unit`) of `total`
        done."""
        where = f"{self.label}: " if self.label else ""
        count = f" {total:,} {unit}" if total is not None else ""
        done = 0

        def advance() -> None:
            nonlocal done
            done += 1
            now = time.perf_counter()
            if self.live and (
                done == total or now - self._drawn_at >= 1 / REDRAWS_PER_SECOND
            ):
                self._drawn_at = now
                self._draw(f"{where}{name} {done:,}/{total or 0:,} {unit}")

        if self.live:
            self._drawn_at = time.perf_counter()
            self._draw(f"{where}{name}{count}")
        start = time.perf_counter()
        try:
            yield advance
        finally:
            elapsed = time.perf_counter() - start
            if self.verbose:
                self.clear()
                took = (
                    f"{elapsed * 1000:,.0f} ms" if elapsed < 1 else f"{elapsed:,.2f} s"
                )
                self.stream.write(f"toolgen: {where}{name}: {took}{count}\n")
                self.stream.flush()


QUIET = Progress(live=False, verbose=False)
