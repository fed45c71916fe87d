"""ALBERT Lab's Gradio app: `build_app()` assembles the tabs, `launch_options()` says how to serve it.

One package per tab (`app/tabs/<tab>/`, its `tab.py` with `ENDPOINTS` and `build(ctx)`), the pure functions they call
(`calculator`, `inference`, `views`, `plots`, …), and the strings in English and 中文.
"""

from __future__ import annotations

from app.layout import CSS, THEME, bound_queue, build_app, launch_options

__all__ = ["CSS", "THEME", "bound_queue", "build_app", "launch_options"]
