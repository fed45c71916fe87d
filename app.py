"""Serve ALBERT Lab: `python app.py` (127.0.0.1:7860 unless GRADIO_SERVER_NAME / GRADIO_SERVER_PORT say otherwise).

This is also the Hugging Face Spaces entry point.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import os
import threading
from pathlib import Path

from app import bound_queue, build_app, launch_options, settings
from app.hosting import connections, log_lines, shutdown
from app.models import warm_up
from app.tabs.training.runner import TRAINER

logger = logging.getLogger("app")


def _steady_memory() -> None:
    """Keep the server's memory flat under load (glibc only; elsewhere a no-op).

    Each response builds large short-lived strings (attention views, plot JSON). glibc would
    raise its mmap threshold after the first ones are freed and then serve them from per-thread
    heaps, which fragment and never shrink; a fixed threshold returns them to the system, and two
    arenas stop every worker thread from growing a heap of its own.
    """
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        mallopt = libc.mallopt if libc is not None else None
    except (OSError, AttributeError):
        return
    if mallopt is not None:
        mallopt(-3, 128 * 1024)  # M_MMAP_THRESHOLD: blocks ≥ 128 KiB get their own mapping
        mallopt(-8, 2)  # M_ARENA_MAX


def _warm_then_freeze() -> None:
    """Load the shipped models (`warm_up`), then move every object alive by then out of the garbage collector's sight
    (`gc.freeze`): the app's ~370,000 long-lived objects (Gradio's components, the models, the strings) made each
    full collection stop the whole server for ~215 ms, and under a class's load one fell at random in a burst
    (150 busy answers each ~0.3 s later than the others). What a request allocates is still collected."""
    warm_up()
    gc.collect()
    gc.freeze()
    logger.info("%d objects of the started app are no longer scanned by the garbage collector", gc.get_freeze_count())


def main() -> None:
    logging.basicConfig(level=logging.INFO, format=log_lines.FORMAT)
    log_lines.escape_controls()  # what a visitor sent is shown in the log, never obeyed by a terminal
    shutdown.exit_on_sigterm()  # a Space's restart runs atexit too: no lesson folder or arm process is left
    # The page's script and card URLs are relative to the repository root (app.page.static_files).
    os.chdir(Path(__file__).resolve().parent)
    _steady_memory()
    demo = bound_queue(build_app())  # without torch: the page is served about 2.5 s sooner
    connections.install()  # a deadline for each request's head, a cap on open connections (app.hosting.connections)
    demo.launch(prevent_thread_lock=True, **launch_options())
    threading.Thread(target=_warm_then_freeze, name="warm-up", daemon=True).start()
    if settings.WARM_TRAINING.read() != "0":
        TRAINER.warm()  # Train it yourself: two arm processes start ahead (nice 19) and import the pretraining command
    else:
        logger.info("ALBERT_LAB_WARM_TRAINING=0: no arm process waits; a lesson starts its own (~5 s more to a curve)")
    demo.block_thread()


if __name__ == "__main__":
    main()
