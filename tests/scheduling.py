"""How the suite spreads over pytest-xdist's workers: long files first, and no worker holding a file back.

Most of the suite's wall time is a few files that start a served app and a Chromium (30–100 s each); the rest are
many quick files. Run in xdist's own order (files with the most tests first), the long files, which hold one or two
tests each, came last, and a worker took up to three of them at once while the others ran dry: a fresh-clone run
spent its last ~75 s on one worker. Here the longest kinds of file go first (`longest_first`), and a worker is given
its next file only when it starts the last test of the one it runs (`OneFileAhead`), so the quick files fill the
workers' ends.
"""

from __future__ import annotations

from typing import Any

import pytest
from xdist.scheduler import LoadFileScheduling

SPLITTING = ("load", "worksteal")
"""xdist's modes that hand out single tests (`load` is what `-n N` alone means)."""


def whole_files(option: Any) -> None:
    """Turn a test-by-test `--dist` into `loadfile` (pytest's parsed options, changed in place). A browser module's
    tests share one page and run in order (one leaves a tab open for the next), so spread over workers by
    `pytest -n 3` alone they failed; `scripts/lab.sh test` asks for `loadfile` itself."""
    if getattr(option, "dist", "no") in SPLITTING:
        option.dist = "loadfile"


def file_kind(item: pytest.Item) -> int:
    """0 for a browser test, 1 for another slow one (a server, an interpreter, a training run), 2 for a quick one."""
    if item.get_closest_marker("browser") is not None:
        return 0
    return 1 if item.get_closest_marker("slow") is not None else 2


def longest_first(items: list[pytest.Item]) -> None:
    """Sort `items` in place: files with browser tests, then files with other slow tests, then the rest; a file's
    tests stay together and in their order (the sort is stable), and files of a kind keep their collection order."""
    rank: dict[object, int] = {}
    for item in items:
        rank[item.path] = min(rank.get(item.path, 2), file_kind(item))
    items.sort(key=lambda item: rank[item.path])


class OneFileAhead(LoadFileScheduling):
    """`--dist loadfile` in collection order (not xdist's most-tests-first), giving a worker its next file only when
    the one it runs is down to its last test: a worker must know its next test before it runs the last one (to tear
    down module fixtures), so one file ahead is the least it can hold, where xdist gives more until it holds three
    tests, which for one-test browser files meant three long files behind one worker."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        self.config.option.loadscopereorder = False

    def _reschedule(self, node: Any) -> None:
        if node.shutting_down:
            return
        if not self.workqueue:
            node.shutdown()
            return
        if self._pending_of(self.assigned_work[node]) > 1:
            return
        self._assign_work_unit(node)
