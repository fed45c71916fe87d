"""One lesson's training at a time, in child processes: a line of tickets, hard caps, Stop, and the page's heartbeat.

    warm()        → None            keep a lesson's worth of arm processes started ahead (the server calls it at start)
    start(lesson) → ticket          the ticket waits in line (at most `max_waiting`) or starts at once
    poll(ticket)  → Snapshot        where it stands: its place in line, or its arms' metrics rows so far
    stop(ticket)                    leaves the line, or kills the running arms
    close()                         ends every lesson and every arm process (at the server's exit)

Each arm is `python -m albert.pretrain …` (`Lesson.argv`, the command the page prints) in a process of its own at
nice 19 with one thread: it computes on the cores the server leaves idle and never holds the server's interpreter
lock, as /measure_speed's child does (`app.child`). A supervisor thread kills a lesson's processes at the
hard wall-clock cap (`WALL_SECONDS` from their start), when its page stopped asking for ~`heartbeat` seconds (the
page closed), or on Stop; it drops a waiting ticket whose page went the same way. The arms' rows are read from their
metrics.jsonl as `fit` writes them, so what the page draws is exactly what the command line logs.

Warm arms (issue 44: two live curves within 5 s of Train). Measured on this machine (an arm of the sharing lesson at
nice 0, load ~2.5; `app/tabs/training/child.py`), an arm started cold spent ~5.3 s of CPU before its first logged row:
1.7 s starting Python and importing torch and the command, 1.25 s importing transformers' tokenizer classes (when it
loads its tokenizer), 0.5 s tokenizing the two texts, 1.3 s importing torch's compiler frontend (torch.optim does
when the command builds its AdamW), 0.45 s on its first 5 steps; at nice 19 beside a busy server each second
stretches. The imports (~4.2 s) do not depend on the lesson, so they are done ahead: each arm process is `child.py`,
which imports what the command imports, then waits on stdin for the command's arguments (a JSON list) and runs
`albert.pretrain` as `__main__` with them, as `python -m` does (same `main`, same arguments; the suite compares the
rows of both). A warm arm logs its first row after ~1.3 s of CPU. `warm()` starts two at server start and, after each
lesson, two more once no lesson runs (warming never slows a running lesson); a lesson takes them whatever their state
(one still importing is ahead of a new one) and starts new ones only when none wait (lessons back to back). They are
ended as the cold ones were (Stop, the cap, the heartbeat, `close` at exit, which also ends the idle ones), and each
ends by itself when the server ends: it watches its stdin, whose other end only the server holds. An idle one holds
~330 MB. The page then asks every 0.5 s until each arm has logged two rows (`app.tabs.training.tab`).
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
CHILD = Path(__file__).with_name("child.py")
"""An arm's process: imports the command, then runs it with the arguments it reads from stdin."""
WARM = 2
"""Arm processes kept started ahead: one lesson's two arms."""
SPARES_AFTER = 10.0
"""Seconds into a running lesson after which the next lesson's two arm processes are started ahead too, so that a
Train right after Stop (or the next in line) starts on warm processes, as a first Train does: a restart drew its
first lines 7–15 s after the click when its processes only started at the Stop (issue 54). By then the running arms
have imported and trained for seconds; the spares' imports (~2.5 s of CPU each, at nice 19) cost them a few steps."""


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
    """Each arm's process (`child.py`; its stdin stays open until it is reaped: closing it ends the process)."""
    reason: str = ""
    """Why it ended: "", "wall" (hard cap), "stop", "closed" (no heartbeat), "failed", "replaced" (its session took
    another ticket)."""
    owner: str | None = None
    """The session that took it (a page, or an API client that keeps its session hash); None when unknown."""


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
    wait: float = 0.0
    """While waiting: the most seconds until it starts (what the running lesson may still take, then a whole
    lesson for each one ahead of it)."""


@dataclass
class Child:
    """An arm process started ahead, waiting for its arguments, and the file its output goes to."""

    process: subprocess.Popen
    log: Path


