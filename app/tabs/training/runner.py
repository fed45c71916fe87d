"""One lesson's training at a time, in child processes: a line of tickets, hard caps, Stop, and the page's heartbeat.

    start(lesson) → ticket          the ticket waits in line (at most `max_waiting`) or starts at once
    poll(ticket)  → Snapshot        where it stands: its place in line, or its arms' metrics rows so far
    stop(ticket)                    leaves the line, or kills the running arms

Each arm is `python -m albert.pretrain …` (`Lesson.argv`, the command the page prints) in a process of its own at
nice 19 with one thread: it computes on the cores the server leaves idle and never holds the server's interpreter
lock, as /measure_speed's child does (`app.hosting.child`). A supervisor thread kills a lesson's processes at the
hard wall-clock cap (`WALL_SECONDS` from their start), when its page stopped asking for ~`heartbeat` seconds (the
page closed), or on Stop; it drops a waiting ticket whose page went the same way. The arms' rows are read from their
metrics.jsonl as `fit` writes them, so what the page draws is exactly what the command line logs.
"""

from __future__ import annotations

import atexit
import functools
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from app.tabs.training.lessons import LESSONS, REPO_ROOT, TRAIN_MINUTES, WALL_SECONDS, Lesson

logger = logging.getLogger(__name__)
State = Literal["waiting", "running", "finished", "stopped", "failed", "unknown"]
HEARTBEAT_SECONDS = 15.0
"""A ticket whose page has not asked for ~this long (it polls every ~1.5 s) is cancelled: the page closed."""
MAX_WAITING = 8
"""Tickets waiting at once; one more is refused ("busy"): 8 lessons are ~8 minutes of waiting."""
KEPT = 16
"""Ended lessons kept (their rows, for a page's last polls and a late redraw); their folders are removed after."""
CHILD_NICE = 19


class LineFull(RuntimeError):
    """`MAX_WAITING` tickets already wait."""


@dataclass
class Job:
    """One ticket: a lesson waiting, running or ended."""

    ticket: str
    lesson: Lesson
    asked: float = field(default_factory=time.monotonic)
    """When its page last asked (start or poll)."""
    state: State = "waiting"
    started: float | None = None
    ended: float | None = None
    folder: Path | None = None
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)
    reason: str = ""
    """Why it ended: "", "wall" (hard cap), "stop", "closed" (no heartbeat), "failed"."""


@dataclass(frozen=True)
class Snapshot:
    """What a page sees of its ticket."""

    ticket: str
    lesson: str
    state: State
    position: int = 0
    """Its place in line (1: next), while waiting."""
    elapsed: float = 0.0
    """Seconds since its processes started (running or ended)."""
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Each arm's metrics rows so far (training and held-out rows, as metrics.jsonl holds them)."""
    reason: str = ""


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a metrics.jsonl being written: a line cut short by the writer is left for the next read."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return []
    rows = []
    for line in text.splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            break
    return rows


