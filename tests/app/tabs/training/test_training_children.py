"""The arm processes started ahead (`app/tabs/training/child.py`, `Trainer.warm`): a warm child runs the printed
`python -m albert.pretrain` command's code with the same arguments and writes the same metrics rows; the lesson takes
the warm ones, more are started when no lesson runs; Stop and `close` end them; and none outlives its server, even
one killed with SIGKILL (no `atexit`)."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from app.tabs.training import child, runner
from app.tabs.training.lessons import REPO_ROOT
from app.tabs.training.runner import WARM, Trainer, read_rows
from tests.app.support import arm_processes
from tests.app.tabs.training.test_training_runner import TINY

pytestmark = pytest.mark.slow  # each test starts arm processes that import torch

SIX_STEPS = dataclasses.replace(TINY, id="six", steps=6, eval_every=3, log_every=2)
"""The tiny lesson, ended by its schedule (6 steps), not by the clock: its rows depend on nothing but its arguments."""
TIMED = ("elapsed_seconds", "tokens_per_second", "data_wait")
"""The only columns of a row that depend on the machine's speed."""


def wait_for(condition: Callable[[], bool], seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.1)


def untimed(rows: list[dict]) -> list[dict]:
    return [{key: value for key, value in row.items() if key not in TIMED} for row in rows]


