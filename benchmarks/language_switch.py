"""One teacher's language switch after opening every tab (issue 52): what the page queues, and how long until the
visible tab shows its new example's answer in 中文. Chromium (Playwright) at 1,400 × 1,000 on `python app.py`.

    python benchmarks/language_switch.py             # the shipped models; three switches (中文, English, 中文)

The page opens every tab in turn (each runs its model once), returns to Masked words, and clicks 中文. Reported per
switch: the queued events (`/gradio_api/queue/join` requests, by api name), the seconds from the click until the
masked-words status names its model in the new language with the page's redraw done (`<html data-lab-drawn>`), and
the seconds until the page's last queue request ended.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.app_server import AppServer, choose_models  # noqa: E402
from benchmarks.page_traffic import QueueTraffic, event_ids  # noqa: E402

logger = logging.getLogger("benchmarks.language_switch")
TABS = ("Sharing", "Masked words", "Sentence order", "Attention", "Sentiment")
MODEL_WORD = {"zh": "模型 ", "en": "Model "}
"""What the masked-words status starts with once a result in that language is shown."""


def switch(page: Any, traffic: QueueTraffic, names: dict[int, str], label: str, code: str) -> dict[str, Any]:
    """Click `label` in the language switch; what it queued and how long it took."""
    first = len(traffic.joins)
    start = time.monotonic()
    page.locator("#language label").filter(has_text=label).click()
    page.wait_for_function(
        "([code, word]) => { const s = document.querySelector('#mask-status'); "
        "return document.documentElement.dataset.labDrawn === code && !!s && s.innerText.includes(word); }",
        arg=[code, MODEL_WORD[code]],
        timeout=300_000,
    )
    shown = time.monotonic() - start
    traffic.wait_quiet(page)
    return {
        "to": code,
        "queued": [names.get(fn, str(fn)) for _, fn in traffic.joins[first:]],
        "answer_s": round(shown, 2),
        "quiet_s": round(traffic.last - start, 2),
        "text": page.locator("#mask-text textarea").input_value(),
    }


def measure(url: str, switches: int) -> list[dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    names = event_ids(url, "")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        traffic = QueueTraffic(page, 300.0)
        page.goto(url)
        page.wait_for_selector("#lab-tabs")
        for tab in (*TABS, "Masked words"):
            page.get_by_role("tab", name=tab).first.click()
            traffic.wait_quiet(page)
        order = [("中文", "zh"), ("English", "en")]
        results = [switch(page, traffic, names, *order[i % 2]) for i in range(switches)]
        browser.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--switches", type=int, default=3, help="switches in a row, alternating 中文 and English")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    models = choose_models()
    with AppServer(models) as server:
        results = measure(server.url.rstrip("/") + "/", args.switches)
    logger.info("ALBERT Lab: a language switch after opening every tab (Chromium, 1,400 × 1,000)")
    logger.info("  serving: %s; %d cores; load average %.1f", models.label, os.cpu_count(), os.getloadavg()[0])
    for result in results:
        logger.info(
            "  to %s: %d queued (%s); answer shown after %.2f s, quiet after %.2f s; text %r",
            result["to"],
            len(result["queued"]),
            ", ".join(result["queued"]),
            result["answer_s"],
            result["quiet_s"],
            result["text"],
        )


if __name__ == "__main__":
    main()
