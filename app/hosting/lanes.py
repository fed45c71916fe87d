"""Lanes: the heavy cost groups compute on threads of their own, at a lower CPU priority (issue 35).

Cost groups (`app.hosting.GROUPS`) keep a light request out of a heavy one's waiting line, but once both run they
share two cores as equals. A group with `nice` above 0 therefore runs its events on its own threads, made that much
nicer (Linux thread niceness, as `nice -n` does for a process): the kernel gives them a core after the light and
model requests. The heavy group (/attention, /layer_transitions) runs at nice 5. Threads still share the
interpreter lock, so work that computes for seconds goes to a process instead (`app.child`, /measure_speed).

Lowering one's own priority needs no privilege; where the system offers no per-thread niceness (not Linux), the
lane still runs the group on its own threads, at the server's priority.
"""

from __future__ import annotations

import contextvars
import functools
import logging
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

logger = logging.getLogger(__name__)
_lanes: dict[str, ThreadPoolExecutor] = {}
_lanes_lock = threading.Lock()


def lower_this_thread(nice: int) -> bool:
    """Raise the calling thread's niceness by `nice` (0–19; higher runs later); returns whether the system did it."""
    if nice <= 0:
        return True
    if not sys.platform.startswith("linux"):  # elsewhere PRIO_PROCESS with a thread id means the whole process
        return False
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(os.getpriority(os.PRIO_PROCESS, tid) + nice, 19))
    except OSError as error:
        logger.warning("could not lower this thread's priority (%s); it runs at the server's", error)
        return False
    return True


def thread_niceness() -> int:
    """The calling thread's niceness (Linux; the process's elsewhere)."""
    target = threading.get_native_id() if sys.platform.startswith("linux") else 0
    return os.getpriority(os.PRIO_PROCESS, target)


def lane(group: str, workers: int, nice: int) -> ThreadPoolExecutor:
    """The group's executor: `workers` threads, each `nice` lower than the server's; made at its first use."""
    with _lanes_lock:
        if group not in _lanes:
            _lanes[group] = ThreadPoolExecutor(
                max_workers=max(workers, 1),
                thread_name_prefix=f"albert-lab-{group}",
                initializer=lower_this_thread,
                initargs=(nice,),
            )
        return _lanes[group]


def in_lane(fn: Callable[..., Any], group: str, workers: int, nice: int) -> Callable[..., Any]:
    """`fn` run on the group's lane: the caller (Gradio's worker thread) waits for the answer, which is returned
    or raised as `fn` gave it. The request's context variables go with it; the signature stays `fn`'s, for Gradio
    reads it on every call."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        context = contextvars.copy_context()
        return lane(group, workers, nice).submit(context.run, fn, *args, **kwargs).result()

    run.lane = group  # type: ignore[attr-defined]
    return run


__all__ = ["in_lane", "lane", "lower_this_thread", "thread_niceness"]