@pytest.fixture
def trainer(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(runner.LESSONS, "tiny", TINY)
    monkeypatch.setitem(runner.LESSONS, "six", SIX_STEPS)
    made = Trainer(wall_seconds=120.0, minutes=10.0, heartbeat=120.0, tick=0.1, nice=0)
    yield made
    made.close()
    assert not arm_processes(os.getpid())  # every arm process ended and reaped: none left, not even a zombie


def test_a_warm_child_runs_the_command_line_and_writes_the_same_rows(trainer: Trainer, tmp_path: Path) -> None:
    trainer.warm()
    warm = [c.process.pid for c in trainer.warm_children]
    assert len(warm) == WARM and set(arm_processes(os.getpid())) == set(warm)
    ticket = trainer.start("six")
    job = trainer.jobs[ticket]
    assert sorted(process.pid for process in job.processes.values()) == sorted(warm)  # the lesson took them
    assert not trainer.warm_children  # none is started while a lesson runs
    wait_for(lambda: trainer.poll(ticket).state != "running")
    snapshot = trainer.poll(ticket)
    assert (snapshot.state, snapshot.reason) == ("finished", "")
    for arm in SIX_STEPS.arms:
        log = (job.folder / f"{arm.name}.log").read_text()
        assert log.startswith(f"albert.pretrain: {child.READY} in ")  # the arm's log: it waited, imported, for its line
        assert "done: 6 steps" in log  # and then the command's own report
        assert "Warning" not in log and "Traceback" not in log  # runpy ran the command's module afresh, as -m does
        cold = tmp_path / arm.name
        subprocess.run(  # noqa: S603 — the printed command, at a terminal
            [sys.executable, "-m", "albert.pretrain", *SIX_STEPS.argv(arm, str(cold), trainer.minutes)],
            cwd=REPO_ROOT,
            env=runner.child_environment(),
            check=True,
            capture_output=True,
        )
        rows = read_rows(cold / "metrics.jsonl")
        assert [row["step"] for row in rows] == [2, 3, 4, 6, 6]  # training rows every 2 steps, held-out every 3
        assert untimed(snapshot.rows[arm.name]) == untimed(rows)  # the same losses, accuracies and order scores
        warm_summary = json.loads((job.folder / arm.name / "summary.json").read_text())
        cold_summary = json.loads((cold / "summary.json").read_text())
        for summary in (warm_summary, cold_summary):
            summary["config"].pop("output_dir")
            summary.pop("wall_seconds")
            summary["held_out"].pop("elapsed_seconds")
        assert warm_summary == cold_summary  # the same arguments, parsed into the same configuration
    wait_for(lambda: len(trainer.warm_children) == WARM, 10.0)  # the lesson ended: two more wait
    assert not set(c.process.pid for c in trainer.warm_children) & set(warm)


def test_stop_and_close_end_the_arms_and_the_warm_children(trainer: Trainer) -> None:
    trainer.warm()
    ticket = trainer.start("tiny")
    arms = list(trainer.jobs[ticket].processes.values())
    wait_for(lambda: all(trainer.poll(ticket).rows.values()) and trainer.poll(ticket).rows != {})
    assert set(arm_processes(os.getpid())) == {process.pid for process in arms}
    assert trainer.stop(ticket)
    assert all(process.returncode is not None for process in arms)  # killed and reaped
    assert trainer.poll(ticket).state == "stopped"
    again = {c.process.pid for c in trainer.warm_children}
    assert len(again) == WARM and set(arm_processes(os.getpid())) == again  # started again once the lesson ended
    trainer.close()
    assert not trainer.warm_children and not arm_processes(os.getpid())


SERVER = """
import json, sys, time
from app.tabs.training import runner
from tests.app.support import arm_processes
from tests.app.tabs.training.test_training_runner import TINY
runner.LESSONS["tiny"] = TINY
running, idle = runner.Trainer(nice=0, heartbeat=600.0), runner.Trainer(nice=0)
idle.warm()
ticket = running.start("tiny")
while not all(running.poll(ticket).rows.values()):
    time.sleep(0.1)
pids = [p.pid for p in running.jobs[ticket].processes.values()] + [c.process.pid for c in idle.warm_children]
folders = [str(running.jobs[ticket].folder), running.children_folder, str(idle.children_folder)]
print(json.dumps([pids, *folders]), flush=True)
time.sleep(600)
"""
"""A server stand-in: one lesson running (its arms have logged), two warm children idle; it prints their process ids,
the running lesson's folder and the folders of the waiting children's files, then waits to be killed."""


def stand_in_server(before: str = "") -> subprocess.Popen:
    """`SERVER` in a process of its own, after the lines `before`; its stdout is a pipe (the line it prints)."""
    return subprocess.Popen(  # noqa: S603
        [sys.executable, "-c", before + textwrap.dedent(SERVER)],
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )


def test_no_arm_process_outlives_a_server_killed_without_atexit() -> None:
    server = stand_in_server()
    try:
        pids, _, taken, waiting = json.loads(server.stdout.readline())
        assert len(pids) == 4 and set(arm_processes(server.pid)) == set(pids)
        assert taken is None and Path(waiting).is_dir()  # the lesson took its arms' files: their folder is gone
    finally:
        server.send_signal(signal.SIGKILL)  # no atexit, no Trainer.close
        server.wait()

    def all_ended() -> bool:
        alive = []
        for pid in pids:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":  # a zombie has ended; only its parent (now init) has yet to reap it
                alive.append(pid)
        return not alive

    wait_for(all_ended, 120.0)  # the idle ones end at the end of their input, importing or not
    assert not Path(waiting).exists()  # they took their files and their folder with them


def test_a_server_ended_by_sigterm_removes_its_lesson_folders_and_children() -> None:
    """Issue 53: a Space restarting sends SIGTERM, which ended Python at once, without atexit: the running lesson's
    folder stayed. With `app.hosting.shutdown.exit_on_sigterm` (app.py), SIGTERM runs atexit as Ctrl+C does."""
    server = stand_in_server("from app.hosting import shutdown\nshutdown.exit_on_sigterm()\n")
    try:
        pids, lesson, _, waiting = json.loads(server.stdout.readline())
        assert Path(lesson).is_dir() and Path(waiting).is_dir()
    finally:
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=60)
    assert code == 0  # a normal exit: atexit ran
    assert not Path(lesson).exists() and not Path(waiting).exists()
    assert not arm_processes(server.pid)
    for pid in pids:  # ended and reaped by the server itself (Trainer.close), not left to notice their input
        assert not Path(f"/proc/{pid}").exists() or Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"


@pytest.mark.parametrize("line", ['{"argv": []}', '["--corpus", 7]', '"--corpus"'])
def test_a_child_refuses_anything_but_a_list_of_strings(line: str) -> None:
    with pytest.raises(ValueError, match="JSON list of strings"):
        child.arguments(line)
    assert child.arguments('["--corpus", "a.txt"]') == ["--corpus", "a.txt"]
