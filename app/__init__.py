"""ALBERT Lab's Gradio app: `build_app()` assembles the tabs, `launch_options()` says how to serve it.

One package per tab (`app/tabs/<tab>/`, its `tab.py` with `ENDPOINTS` and `build(ctx)`), the pure functions they call
(`calculator`, `inference`, `views`, `plots`, …), and the strings in English and 中文.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.layout import CSS, THEME, bound_queue, build_app, launch_options

__all__ = ["CSS", "THEME", "bound_queue", "build_app", "launch_options"]


def __getattr__(name: str) -> Any:
    """`app.build_app` and the rest, imported from `app.layout` when first asked for: importing any module of the
    package (`app.child` in a /measure_speed process, the strings, the input checks) does not import Gradio."""
    if name in __all__:
        from app import layout

        return getattr(layout, name)
    raise AttributeError(f"module 'app' has no attribute {name!r}")
