"""Issue 44's load check: a lesson of *Train it yourself* training (its page polling, as a browser does) while 32
users send /fill_mask; passes when the /fill_mask p95 during the training stays within the hosting target.

    python benchmarks/training_vs_fill.py                  # shipped models, python app.py on a free port
    python benchmarks/training_vs_fill.py --users 32 --limit 1.0 --lesson sharing

Each user sends one /fill_mask after another (a `--gap` apart) for as long as the lesson's processes run; only
requests sent while the lesson's state is "running" count. `--baseline` sends the same users with no training, for
comparison. Exit code 1 when the check fails.

Measured on the 2-core development machine, shipped model albert-lab-e128-continued, 32 users, the sharing lesson:
- near idle (load 1-3): 2,837 requests during the training, p50 59 ms, p95 261 ms, max 514 ms (PASS at 1 s), its
  nice-19 arms at step 197 when it ended; the baseline right after, no training: 3,015 requests, p50 113 ms, p95
  251 ms, max 1,293 ms.
Earlier, while four other engineers' jobs ran (load average 7-10: these say more about that load than about the
training, whose nice-19 children got almost no CPU there):
- training, load 7.7: 1,866 requests, p50 482 ms, p95 892 ms, max 1,806 ms (PASS at 1 s);
- training, load 10.4: 1,214 requests, p50 1,024 ms, p95 2,001 ms (FAIL), the arms still at step 0 after 60 s;
- baseline, no training, load 10.1 right after: 923 requests, p50 1,489 ms, p95 3,332 ms (FAIL).
Run it on an idle machine (or a Space) for the figure the hosting targets mean.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import secrets
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.app_server import AppServer, choose_models, percentile  # noqa: E402

logger = logging.getLogger("benchmarks.training_vs_fill")
FILL = ["The old sailor walked along the [MASK] near the village.", 5, "", "en"]


def call(http, url: str, name: str, data: list, session: str) -> str:
    """One queued call through Gradio's HTTP API; its event stream's text ("" when refused)."""
    posted = http.post(f"{url}/gradio_api/call/{name}", json={"data": data, "session_hash": session})
    if posted.status_code != 200:
        return ""
    return http.get(f"{url}/gradio_api/call/{name}/{posted.json()['event_id']}").text


class Phase:
    """The training page (or the baseline's clock) and the users, sharing what they saw."""

    def __init__(self, url: str, args: argparse.Namespace) -> None:
        self.url, self.args = url, args
        self.training, self.ended, self.lock = threading.Event(), threading.Event(), threading.Lock()
        self.waits: list[float] = []
        self.seen, self.steps = False, 0

    def trainer_page(self) -> None:
        """Start the lesson and poll it as the page does, every 1.5 s, until it ends (the baseline: a clock)."""
        import httpx

        if self.args.baseline:
            self.training.set()
            time.sleep(self.args.seconds)
        else:
            session, began = secrets.token_hex(8), time.perf_counter()
            with httpx.Client(timeout=120) as http:
                ticket = _ticket_from(call(http, self.url, "train_start", [self.args.lesson, "", "en"], session))
                while ticket and time.perf_counter() - began < 180:
                    text = call(http, self.url, "train_poll", [ticket, self.args.lesson, "en"], session)
                    running = '"state": "running"' in text
                    self.steps = max([self.steps, *(int(n) for n in re.findall(r'"step": (\d+)', text))])
                    (self.training.set if running else self.training.clear)()
                    if running:
                        self.seen = True
                    elif self.seen:
                        break
                    time.sleep(1.5)
        self.training.clear()
        self.ended.set()

    def user(self) -> None:
        """One user's /fill_mask after another; a request counts when the training ran all along it."""
        import httpx

        session = secrets.token_hex(8)
        with httpx.Client(timeout=60) as http:
            while not self.ended.is_set():
                during = self.training.is_set()
                sent = time.perf_counter()
                answered = "event: complete" in call(http, self.url, "fill_mask", FILL, session)
                seconds = time.perf_counter() - sent
                if during and self.training.is_set():
                    with self.lock:
                        self.waits.append(seconds if answered else float("inf"))
                time.sleep(self.args.gap)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=32)
    parser.add_argument("--limit", type=float, default=1.0, help="p95 seconds of /fill_mask during the training")
    parser.add_argument("--gap", type=float, default=0.5, help="seconds between one user's requests")
    parser.add_argument("--lesson", default="sharing")
    parser.add_argument("--baseline", action="store_true", help="no training: the same users for --seconds")
    parser.add_argument("--seconds", type=float, default=60.0, help="the baseline's length")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    import httpx

    models = choose_models()
    with AppServer(models) as server:
        phase = Phase(server.url.rstrip("/"), args)
        with httpx.Client(timeout=60) as http:  # warm: the model loaded, the first request's costs paid
            call(http, phase.url, "fill_mask", FILL, "warm")
        threads = [threading.Thread(target=phase.trainer_page)]
        threads += [threading.Thread(target=phase.user) for _ in range(args.users)]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - start
    ms = [w * 1000 for w in phase.waits]
    p95 = percentile(ms, 95) if ms else float("inf")
    ok = bool(ms) and p95 <= args.limit * 1000 and (args.baseline or phase.seen)
    what = "no training (baseline)" if args.baseline else f"the {args.lesson} lesson training"
    logger.info("ALBERT Lab: %s while %d users send /fill_mask, %.0f s in all", what, args.users, wall)
    logger.info(
        "  serving: %s; %d cores; load average %.1f at the end", models.label, os.cpu_count(), os.getloadavg()[0]
    )
    if not args.baseline:
        logger.info("  training seen running: %s; its arms reached step %d", phase.seen, phase.steps)
    if ms:
        logger.info(
            "  /fill_mask meanwhile: %d requests, p50 %.0f ms, p95 %.0f ms, max %.0f ms (limit %.0f ms)",
            len(ms),
            percentile(ms, 50),
            p95,
            max(ms),
            args.limit * 1000,
        )
    logger.info("  result: %s", "PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


def _ticket_from(stream: str) -> str:
    """The ticket in a /train_start event stream: the 32 hex digits of the seventh output."""
    import json

    for line in stream.splitlines():
        if line.startswith("data: ["):
            values = json.loads(line.removeprefix("data: "))
            return values[6] if len(values) > 6 and isinstance(values[6], str) else ""
    return ""


if __name__ == "__main__":
    main()
