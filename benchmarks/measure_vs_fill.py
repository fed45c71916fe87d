"""Issue 35's independent check: three of the largest /measure_speed sent at once, and one user's /fill_mask
meanwhile; passes when every /fill_mask sent while a measurement is running answers within 2 s.

    python benchmarks/measure_vs_fill.py               # shipped models, python app.py on a free port
    python benchmarks/measure_vs_fill.py --limit 2.0 --gap 0.25

Independent of `benchmarks/load_check.py`: no gradio_client, no mixed load, a browser-like session of its own, and
the measurements' progress read from their own event streams (a /fill_mask counts only while at least one
measurement has been accepted and has not yet answered). Exit code 1 when the check fails.
"""

from __future__ import annotations

import argparse
import logging
import os
import secrets
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.app_server import AppServer, choose_models, percentile  # noqa: E402
from benchmarks.load_heavy import HEAVIEST_MEASURE  # noqa: E402

logger = logging.getLogger("benchmarks.measure_vs_fill")
FILL = ["The old sailor walked along the [MASK] near the village.", 5, "", "en"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=float, default=2.0, help="seconds a /fill_mask may take meanwhile")
    parser.add_argument("--gap", type=float, default=0.25, help="seconds between one /fill_mask and the next")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    import httpx

    models = choose_models()
    with AppServer(models) as server:
        url = server.url.rstrip("/")
        running = [0]
        outcomes: list[str] = []
        lock = threading.Lock()

        def measure() -> None:
            with httpx.Client(timeout=600) as http:
                posted = http.post(f"{url}/gradio_api/call/measure_speed", json={"data": HEAVIEST_MEASURE})
                if posted.status_code != 200:
                    with lock:
                        outcomes.append(f"refused {posted.status_code}")
                    return
                with lock:
                    running[0] += 1
                stream = http.get(f"{url}/gradio_api/call/measure_speed/{posted.json()['event_id']}").text
                with lock:
                    running[0] -= 1
                    outcomes.append("answered" if '"tokens"' in stream else f"other: {stream[:80]!r}")

        with httpx.Client(timeout=60) as http:  # warm: the model loaded, the first request's costs paid
            http.post(f"{url}/gradio_api/call/fill_mask", json={"data": FILL})
        threads = [threading.Thread(target=measure) for _ in range(3)]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        waits: list[float] = []
        session = secrets.token_hex(8)
        with httpx.Client(timeout=60) as http:
            while any(thread.is_alive() for thread in threads):
                with lock:
                    during = running[0] > 0
                sent = time.perf_counter()
                posted = http.post(f"{url}/gradio_api/call/fill_mask", json={"data": FILL, "session_hash": session})
                answered = (
                    posted.status_code == 200
                    and "event: complete"
                    in http.get(f"{url}/gradio_api/call/fill_mask/{posted.json()['event_id']}").text
                )
                seconds = time.perf_counter() - sent
                if during:
                    waits.append(seconds if answered else float("inf"))
                time.sleep(args.gap)
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - start
    ms = [w * 1000 for w in waits]
    ok = bool(waits) and max(waits) <= args.limit and outcomes.count("answered") >= 1
    logger.info("ALBERT Lab: three heaviest /measure_speed at once, one user's /fill_mask meanwhile")
    load = os.getloadavg()[0]
    logger.info("  serving: %s; %d cores; load average %.1f at the end", models.label, os.cpu_count(), load)
    logger.info("  measurements: %s, in %.1f s", ", ".join(outcomes), wall)
    if ms:
        logger.info(
            "  /fill_mask while one ran: %d requests, p50 %.0f ms, p95 %.0f ms, max %.0f ms (limit %.0f ms)",
            len(ms),
            percentile(ms, 50),
            percentile(ms, 95),
            max(ms),
            args.limit * 1000,
        )
    logger.info("  result: %s", "PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
