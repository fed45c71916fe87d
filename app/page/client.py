"""What a request says about the screen it comes from: a phone gets figures laid out for a narrow screen.

A figure is built on the server, and plotly never re-arranges subplots for a narrow plot: a grid of six heatmaps in
a 326 px box is six unreadable stamps. A view that can lay its figure out two ways asks `is_phone()`: the request
Gradio is answering (`gradio_compat.current_request`, set for every event, the page's re-runs through
`app.page.freshness` included, and carried onto the hosting lanes' threads with the context) says where it comes
from. A phone says so itself: Chromium on Android sends the client hint `Sec-CH-UA-Mobile: ?1`, and every phone
browser's User-Agent holds "Mobi" (Safari on iPhone, Chrome and Firefox on Android) — the test MDN recommends.
A narrow desktop window is not a phone: it keeps the grid, which scrolls sideways inside its own box
(app/static/lab.css).
"""

from __future__ import annotations

import re
from typing import Any

from app import gradio_compat

_PHONE = re.compile(r"Mobi|iPhone|iPod", re.IGNORECASE)


def is_phone(request: Any = None) -> bool:
    """Whether `request` (a `gr.Request`; by default the one being answered) comes from a phone's browser."""
    headers = getattr(request if request is not None else gradio_compat.current_request(), "headers", None)
    if headers is None:
        return False
    try:
        if str(headers.get("sec-ch-ua-mobile", "")).strip() == "?1":
            return True
        return bool(_PHONE.search(str(headers.get("user-agent", ""))))
    except (AttributeError, TypeError):
        return False
