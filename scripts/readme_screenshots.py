"""The README's screenshots: the first screen of the Masked words tab on a phone (390 × 844) and a desktop
(1,400 × 1,000), its result shown on opening.

    python scripts/readme_screenshots.py            # starts `python app.py` on the shipped models
    python scripts/readme_screenshots.py --url http://127.0.0.1:7860/

Chromium through Playwright, every outside host refused; each PNG is reduced to a 256-colour palette so that
it stays well under 300 KB (assets/screenshot-phone.png, assets/screenshot-desktop.png).
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parent.parent
logger = logging.getLogger("readme_screenshots")
VIEWS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1400, "height": 1000}}
MAX_BYTES = 300_000


def start_app(port: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "HF_HUB_OFFLINE": "1",
        "GRADIO_ANALYTICS_ENABLED": "False",
    }
    process = subprocess.Popen(
        [sys.executable, "app.py"], cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}/"
    for _ in range(240):
        try:
            with urllib.request.urlopen(url, timeout=2):
                return process
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit(f"the app did not answer on {url}")


def small_png(png: bytes) -> bytes:
    """The screenshot with a 256-colour palette (text and flat colours survive; 3–5× smaller)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def take(url: str, out_dir: Path) -> list[Path]:
    from playwright.sync_api import expect, sync_playwright

    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        for name, viewport in VIEWS.items():
            context = browser.new_context(viewport=viewport)
            context.route(
                "**/*",
                lambda route: (
                    route.continue_()
                    if urlparse(route.request.url).hostname in ("127.0.0.1", "localhost")
                    or urlparse(route.request.url).scheme in ("data", "blob", "about")
                    else route.abort()
                ),
            )
            page = context.new_page()
            page.set_default_timeout(120_000)
            page.goto(url)
            page.get_by_role("tab", name="Masked words").click()
            expect(page.locator("#mask-chart .js-plotly-plot")).to_be_visible(timeout=120_000)
            page.wait_for_timeout(1500)
            page.evaluate("window.scrollTo(0, 0)")  # the first screen: the language switch, the tab bar, the tab
            page.wait_for_timeout(500)
            data = small_png(page.screenshot())
            if len(data) > MAX_BYTES:
                raise SystemExit(f"{name}: {len(data):,} bytes, more than {MAX_BYTES:,}")
            path = out_dir / f"screenshot-{name}.png"
            path.write_bytes(data)
            written.append(path)
            logger.info("%s: %s, %d KB", name, path.relative_to(REPO), len(data) // 1024)
            context.close()
        browser.close()
    return written


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running app (default: start one on the shipped models)")
    parser.add_argument("--port", type=int, default=7971)
    parser.add_argument("--out", type=Path, default=REPO / "assets")
    args = parser.parse_args()
    process = None if args.url else start_app(args.port)
    try:
        take(args.url or f"http://127.0.0.1:{args.port}/", args.out)
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=20)


if __name__ == "__main__":
    main()
