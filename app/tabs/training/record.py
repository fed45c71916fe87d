"""Record a lesson's run for the page to show while the line is busy: the same `Trainer` and command lines as Train.

    python -m app.tabs.training.record --lesson sharing            # one lesson, ~1 minute
    python -m app.tabs.training.record --lesson all --nice 0       # every lesson, at normal priority

The arms' metrics rows go to assets/training/recorded/<lesson>/<arm>.jsonl (`lessons.recorded_path`); the verdict the
page will print is logged. `--nice 0` records on a machine whose other work would starve a nice-19 child.
"""

from __future__ import annotations

import argparse
import json
import logging
import time

from app.tabs.training import views
from app.tabs.training.lessons import LESSONS, recorded_path
from app.tabs.training.runner import Trainer

logger = logging.getLogger("app.tabs.training.record")


def record(lesson_id: str, nice: int) -> str:
    """Train `lesson_id` once through a `Trainer`, write its arms' rows, return its verdict (English)."""
    trainer = Trainer(nice=nice)
    ticket = trainer.start(lesson_id)
    snapshot = trainer.poll(ticket)
    while snapshot.state in ("waiting", "running"):
        time.sleep(1.0)
        snapshot = trainer.poll(ticket)
    if snapshot.state != "finished":
        raise RuntimeError(f"lesson {lesson_id} ended {snapshot.state}")
    lesson = LESSONS[lesson_id]
    for arm in lesson.arms:
        path = recorded_path(lesson, arm)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(row) + "\n" for row in snapshot.rows[arm.name]), encoding="utf-8")
    answer = views.render(lesson, snapshot, "en", "", False)
    logger.info("%s after %.0f s:\n%s\n%s", lesson_id, snapshot.elapsed, answer.table, answer.verdict)
    return answer.verdict


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lesson", choices=[*LESSONS, "all"], default="all")
    parser.add_argument("--nice", type=int, default=19, help="the children's niceness (the page's is 19)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for lesson_id in LESSONS if args.lesson == "all" else [args.lesson]:
        record(lesson_id, args.nice)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
