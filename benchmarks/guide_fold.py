"""Where each guide stop's quoted figures land on a projector's screen (issue 54, item 5): the guide's stops done in
Chromium, as tests/app/test_guide_walk.py does them, and for every figure a stop quotes, where it is drawn after the
stop's last action: inside the first screen (no scrolling by the teacher) or how far below or above it.

    python benchmarks/guide_fold.py                       # English guide, 1,280 × 720 (a projector)
    python benchmarks/guide_fold.py --lang zh --size 1400x1000
    python benchmarks/guide_fold.py --screenshots runs/fold   # and the screen after each stop

`python app.py` on the shipped models, offline. A figure of `charts` is placed at the chart that draws it. The
page's own scrolling counts (a click scrolls its button into view, as Playwright and a teacher's click do).
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.app_server import REPO, free_port  # noqa: E402

logger = logging.getLogger("benchmarks.guide_fold")
PACE_MS = 500
"""A pause after each step, as a teacher's (a click at once after typing can meet the page before it read the text)."""


def guide_stops():  # noqa: ANN201 — docs/teaching/stops.py's STOPS
    spec = importlib.util.spec_from_file_location("guide_stops", REPO / "docs" / "teaching" / "stops.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["guide_stops"] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", choices=["en", "zh"], default="en")
    parser.add_argument("--size", default="1280x720", help="the screen, WIDTHxHEIGHT")
    parser.add_argument("--screenshots", type=Path, help="a folder: the screen after each stop, stop-N.png")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    from playwright.sync_api import sync_playwright

    from tests.app.support import ARGS, CHROMIUM, switch_language, wait_for_page
    from tests.app.test_guide_walk import TEXT_JS, do_step, on_screen, where_drawn

    stops = guide_stops()
    width, height = (int(part) for part in args.size.split("x"))
    port = free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith("ALBERT_LAB_")}
    env |= {"GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port), "HF_HUB_OFFLINE": "1"}
    env |= {"TRANSFORMERS_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False", "ALBERT_LAB_WARM_TRAINING": "0"}
    server = subprocess.Popen(
        [sys.executable, "app.py"], cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
    )
    inside = total = 0
    try:
        url = f"http://127.0.0.1:{port}/"
        wait_for_page(url, server, 600)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(url)
            if args.lang == "zh":
                switch_language(page, "中文")
            logger.info("| stop | tab | where | figure | top – bottom (screen %d px) | |", height)
            logger.info("|---|---|---|---|---|---|")
            for stop in stops.STOPS[args.lang]:
                for step in stop.steps:
                    do_step(page, step)
                    page.wait_for_timeout(PACE_MS)
                for target, text in stop.shows:
                    page.wait_for_function(TEXT_JS, arg=[target, text], timeout=120_000)
                    where = where_drawn(page, target, text)
                    seen = on_screen(where)
                    inside, total = inside + seen, total + 1
                    place = f"{where['top']} – {where['bottom']}" if where else "not found"
                    verdict = "inside" if seen else "**outside**"
                    logger.info("| %d | %s | %s | %s | %s | %s |", stop.number, stop.tab, target, text, place, verdict)
                if args.screenshots:
                    args.screenshots.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(args.screenshots / f"stop-{stop.number}.png"))
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    logger.info("%d of %d quoted figures inside the first screen at %s (%s guide)", inside, total, args.size, args.lang)


if __name__ == "__main__":
    main()
