"""What every figure of the app shares: colours, the base layout, plain-JSON figures, safe label text, line charts.

Token text goes through `plot_text` first: plotly interprets a few HTML tags in labels,
and nothing a user typed may become markup.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
import plotly.graph_objects as go

MODE_COLORS = {"all": "#4f46e5", "attention": "#0891b2", "ffn": "#d97706", "none": "#6b7280"}
PALETTE = ("#4f46e5", "#d97706", "#0891b2", "#dc2626", "#16a34a", "#9333ea", "#6b7280", "#db2777")
# No named template: serialising plotly's templates costs ~15 ms a figure, a sizeable part of a request.
_LAYOUT = dict(
    margin=dict(l=60, r=20, t=50, b=50),
    height=360,
    plot_bgcolor="white",
    paper_bgcolor="white",
    font=dict(family="Inter, 'Noto Sans SC', 'PingFang SC', 'Microsoft YaHei', sans-serif"),
    xaxis=dict(gridcolor="#e5e7eb", zerolinecolor="#d1d5db"),
    yaxis=dict(gridcolor="#e5e7eb", zerolinecolor="#d1d5db"),
)


def base_layout(**changes: Any) -> dict[str, Any]:
    """The shared layout with some keys replaced (axis dicts merged, not overwritten)."""
    layout = {**_LAYOUT}
    for key, value in changes.items():
        if key in ("xaxis", "yaxis") and isinstance(value, dict):
            layout[key] = {**layout[key], **value}
        elif key == "title" and isinstance(value, str):
            # plotly.js (the plain-JSON charts) shows only {"text": ...} titles; plotly.py accepts both
            layout[key] = {"text": value}
        else:
            layout[key] = value
    return layout


class FigureJSON:
    """A plotly figure written as a plain dict, for charts on a request's hot path.

    `gr.Plot` only calls `to_json()`; skipping plotly's object model and validation saves
    ~15 ms per chart, most of a masked-word request's budget.
    """

    def __init__(self, data: list[dict[str, Any]], layout: dict[str, Any]) -> None:
        self.figure = {"data": data, "layout": layout}

    def to_json(self) -> str:
        return orjson.dumps(self.figure).decode()

    def to_dict(self) -> dict[str, Any]:
        return self.figure


def plot_text(text: str) -> str:
    """Text safe to put in a plotly label: escaped, so `<b>` or `<a href=…>` stay literal."""
    return html.escape(text, quote=True)


def empty_figure(message: str = "") -> go.Figure:
    """A blank figure carrying a short message (used when there is nothing to draw)."""
    figure = go.Figure()
    figure.update_layout(**base_layout(height=200, xaxis=dict(visible=False), yaxis=dict(visible=False)))
    if message:
        figure.add_annotation(text=plot_text(message), showarrow=False, font=dict(size=14))
    return figure


def lines_figure(
    series: Mapping[str, Sequence[float]],
    title: str,
    x_title: str,
    y_title: str,
    start: int = 1,
    y_range: Sequence[float] | None = None,
) -> go.Figure:
    """One line per named series against pass number."""
    figure = go.Figure()
    for i, (name, values) in enumerate(series.items()):
        figure.add_scatter(
            x=list(range(start, start + len(values))),
            y=list(values),
            mode="lines+markers",
            name=plot_text(name),
            line=dict(color=PALETTE[i % len(PALETTE)]),
        )
    figure.update_layout(
        **base_layout(
            title=title,
            xaxis=dict(title=x_title, dtick=1),
            yaxis=dict(title=y_title),
            legend=dict(orientation="h", y=-0.2),
        )
    )
    if y_range is not None:
        figure.update_yaxes(range=list(y_range))
    return figure
