"""Where plain `def` implementations run: worker threads, so they never block the event loop.

An agent runs on one event loop; a sync implementation that waits 50 ms on a database would
stop every other tool call, model request and stream of that loop for those 50 ms. Each call
of a sync implementation runs instead in a thread of one pool shared by all tools of the
process, with the caller's context variables (the SDK's current trace and span among them),
as `asyncio.to_thread` does. The pool is not asyncio's default executor, which has only
min(32, CPUs + 4) threads (6 on a 2-core machine) and is shared with everything else that
calls `to_thread`.

`TOOLGEN_SYNC_THREADS` sets how many threads the pool may start (default 32), read when the
first sync implementation is called. Threads start as calls need them.

The pool survives a fork (a pre-fork server such as gunicorn imports the app, may call a tool,
then forks its workers): a child inherits none of the parent's threads, only the pool object,
which would take each call and never run it. A child therefore forgets the parent's pool and
starts its own at its first sync call.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from toolgen_runtime.errors import ToolgenError

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["DEFAULT_SYNC_THREADS", "SYNC_THREADS_ENV", "run_in_worker"]

SYNC_THREADS_ENV = "TOOLGEN_SYNC_THREADS"
DEFAULT_SYNC_THREADS = 32

_T = TypeVar("_T")

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _forget_pool_in_child() -> None:
    global _pool, _pool_lock
    # the parent's threads did not come along, and its lock may have been held at the fork
    _pool = None
    _pool_lock = threading.Lock()


if hasattr(os, "register_at_fork"):  # no fork, and no need, on Windows
    os.register_at_fork(after_in_child=_forget_pool_in_child)


def _threads_from_environment() -> int:
    text = os.environ.get(SYNC_THREADS_ENV, "").strip()
    if not text:
        return DEFAULT_SYNC_THREADS
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise ToolgenError(
            f"{SYNC_THREADS_ENV} must be a whole number of threads, at least 1; got {text!r}"
        )
    return count


def _workers() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        # imported here: a process whose implementations are all async never needs it
        from concurrent.futures import ThreadPoolExecutor

        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(
                    max_workers=_threads_from_environment(),
                    thread_name_prefix="toolgen-sync",
                )
    return _pool


async def run_in_worker(function: Callable[..., _T], *args: object) -> _T:
    """`function(*args)` in a worker thread, with the caller's context variables."""
    loop = asyncio.get_running_loop()
    call = functools.partial(contextvars.copy_context().run, _called, function, *args)
    return await loop.run_in_executor(_workers(), call)


def _called(function: Callable[..., _T], *args: object) -> _T:
    """`function(*args)`, a StopIteration it raises (`next()` of an empty search) made a
    RuntimeError, as PEP 479 does in a generator: asyncio cannot set a StopIteration on
    the future it waits on, which then never finishes."""
    try:
        return function(*args)
    except StopIteration as exc:
        name = getattr(function, "__qualname__", repr(function))
        raise RuntimeError(f"{name} raised StopIteration") from exc
