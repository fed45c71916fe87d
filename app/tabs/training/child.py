"""A lesson arm's process, started ahead of the lesson: run by path, never imported by the server.

    python app/tabs/training/child.py LOG  cwd: the repository root; stdin: a pipe from the server's `Trainer`;
                                           stdout and stderr: the file LOG, until the server moves it

It imports what `python -m albert.pretrain` imports (`preload`: ~4 of the ~5.3 s of CPU a cold arm spent before its
first logged row, see `app.tabs.training.runner`), says so in its log's first line, then waits on stdin for one line,
the command's arguments as a JSON list of strings. With them it runs the module `albert.pretrain` as `__main__`
through `runpy`, with `sys.argv` and `sys.path[0]` as `python -m albert.pretrain ARGS` sets them: the same `main`, the
same arguments, the same code path (`tests/app/tabs/training/test_training_children.py` compares the rows and
summaries of both). Its output goes to the file the server opened for it (which the server moves into the lesson's
folder).

It never outlives the server: a thread reads the line and then waits for the end of stdin, whose other end only the
server holds; at the end of stdin it ends the process at once, importing or running the command (the server closed
the pipe, or ended without killing it: SIGTERM and SIGKILL run no `atexit`); one that never got its line removes its
LOG first, and their folder once it is empty. Before the line it imports nothing of the app (`app/__init__.py` would
import Gradio), only the standard library and what the command imports.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import threading
import time

COMMAND = "albert.pretrain"
"""The module `python -m` runs: the command's short name (`Lesson.command` prints it)."""
READY = "imported ahead"
"""Written to the output (the arm's log) once `preload` is done: `… imported ahead in 4.1 s of CPU; …`."""
ORPHANED = 3
"""The exit status of a child whose server ended after giving it its arguments (0: before)."""


def arguments(line: str) -> list[str]:
    """The command's arguments from the server's line; ValueError when it is not a JSON list of strings."""
    argv = json.loads(line)
    if not isinstance(argv, list) or not all(isinstance(arg, str) for arg in argv):
        raise ValueError("the line must be a JSON list of strings (the arguments of python -m albert.pretrain)")
    return argv


def preload() -> None:
    """Import, before the arguments come, what the command imports: its module's imports (the module run once, not as
    `__main__`, so its `main` is not called and the module itself is not kept: runpy runs it afresh later), the
    tokenizer classes its `load_tokenizer` imports when it is called (transformers loads them lazily), and torch's
    compiler frontend, which torch.optim imports when the command builds its AdamW (sympy with it: ~1.2 s of CPU, just
    before the first step)."""
    import torch._dynamo  # noqa: F401
    from transformers import AlbertTokenizerFast, BertTokenizerFast  # noqa: F401

    runpy.run_module(COMMAND, run_name="preloaded")


def _listen(arrived: threading.Event, lines: list[bytes], log: str) -> None:
    """Read the server's line, then wait for the end of stdin; at the end of stdin, exit at once, whatever the main
    thread is doing (importing, or running the command): the server closed the pipe, or ended. Without a line, the
    output file `log` is still the server's waiting file (nothing ran): it goes, and its folder once empty."""
    line = sys.stdin.buffer.readline()
    if line:
        lines.append(line)
        arrived.set()
        while os.read(0, 4096):  # the server holds the other end until it kills this process or ends
            pass
        os._exit(ORPHANED)
    if log:
        try:
            os.unlink(log)
            os.rmdir(os.path.dirname(log))  # the last waiting child's file gone, the folder goes too
        except OSError:  # other children's files are still there
            pass
    os._exit(0)


def main() -> None:
    log = sys.argv[1] if len(sys.argv) > 1 else ""
    sys.path[0] = os.getcwd()  # as `python -m` sets it: the working directory, not this file's folder
    arrived, lines = threading.Event(), []
    threading.Thread(target=_listen, args=(arrived, lines, log), name="listen-to-server", daemon=True).start()
    preload()
    sys.stderr.write(f"{COMMAND}: {READY} in {time.process_time():.1f} s of CPU; waiting for its arguments\n")
    sys.stderr.flush()
    arrived.wait()
    sys.argv = [sys.argv[0], *arguments(lines[0].decode("utf-8"))]  # runpy sets sys.argv[0] to the module's file
    runpy.run_module(COMMAND, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
