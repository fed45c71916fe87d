"""A classroom switching language at once: `--pages` language switches sent together (each its own session, as
that many open pages), and one user's /fill_mask meanwhile (issue 35: 96 switches had made /fill_mask 6× slower).

    python benchmarks/language_burst.py              # 96 switches to 中文, shipped models, python app.py on a free port
    python benchmarks/language_burst.py --pages 32

The switch is unqueued (its labels show at once), so it is sent as the page sends it: `POST /gradio_api/run/predict`
with the event's `fn_index` from `/config`. Reported: the switches' latency, and /fill_mask's alone and during them.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.app_server import AppServer, choose_models, percentile  # noqa: E402
from benchmarks.http_load import call  # noqa: E402

logger = logging.getLogger("benchmarks.language_burst")
FILL = ["The old sailor walked along the [MASK] near the village.", 5, "", "en"]


async def measure(url: str, pages: int) -> tuple[list[float], list[float], list[float], int]:
    """(switch ms, /fill_mask ms alone, /fill_mask ms during the switches, switches that failed)."""
    import httpx

    async with httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=pages + 8)) as http:
        config = (await http.get(f"{url}/config")).json()
        events = config["dependencies"]
        index = next(event.get("id", i) for i, event in enumerate(events) if event.get("api_name") == "set_language")
        session = secrets.token_hex(8)
        alone = []
        await call(http, url, "/fill_mask", FILL, session)  # the model loaded before anything is timed
        for _ in range(10):
            start = time.perf_counter()
            await call(http, url, "/fill_mask", FILL, session)
            alone.append((time.perf_counter() - start) * 1000)
        switches: list[float] = []
        failed = [0]

        queued = next(event for event in events if event.get("api_name") == "set_language").get("queue") is not False

        async def switch() -> None:
            start = time.perf_counter()
            if queued:  # through the queue, as the page sends a queued event
                answer = await call(http, url, "/set_language", ["zh"], secrets.token_hex(8))
                ok = answer.outputs is not None
            else:
                body = {"data": ["zh"], "fn_index": index, "session_hash": secrets.token_hex(8)}
                response = await http.post(f"{url}/gradio_api/run/predict", json=body)
                ok = response.status_code == 200 and "data" in response.json()
            switches.append((time.perf_counter() - start) * 1000)
            failed[0] += not ok

        burst = [asyncio.create_task(switch()) for _ in range(pages)]
        during = []
        while not all(task.done() for task in burst):
            start = time.perf_counter()
            await call(http, url, "/fill_mask", FILL, session)
            during.append((time.perf_counter() - start) * 1000)
        await asyncio.gather(*burst)
        return switches, alone, during, failed[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=96)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    models = choose_models()
    with AppServer(models) as server:
        switches, alone, during, failed = asyncio.run(measure(server.url.rstrip("/"), args.pages))
    logger.info("ALBERT Lab: %d language switches at once, one user's /fill_mask meanwhile", args.pages)
    logger.info("  serving: %s; %d cores; load average %.1f", models.label, os.cpu_count(), os.getloadavg()[0])
    logger.info(
        "  switches: p50 %.0f ms, p95 %.0f ms, max %.0f ms; failed %d",
        percentile(switches, 50),
        percentile(switches, 95),
        max(switches),
        failed,
    )
    logger.info("  /fill_mask alone: p50 %.0f ms, max %.0f ms", percentile(alone, 50), max(alone))
    if during:
        logger.info(
            "  /fill_mask during the switches: %d requests, p50 %.0f ms, max %.0f ms",
            len(during),
            percentile(during, 50),
            max(during),
        )


if __name__ == "__main__":
    main()
