"""One call in a fresh Python process at the lowest CPU priority (issue 35): `/measure_speed` runs here.

A thread of the server, even at nice 19, shares the interpreter lock with every request: the measurement's torch
operations each wait for it, and every masked word waits while the measurement holds it. A child process has its
own interpreter; at nice 19 it computes on whatever core the server leaves idle, and when it ends, its memory goes
back to the system: **1,501 MB at its peak** for the heaviest form the button takes (143.6M parameters without
sharing: its four models, one per sharing mode, live at once so that their timings interleave; measured with
`resource.getrusage(RUSAGE_CHILDREN)`, issue 53). One measurement runs at a time (`app.hosting.GROUPS["measure"]`).

    parent: run_in_child(fn, *args)  ->  python -c "…child import main; main()"  (stdin: pickle of (nice, fn, args))
    child:  lowers its priority, calls fn(*args), writes pickle of ("answer", value) or ("raised", exception)

`fn` travels by name (a module-level function); its arguments and answer must pickle. The child is started with
`-c`, so nothing of the caller's `__main__` is imported again (multiprocessing's spawn does, and fails from a
script without a `__main__` guard).

On Linux the child ends with the server (`prctl(PR_SET_PDEATHSIG)`): a server stopped in the middle of the heaviest
measurement left its child computing at nice 19, 1.4 GB, for minutes (issue 43's load runs).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import pickle
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app import settings

logger = logging.getLogger(__name__)
REPO_ROOT = Path(__file__).resolve().parents[1]
PR_SET_PDEATHSIG = 1


class ChildProcessEnded(RuntimeError):
    """The child ended without an answer (killed for memory, crashed, timed out); the message says how."""


def run_in_child(fn: Callable[..., Any], *args: Any, nice: int = 19, timeout: float = 600.0) -> Any:
    """`fn(*args)` in a fresh process at `nice`; its answer is returned and its exception raised here. Starting
    the child costs ~3 s (torch and the app's strings are imported), so this is for calls of several seconds."""
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]),
        settings.CHILD_PARENT.name: str(os.getpid()),  # the child can tell whether the server is still there
    }
    try:
        finished = subprocess.run(
            [sys.executable, "-c", "from app.child import main; main()"],
            input=pickle.dumps((nice, fn, args)),
            stdout=subprocess.PIPE,
            cwd=REPO_ROOT,
            env=environment,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as error:
        raise ChildProcessEnded(f"no answer within {timeout:g} s") from error
    if finished.returncode != 0 or not finished.stdout:
        raise ChildProcessEnded(f"exit code {finished.returncode}")
    kind, value = pickle.loads(finished.stdout)  # noqa: S301 — written by our own child, above
    if kind == "raised":
        raise value
    return value


def main() -> None:
    """The child's side: read the call from stdin, answer on stdout (anything the call prints goes to stderr)."""
    answer_to = sys.stdout.buffer
    sys.stdout = sys.stderr
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s (child): %(message)s")
    end_with_parent()
    nice, fn, args = pickle.loads(sys.stdin.buffer.read())  # noqa: S301 — written by our own parent
    if nice > 0:
        os.nice(nice)
    try:
        outcome = ("answer", fn(*args))
    except Exception as error:  # handed to the parent, which raises it where the call was made
        outcome = ("raised", error)
    answer_to.write(pickle.dumps(outcome))
    answer_to.flush()


def end_with_parent() -> bool:
    """Ask the kernel to kill this process when its parent (the server) ends, and end now if it already has; returns
    whether the kernel took the request (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        taken = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False
    expected = settings.CHILD_PARENT.read()
    if taken and expected.isdigit() and os.getppid() != int(expected):  # the server ended before the request
        os._exit(1)
    return taken
