"""The suite's own spreading over pytest-xdist workers (tests/scheduling.py): long kinds of file first, and a worker
given its next file only when it reaches the last test of the one it runs."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.scheduling import OneFileAhead, longest_first, whole_files


class Item:
    """What `longest_first` reads of a pytest item: its file and its markers."""

    def __init__(self, path: str, *markers: str) -> None:
        self.path = Path(path)
        self.markers = markers

    def get_closest_marker(self, name: str) -> object | None:
        return name if name in self.markers else None


class Worker:
    """What the scheduler sends to a pytest-xdist worker: the test indices to run, and the order to stop."""

    def __init__(self) -> None:
        self.sent: list[list[int]] = []
        self.shutting_down = False
        self.gateway = SimpleNamespace(id=f"gw{id(self)}")

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.append(indices)

    def shutdown(self) -> None:
        self.shutting_down = True


def test_browser_files_then_slow_files_then_the_rest_each_file_whole_and_in_order() -> None:
    items = [
        Item("quick.py"),
        Item("server.py"),
        Item("server.py", "slow"),
        Item("page.py"),
        Item("page.py", "browser", "slow"),
        Item("quick.py"),
        Item("other.py"),
    ]
    order = [(str(item.path), item.markers) for item in items]
    longest_first(items)
    assert [(str(item.path), item.markers) for item in items] == [
        order[3],
        order[4],
        order[1],
        order[2],
        order[0],
        order[5],
        order[6],
    ]


def scheduler(collection: list[str], workers: list[Worker]) -> OneFileAhead:
    config = SimpleNamespace(getvalue=lambda name: [f"{len(workers)}*popen"], option=SimpleNamespace())
    config.option.loadscopereorder = True  # xdist's default, most tests first: the scheduler turns it off
    schedule = OneFileAhead(config)
    for worker in workers:
        schedule.add_node(worker)
        schedule.add_node_collection(worker, collection)
    return schedule


def test_files_go_out_in_collection_order_one_file_ahead_of_each_worker() -> None:
    collection = ["a.py::t", "b.py::t", "c.py::t", "d.py::t", "e.py::t1", "e.py::t2", "e.py::t3", "e.py::t4"]
    first, second = Worker(), Worker()
    schedule = scheduler(collection, [first, second])
    schedule.schedule()
    # each worker runs one one-test file and holds the next (it must know its next test to run its last one); xdist's
    # own rule (more until three tests wait) would have given each a third file, and e.py (most tests) first
    assert first.sent == [[0], [2]]
    assert second.sent == [[1], [3]]
    assert list(schedule.workqueue) == ["e.py"]
    schedule.mark_test_complete(second, 1)  # b.py done: d.py is now its last test, so it gets e.py
    assert second.sent[-1] == [4, 5, 6, 7]
    schedule.mark_test_complete(first, 0)
    assert first.shutting_down  # nothing left to hand out: it stops after c.py


@pytest.mark.parametrize("dist", ["loadfile", "load", "no"])
def test_only_loadfile_runs_get_this_scheduler(dist: str) -> None:
    from tests.conftest import pytest_xdist_make_scheduler

    config = SimpleNamespace(getoption=lambda name, default=None: dist, getvalue=lambda name: ["2*popen"])
    config.option = SimpleNamespace(loadscopereorder=True)
    made = pytest_xdist_make_scheduler(config, None)
    assert isinstance(made, OneFileAhead) == (dist == "loadfile")


@pytest.mark.parametrize(
    ("asked", "runs"),
    [
        ("load", "loadfile"),
        ("worksteal", "loadfile"),
        ("loadfile", "loadfile"),
        ("loadscope", "loadscope"),
        ("no", "no"),
    ],
)
def test_a_run_that_would_split_files_runs_whole_files(asked: str, runs: str) -> None:
    """`pytest -n 3` alone means `--dist load`, one test at a time: a browser module's tests, which share one page in
    order, were spread over workers and failed (test_layout_browser.py's language switch found another test's tab)."""
    option = SimpleNamespace(dist=asked)
    whole_files(option)
    assert option.dist == runs
