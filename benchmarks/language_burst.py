"""A classroom switching language at once: `--pages` language switches sent together (each its own session, as
that many open pages), and one user's /fill_mask meanwhile (issue 35: 96 switches had made /fill_mask 6× slower).

    python benchmarks/language_burst.py              # 96 switches to 中文, shipped models, python app.py on a free port
    python benchmarks/language_burst.py --pages 32

A switch is sent as the page sends it: the labels change in the browser with no request (`app.layout.relabel_js`),
then one queued `/page_in_language` draws the examples, charts and tables again in 中文, with the values the page
starts with (its other steps redraw results on screen, and a fresh page shows none). Reported: the switches'
latency, and /fill_mask's alone and during them.
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


def page_redraw_values(config: dict) -> list:
    """The values a fresh page sends with `/page_in_language` after a switch to 中文: each input's value as the page
    starts (from `/config`), the language switch's set to "zh"."""
    (redraw,) = [event for event in config["dependencies"] if event.get("api_name") == "page_in_language"]
    props = {component["id"]: component.get("props", {}) for component in config["components"]}
    return ["zh" if props[i].get("elem_id") == "language" else props[i].get("value") for i in redraw["inputs"]]


async def measure(url: str, pages: int) -> tuple[list[float], list[float], list[float], int]:
    """(switch ms, /fill_mask ms alone, /fill_mask ms during the switches, switches that failed)."""
    import httpx

    async with httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=pages + 8)) as http:
        config = (await http.get(f"{url}/config")).json()
        session = secrets.token_hex(8)
        alone = []
        await call(http, url, "/fill_mask", FILL, session)  # the model loaded before anything is timed
        for _ in range(10):
            start = time.perf_counter()
            await call(http, url, "/fill_mask", FILL, session)
            alone.append((time.perf_counter() - start) * 1000)
        switches: list[float] = []
        failed = [0]
        redraw = page_redraw_values(config)

        async def switch() -> None:
            start = time.perf_counter()
            answer = await call(http, url, "/page_in_language", redraw, secrets.token_hex(8))
            switches.append((time.perf_counter() - start) * 1000)
            failed[0] += answer.outputs is None

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
