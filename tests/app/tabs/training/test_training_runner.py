"""The lesson line with real child processes, on a 3-second lesson: rows arrive, a second request waits in line,
Stop ends the children, the hard wall-clock cap ends a run, and a page that stops asking loses its place."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from app.tabs.training import runner
from app.tabs.training.lessons import LESSONS, Lesson
from app.tabs.training.runner import LineFull, Trainer

pytestmark = pytest.mark.slow  # each test starts `python -m albert.pretrain` children

TINY = Lesson(
    "tiny",
    "order",
    "ordinals",
    (
        *("--model.embedding-size", "8", "--model.hidden-size", "16", "--model.num-hidden-layers", "1"),
        *("--model.num-attention-heads", "1", "--model.intermediate-size", "16"),
        *("--model.max-position-embeddings", "32", "--data.max-seq-length", "32", "--batch-size", "4"),
    ),
    LESSONS["order-ordinals"].arms,
    steps=100_000,
    eval_every=100_000,
    eval_examples=8,
    log_every=1,
)
"""A lesson of the smallest model: each arm writes a training row at every step until its time is up."""


def wait_for(condition: Callable[[], bool], seconds: float = 90.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.2)


@pytest.fixture
def trainer(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(runner.LESSONS, "tiny", TINY)
    made = Trainer(wall_seconds=120.0, minutes=0.5, heartbeat=60.0, max_waiting=1, tick=0.1, nice=0)
    yield made
    folders = [job.folder for job in made.jobs.values() if job.folder]
    made.close()
    assert folders and not any(folder.exists() for folder in folders) and not made.jobs


def test_a_lesson_streams_rows_queues_the_next_and_stops_on_request(trainer: Trainer) -> None:
    first = trainer.start("tiny")
    second = trainer.start("tiny")
    with pytest.raises(LineFull):
        trainer.start("tiny")
    assert trainer.poll(second).state == "waiting" and trainer.poll(second).position == 1

    def rows_arrived() -> bool:
        trainer.poll(second)  # its page is still there
        return all(sum(row["split"] == "train" for row in rows) >= 2 for rows in trainer.poll(first).rows.values())

    wait_for(rows_arrived)
    snapshot = trainer.poll(first)
    assert snapshot.state == "running" and set(snapshot.rows) == {"sop", "nsp"}
    for rows in snapshot.rows.values():
        train = [row for row in rows if row["split"] == "train"]
        assert len(train) >= 2 and all(row["mlm_loss"] > 0 and row["tokens_per_second"] > 0 for row in train)
    processes = list(trainer.jobs[first].processes.values())
    assert trainer.stop(first)
    assert all(process.returncode is not None for process in processes)  # killed, and reaped
    assert trainer.poll(first).state == "stopped" and trainer.poll(first).rows["sop"]
    assert trainer.poll(second).state == "running"  # the next in line starts at once

    trainer.wall_seconds = 1.0  # the hard cap ends it, whatever it is doing
    wait_for(lambda: trainer.poll(second).state != "running", 10.0)
    assert (trainer.poll(second).state, trainer.poll(second).reason) == ("finished", "wall")
    assert all(process.returncode is not None for process in trainer.jobs[second].processes.values())


def test_a_page_that_stops_asking_loses_its_place(trainer: Trainer) -> None:
    trainer.heartbeat = 0.5
    running = trainer.start("tiny")
    waiting = trainer.start("tiny")
    wait_for(lambda: trainer.jobs[waiting].state == "stopped", 10.0)
    assert trainer.jobs[waiting].reason == "closed"
    assert trainer.jobs[running].state == "stopped" and trainer.jobs[running].reason == "closed"
    assert trainer.active is None and trainer.supervisor is None or not trainer.supervisor.is_alive()


def test_a_session_holds_one_ticket_so_the_line_holds_different_people(trainer: Trainer) -> None:
    """Issue 53: one client's 20 starts held 1 running and 8 waiting, and a classmate was told to retry."""
    trainer.max_waiting = 2
    teacher = trainer.start("tiny", owner="teacher")
    pupil = [trainer.start("tiny", owner="pupil") for _ in range(10)]  # the line holds 2 waiting: never full here
    assert [trainer.poll(ticket).state for ticket in pupil[-5:]] == ["stopped"] * 4 + ["waiting"]
    assert {trainer.poll(ticket).reason for ticket in pupil[-5:-1]} == {"replaced"}
    classmate = trainer.start("tiny", owner="classmate")
    assert (trainer.poll(pupil[-1]).position, trainer.poll(classmate).position) == (1, 2)
    assert trainer.poll(teacher).state == "running"
    again = trainer.start("tiny", owner="teacher")  # the running one ends: a session trains one lesson at a time
    assert trainer.poll(teacher).state == "stopped" and trainer.poll(again).state == "waiting"
    assert trainer.poll(pupil[-1]).state == "running"
