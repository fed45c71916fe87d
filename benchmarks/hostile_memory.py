"""Memory after a hostile burst (issue 53, item 4): the server's resident memory at rest, during `--minutes` of
hostile calls to every endpoint (the bodies of tests/hostile/test_hostile_every_endpoint.py, six at a time), and
after `--settle` seconds of rest. The app's ~370,000 long-lived objects are frozen out of the collector's sight at
start (`app.py`); what stays above the plateau afterwards is reported, with the count of Gradio sessions still kept.

    python benchmarks/hostile_memory.py --minutes 3 --settle 60
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.app_server import AppServer, choose_models  # noqa: E402

logger = logging.getLogger("benchmarks.hostile_memory")


def endpoints(url: str) -> dict[str, int]:
    import httpx

    config = httpx.get(f"{url}/config", timeout=60).json()
    return {
        dep["api_name"]: len(dep["inputs"])
        for dep in config["dependencies"]
        if dep.get("backend_fn") and dep.get("api_name") and dep["api_name"] not in ("measure_speed", "train_start")
    }


def hostile_round(url: str, names: dict[str, int]) -> int:
    """Every hostile body to every endpoint once, six at a time; returns the calls sent."""
    import httpx

    from tests.hostile.test_hostile_every_endpoint import hostile_bodies

    calls = [(name, body) for name, n in sorted(names.items()) for body in hostile_bodies(n)]

    def send(call: tuple[str, str]) -> None:
        name, body = call
        with httpx.Client(timeout=120) as http:
            posted = http.post(
                f"{url}/gradio_api/call/{name}", content=body, headers={"content-type": "application/json"}
            )
            if posted.status_code == 200:
                http.get(f"{url}/gradio_api/call/{name}/{posted.json()['event_id']}")

    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(send, calls))
    return len(calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--settle", type=float, default=60.0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    with AppServer(choose_models()) as app:
        url = app.url.rstrip("/")
        time.sleep(20)  # the warm-up loads the models and freezes the started app
        rest = app.rss_mb()
        names = endpoints(url)
        sent, peak, started = 0, rest, time.monotonic()
        while time.monotonic() - started < args.minutes * 60:
            sent += hostile_round(url, names)
            peak = max(peak, app.rss_mb())
        after = app.rss_mb()
        time.sleep(args.settle)
        settled = app.rss_mb()
    logger.info(
        json.dumps(
            {
                "calls": sent,
                "rest_mb": round(rest, 1),
                "peak_mb": round(peak, 1),
                "at_end_mb": round(after, 1),
                "settled_mb": round(settled, 1),
                "settle_s": args.settle,
            }
        )
    )


if __name__ == "__main__":
    main()