class Trainer:
    """The line and the running lesson (one per server: `TRAINER`)."""

    def __init__(
        self,
        wall_seconds: float = WALL_SECONDS,
        minutes: float = TRAIN_MINUTES,
        heartbeat: float = HEARTBEAT_SECONDS,
        max_waiting: int = MAX_WAITING,
        tick: float = 0.25,
        nice: int = CHILD_NICE,
    ) -> None:
        self.wall_seconds, self.minutes, self.heartbeat = wall_seconds, minutes, heartbeat
        self.max_waiting, self.tick, self.nice = max_waiting, tick, nice
        self.lock = threading.Lock()
        self.jobs: OrderedDict[str, Job] = OrderedDict()
        self.active: Job | None = None
        self.supervisor: threading.Thread | None = None
        atexit.register(self.close)  # no child outlives the server, no folder is left in the temporary directory

    # ----- what the endpoints call -------------------------------------------------------------
    def start(self, lesson_id: str) -> str:
        """A new ticket for `lesson_id`, in line or started; `LineFull` when the line is full."""
        lesson = LESSONS[lesson_id]
        with self.lock:
            if len(self._waiting()) >= self.max_waiting:
                raise LineFull(f"{self.max_waiting} lessons already wait")
            job = Job(uuid.uuid4().hex, lesson)
            self.jobs[job.ticket] = job
            self._advance()
            self._ensure_supervisor()
        logger.info("lesson %s: ticket %s (%s)", lesson_id, job.ticket[:8], job.state)
        return job.ticket

    def poll(self, ticket: str) -> Snapshot:
        """Where `ticket` stands (its page is still there: the heartbeat)."""
        with self.lock:
            job = self.jobs.get(ticket)
            if job is None:
                return Snapshot(ticket, "", "unknown")
            job.asked = time.monotonic()
            waiting = self._waiting()
            position = waiting.index(job) + 1 if job in waiting else 0
            folder, state, reason = job.folder, job.state, job.reason
            elapsed = ((job.ended or time.monotonic()) - job.started) if job.started else 0.0
        rows = {arm.name: read_rows(folder / arm.name / "metrics.jsonl") for arm in job.lesson.arms} if folder else {}
        return Snapshot(ticket, job.lesson.id, state, position, elapsed, rows, reason)

    def stop(self, ticket: str) -> bool:
        """Leave the line or end the run; False when `ticket` is unknown or already ended."""
        with self.lock:
            job = self.jobs.get(ticket)
            if job is None or job.state not in ("waiting", "running"):
                return False
            self._end(job, "stopped", "stop")
            self._advance()
        return True

    def close(self) -> None:
        """End every waiting and running lesson and remove every lesson's folder (at the server's exit)."""
        with self.lock:
            for job in list(self.jobs.values()):
                if job.state in ("waiting", "running"):
                    self._end(job, "stopped", "closed")
                if job.folder:
                    shutil.rmtree(job.folder, ignore_errors=True)
            self.jobs.clear()

    def waiting(self) -> int:
        with self.lock:
            return len(self._waiting())

    # ----- inside the lock ----------------------------------------------------------------------
    def _waiting(self) -> list[Job]:
        return [job for job in self.jobs.values() if job.state == "waiting"]

    def _advance(self) -> None:
        """Start the first waiting lesson when none runs; forget the oldest ended ones."""
        if self.active is None:
            waiting = self._waiting()
            if waiting:
                self._launch(waiting[0])
        ended = [job for job in self.jobs.values() if job.state not in ("waiting", "running")]
        for job in ended[: max(0, len(ended) - KEPT)]:
            del self.jobs[job.ticket]
            if job.folder:
                shutil.rmtree(job.folder, ignore_errors=True)

    def _launch(self, job: Job) -> None:
        job.folder = Path(tempfile.mkdtemp(prefix=f"albert-lesson-{job.lesson.id}-"))
        environment = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]),
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "TQDM_DISABLE": "1",
        }
        try:
            for arm in job.lesson.arms:
                log = (job.folder / f"{arm.name}.log").open("wb")
                job.processes[arm.name] = subprocess.Popen(  # noqa: S603 — our own interpreter, our own arguments
                    [
                        sys.executable,
                        "-m",
                        "albert.pretrain",
                        *job.lesson.argv(arm, str(job.folder / arm.name), self.minutes),
                    ],
                    cwd=REPO_ROOT,
                    env=environment,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    preexec_fn=functools.partial(os.nice, self.nice),  # noqa: PLW1509 — only os.nice
                    start_new_session=True,
                )
                log.close()
        except OSError as error:
            logger.warning("lesson %s could not start: %s", job.lesson.id, error)
            self._end(job, "failed", "failed")
            return
        job.state, job.started, self.active = "running", time.monotonic(), job

    def _end(self, job: Job, state: State, reason: str) -> None:
        for process in job.processes.values():
            if process.poll() is None:
                process.kill()
        for process in job.processes.values():
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                logger.warning("a lesson's process did not end within 5 s of being killed")
        job.state, job.reason, job.ended = state, reason, time.monotonic()
        if self.active is job:
            self.active = None
        logger.info("lesson %s (%s): %s%s", job.lesson.id, job.ticket[:8], state, f" ({reason})" if reason else "")

    def _check(self) -> None:
        """One supervisor round: caps, heartbeats, ended processes, the next in line."""
        now = time.monotonic()
        for job in self._waiting():
            if now - job.asked > self.heartbeat:
                self._end(job, "stopped", "closed")
        job = self.active
        if job is not None:
            codes = [process.poll() for process in job.processes.values()]
            if any(code not in (None, 0) for code in codes):
                for name, process in job.processes.items():
                    if process.returncode not in (None, 0):
                        logger.warning("lesson %s arm %s exited with %s", job.lesson.id, name, process.returncode)
                self._end(job, "failed", "failed")
            elif all(code == 0 for code in codes):
                self._end(job, "finished", "")
            elif job.started is not None and now - job.started > self.wall_seconds:
                self._end(job, "finished", "wall")
            elif now - job.asked > self.heartbeat:
                self._end(job, "stopped", "closed")
        self._advance()

    def _ensure_supervisor(self) -> None:
        if self.supervisor is None or not self.supervisor.is_alive():
            self.supervisor = threading.Thread(target=self._supervise, name="lesson-supervisor", daemon=True)
            self.supervisor.start()

    def _supervise(self) -> None:
        while True:
            time.sleep(self.tick)
            with self.lock:
                self._check()
                if self.active is None and not self._waiting():
                    self.supervisor = None
                    return


TRAINER = Trainer()
"""The server's one line of lessons."""
