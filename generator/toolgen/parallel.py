"""The one place a build forks: run a function in a child process and take back its result.

`start(work)` forks a child that runs `work()`, pickles the result onto a pipe and leaves with
`os._exit`; `Child.result()` reads it and reaps the child. `serve(setup)` forks a child that
answers questions one at a time over two pipes (what `setup()` returns answers them), for a
slow set-up that can run while the parent goes on (the tokenizer's load, tokens.py).

Anything that goes wrong in a child (an exception, a kill, a pickle that does not load) is
`ChildFailed` in the parent, which then does the work itself, so a failed child never makes a
wrong build. `Child.stop()` and `Server.stop()` kill and reap a child the parent no longer
wants (an exception or Ctrl-C in the parent).

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

__all__ = ["Child", "ChildFailed", "Server", "serve", "start", "worth_it"]


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


# --- a child that answers questions ---------------------------------------------------------

# one message on a pipe: its length (4 bytes, big-endian), then its bytes
_HEAD = 4


def _read_exactly(fd: int, size: int) -> bytes | None:
    """`size` bytes from `fd`, or None at the end of the stream."""
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = os.read(fd, left)
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _message(data: bytes) -> bytes:
    return len(data).to_bytes(_HEAD, "big") + data


def _received(fd: int) -> bytes | None:
    head = _read_exactly(fd, _HEAD)
    if head is None:
        return None
    return _read_exactly(fd, int.from_bytes(head, "big"))


def _answer_all(
    setup: Callable[[], Callable[[bytes], bytes]], inbox: int, outbox: int
) -> None:
    answer = setup()
    while (question := _received(inbox)) is not None:
        _write_all(outbox, _message(answer(question)))


class Server:
    """A forked child answering questions, for the process that started it only: a child
    forked from that process later (lint's, render's) inherits the object, and its `ask`
    fails there rather than mixing two conversations on one pipe."""

    def __init__(self, pid: int, to_child: int, from_child: int) -> None:
        self.pid = pid
        self.owner = os.getpid()
        self._to = to_child
        self._from = from_child

    def ask(self, question: bytes) -> bytes:
        """The child's answer; `ChildFailed` when there is none (then the child is gone)."""
        if os.getpid() != self.owner or self._to < 0:
            raise ChildFailed("not this process's child")
        try:
            _write_all(self._to, _message(question))
            answer = _received(self._from)
        except OSError as exc:
            self.stop()
            raise ChildFailed(f"cannot reach the child: {exc}") from exc
        if answer is None:
            self.stop()
            raise ChildFailed("the child ended")
        return answer

    def stop(self) -> None:
        """End the child (it holds nothing worth finishing). It is reaped later, when it is
        gone: taking down a copy of the parent's memory takes about 10 ms, which nobody
        needs to wait for."""
        if os.getpid() != self.owner or self._to < 0:
            return
        os.close(self._to)
        os.close(self._from)
        self._to = self._from = -1
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        _unreaped.append(self.pid)
        _reap()


# children killed and not reaped yet (zombies until then), reaped by the next serve or stop
_unreaped: list[int] = []


def _reap() -> None:
    for pid in list(_unreaped):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid  # reaped elsewhere
        if done == pid:
            _unreaped.remove(pid)


def serve(setup: Callable[[], Callable[[bytes], bytes]]) -> Server:
    """Fork a child that runs `setup()`, then answers each question with what it returned,
    until the parent stops it (or ends: the child reads the end of the pipe and leaves)."""
    _reap()
    to_child_read, to_child = os.pipe()
    from_child, from_child_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = 0
        try:
            os.close(to_child)
            os.close(from_child)
            _answer_all(setup, to_child_read, from_child_write)
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(to_child_read)
    os.close(from_child_write)
    return Server(pid, to_child, from_child)
