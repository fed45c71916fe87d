"""A server ended by SIGTERM cleans up as one ended by Ctrl+C (issue 53, item 4).

A Space restarting, a container stopping and `kill` send SIGTERM. Python's default for it ends the process at once,
without `atexit`: the running lesson's folder stayed in the temporary directory and its arm processes were left to
notice their closed input. `exit_on_sigterm` makes SIGTERM a normal exit (status 0), so every `atexit` handler runs:
the trainer ends its lessons and children and removes their folders (`app.tabs.training.runner.Trainer.close`).
"""

from __future__ import annotations

import logging
import signal
import sys
from types import FrameType

logger = logging.getLogger(__name__)


def _exit(signum: int, frame: FrameType | None) -> None:
    logger.info("SIGTERM: ending the server (lessons, their processes and folders go with it)")
    sys.exit(0)


def exit_on_sigterm() -> None:
    """From now on, SIGTERM exits this process normally, running its `atexit` handlers. Call from the main thread."""
    signal.signal(signal.SIGTERM, _exit)