def child_environment() -> dict[str, str]:
    """The arms' environment: the repository importable, one thread, no progress bars in their logs."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]),
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "TQDM_DISABLE": "1",
    }


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
        spares_after: float = SPARES_AFTER,
    ) -> None:
        self.wall_seconds, self.minutes, self.heartbeat = wall_seconds, minutes, heartbeat
        self.max_waiting, self.tick, self.nice, self.spares_after = max_waiting, tick, nice, spares_after
        self.lock = threading.Lock()
        self.jobs: OrderedDict[str, Job] = OrderedDict()
        self.active: Job | None = None
        self.supervisor: threading.Thread | None = None
        self.keep_warm = False
        self.warm_children: list[Child] = []
        self.children_folder: Path | None = None
        """Where the warm children's output goes until a lesson takes them (its file moves to the lesson's folder)."""
        atexit.register(self.close)  # no child outlives the server, no folder is left in the temporary directory

    # ----- what the server and the endpoints call --------------------------------------------------
    def warm(self) -> None:
        """From now until `close`, keep `WARM` arm processes started ahead whenever no lesson runs (now included), and
        from `spares_after` seconds into a running one."""
        with self.lock:
            self.keep_warm = True
            self._advance()

    def start(self, lesson_id: str, owner: str | None = None) -> str:
        """A new ticket for `lesson_id`, in line or started; `LineFull` when the line is full. A session holds one
        ticket at most: `owner`'s earlier ticket, waiting or running, ends ("replaced") first, so that the line holds
        different people (one client's 20 starts held 1 running and 8 waiting, and the class was told to retry)."""
        lesson = LESSONS[lesson_id]
        with self.lock:
            if owner is not None:
                for earlier in [job for job in self.jobs.values() if job.owner == owner]:
                    if earlier.state in ("waiting", "running"):
                        self._end(earlier, "stopped", "replaced")
                        self._advance()  # the next in line starts: its place is free for this ticket
            if len(self._waiting()) >= self.max_waiting:
                raise LineFull(f"{self.max_waiting} lessons already wait")
            job = Job(uuid.uuid4().hex, lesson, owner=owner)
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
            wait = self._wait(position) if position else 0.0
        rows = {arm.name: read_rows(folder / arm.name / "metrics.jsonl") for arm in job.lesson.arms} if folder else {}
        return Snapshot(ticket, job.lesson.id, state, position, elapsed, rows, reason, wait)

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
        """End every waiting and running lesson and every warm arm process, and remove every lesson's folder (at the
        server's exit)."""
        with self.lock:
            self.keep_warm = False
            for job in list(self.jobs.values()):
                if job.state in ("waiting", "running"):
                    self._end(job, "stopped", "closed")
                if job.folder:
                    shutil.rmtree(job.folder, ignore_errors=True)
            self.jobs.clear()
            _reap([child.process for child in self.warm_children])
            self.warm_children.clear()
            if self.children_folder:
                shutil.rmtree(self.children_folder, ignore_errors=True)
                self.children_folder = None

    def waiting(self) -> int:
        with self.lock:
            return len(self._waiting())

    # ----- inside the lock ----------------------------------------------------------------------
    def _wait(self, position: int) -> float:
        """The most seconds until the `position`-th in line starts: the rest of the running lesson's cap, then the
        whole cap for each lesson ahead."""
        running = self.active
        left = max(self.wall_seconds - (time.monotonic() - running.started), 0.0) if running and running.started else 0
        return left + (position - 1) * self.wall_seconds

    def _waiting(self) -> list[Job]:
        return [job for job in self.jobs.values() if job.state == "waiting"]

    def _advance(self) -> None:
        """Start the first waiting lesson when none runs, or else warm arm processes; forget the oldest ended ones."""
        if self.active is None:
            waiting = self._waiting()
            if waiting:
                self._launch(waiting[0])
            elif self.keep_warm:
                self._refill()
        elif self.keep_warm and time.monotonic() - (self.active.started or time.monotonic()) >= self.spares_after:
            self._refill()  # spares for a restart after Stop, or the next in line
        ended = [job for job in self.jobs.values() if job.state not in ("waiting", "running")]
        for job in ended[: max(0, len(ended) - KEPT)]:
            del self.jobs[job.ticket]
            if job.folder:
                shutil.rmtree(job.folder, ignore_errors=True)

    def _spawn(self) -> Child:
        """A new arm process (`child.py` at `nice`), importing the command, then waiting for its arguments."""
        if self.children_folder is None:
            self.children_folder = Path(tempfile.mkdtemp(prefix="albert-lesson-children-"))
        path = self.children_folder / f"{uuid.uuid4().hex}.log"
        with path.open("wb") as log:
            process = subprocess.Popen(  # noqa: S603 — our own interpreter, our own script
                [sys.executable, str(CHILD), str(path)],
                cwd=REPO_ROOT,
                env=child_environment(),
                stdin=subprocess.PIPE,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=functools.partial(os.nice, self.nice),  # noqa: PLW1509 — only os.nice
                start_new_session=True,
            )
        return Child(process, path)

    def _refill(self) -> None:
        """Start warm arm processes until `WARM` wait (one that ended by itself is replaced)."""
        self.warm_children = [child for child in self.warm_children if _alive(child)]
        try:
            while len(self.warm_children) < WARM:
                self.warm_children.append(self._spawn())
                logger.info("lesson arm process %d started ahead", self.warm_children[-1].process.pid)
        except OSError as error:
            logger.warning("no arm process could be started ahead: %s", error)

    def _take(self) -> Child:
        """A warm arm process (whatever its state: one still importing is ahead of a new one), or a new one."""
        while self.warm_children:
            child = self.warm_children.pop(0)
            if _alive(child):
                return child
        return self._spawn()

    def _launch(self, job: Job) -> None:
        job.folder = Path(tempfile.mkdtemp(prefix=f"albert-lesson-{job.lesson.id}-"))
        try:
            for arm in job.lesson.arms:
                child = self._take()
                job.processes[arm.name] = child.process
                os.replace(child.log, job.folder / f"{arm.name}.log")  # its open file moves with it
                argv = job.lesson.argv(arm, str(job.folder / arm.name), self.minutes)
                child.process.stdin.write(json.dumps(argv).encode("utf-8") + b"\n")
                child.process.stdin.flush()
        except OSError as error:  # no process could start, or one died before it read its arguments
            logger.warning("lesson %s could not start: %s", job.lesson.id, error)
            self._end(job, "failed", "failed")
            return
        finally:
            self._drop_children_folder()
        job.state, job.started, self.active = "running", time.monotonic(), job

    def _drop_children_folder(self) -> None:
        """Remove the waiting children's folder once none waits (a lesson took their files): a server that ends
        without `close` (SIGTERM, SIGKILL) leaves no empty folder behind."""
        if self.children_folder is not None and not self.warm_children:
            try:
                self.children_folder.rmdir()
            except OSError:  # a file of a child that ended on its own is still there: close removes it
                return
            self.children_folder = None

    def _end(self, job: Job, state: State, reason: str) -> None:
        _reap(list(job.processes.values()))
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


def _alive(child: Child) -> bool:
    """Whether a waiting arm process still waits; one that ended by itself is reaped, its output left for a reader."""
    if child.process.poll() is None:
        return True
    code, log = child.process.returncode, child.log
    logger.warning("an arm process started ahead ended by itself (exit %s); its output: %s", code, log)
    _reap([child.process])
    return False


def _reap(processes: list[subprocess.Popen]) -> None:
    """Kill `processes` (those still running), wait for them, and close the server's end of their stdin."""
    for process in processes:
        if process.poll() is None:
            process.kill()
    for process in processes:
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            logger.warning("a lesson's process did not end within 5 s of being killed")
        if process.stdin:
            try:
                process.stdin.close()
            except OSError:  # a write that had failed on a dead process leaves a broken pipe to close
                pass


TRAINER = Trainer()
"""The server's one line of lessons."""
