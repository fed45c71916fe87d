"""Serve ALBERT Lab: `python app.py` (127.0.0.1:7860 unless GRADIO_SERVER_NAME / GRADIO_SERVER_PORT say otherwise).

This is also the Hugging Face Spaces entry point.
"""

from __future__ import annotations

import logging

from app import build_app, launch_options


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    demo = build_app()
    demo.queue(default_concurrency_limit=2).launch(**launch_options())


if __name__ == "__main__":
    main()
