"""The one place a build forks: run a function in a child process and take back its result.

`start(work)` forks a child that runs `work()`, pickles the result onto a pipe and leaves with
`os._exit`; `Child.result()` reads it and reaps the child. Anything that goes wrong in the
child (an exception, a kill, a pickle that does not load) is `ChildFailed` in the parent, which
then does the work itself, so a failed child never makes a wrong build. `Child.stop()` kills
and reaps a child the parent no longer wants (an exception or Ctrl-C in the parent).

Forking only pays with two cores or more and enough work (`worth_it`); `TOOLGEN_SERIAL=1`
forces the serial path (tests compare the two).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections.abc import Callable
from typing import Generic, TypeVar, cast

T = TypeVar("T")

__all__ = ["Child", "ChildFailed", "start", "worth_it"]


class ChildFailed(RuntimeError):
    """The child gave no usable result; the parent does its work itself."""


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def worth_it(units: int, threshold: int) -> bool:
    """Fork for `units` pieces of work: only with fork, two cores and `threshold` units."""
    if os.environ.get("TOOLGEN_SERIAL") == "1":
        return False
    return hasattr(os, "fork") and _cores() >= 2 and units >= threshold


class Child(Generic[T]):
    def __init__(self, pid: int, read_fd: int) -> None:
        self.pid = pid
        self._fd = read_fd
        self._done = False

    def result(self) -> T:
        """The child's result; `ChildFailed` when there is none. Reaps the child."""
        chunks: list[bytes] = []
        try:
            with open(self._fd, "rb", closefd=True) as pipe:
                self._fd = -1
                while chunk := pipe.read(1 << 20):
                    chunks.append(chunk)
        except OSError as exc:
            self.stop()
            raise ChildFailed(f"cannot read the child's result: {exc}") from exc
        _, status = os.waitpid(self.pid, 0)
        self._done = True
        if os.waitstatus_to_exitcode(status) != 0:
            raise ChildFailed(f"the child ended with status {status}")
        try:
            ok, value = pickle.loads(b"".join(chunks))
        except Exception as exc:
            raise ChildFailed(f"the child's result does not load: {exc}") from exc
        if not ok:
            raise ChildFailed(f"the child failed: {value}")
        return cast(T, value)

    def stop(self) -> None:
        """Kill and reap the child, if it still runs."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._done:
            return
        self._done = True
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)


def start(work: Callable[[], T]) -> Child[T]:
    """Fork a child running `work`; its result comes back through `Child.result`."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = 0
        try:
            os.close(read_fd)
            try:
                payload = pickle.dumps((True, work()), pickle.HIGHEST_PROTOCOL)
            except BaseException as exc:
                payload = pickle.dumps((False, repr(exc)), pickle.HIGHEST_PROTOCOL)
            with open(write_fd, "wb", closefd=True) as pipe:
                pipe.write(payload)
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(write_fd)
    return Child(pid, read_fd)
