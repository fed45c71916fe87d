"""What every figure of the app shares: colours, the base layout, plain-JSON figures, safe label text, line charts.

Token text goes through `plot_text` first: plotly interprets a few HTML tags in labels,
and nothing a user typed may become markup.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
import plotly.graph_objects as go

from app.i18n import normalize_lang

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


TITLE_UNITS = 40
"""A chart title's line holds at most this many units (a Latin letter 1, a CJK character 2): at the 15 px title
font that fits the ~330 px plot of a 390 px phone; plotly never wraps a title itself, it clips it."""
TITLE_LINE_PX = 19


def _units(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def wrap_title(text: str, units: int = TITLE_UNITS) -> list[str]:
    """`text` in lines of at most `units` (breaking at spaces, or anywhere between CJK characters)."""
    lines: list[str] = []
    line = ""
    for word in re.findall(r"[\u2e80-\u9fff\uff00-\uffef]|[^\s\u2e80-\u9fff\uff00-\uffef]+\s*|\s+", text):
        if line and _units(line + word.rstrip()) > units:
            lines.append(line.rstrip())
            line = word.lstrip()
        else:
            line += word
    if line.strip():
        lines.append(line.rstrip())
    for i in range(len(lines) - 1):  # an opening bracket starts the next line, with what it opens
        if lines[i].endswith(("（", "(")) and len(lines[i]) > 1:
            lines[i], lines[i + 1] = lines[i][:-1].rstrip(), lines[i][-1] + lines[i + 1]
    return lines or [text]


TICK_UNITS = {"en": 14, "zh": 10}
"""The widest line of a bar's name under the bars (`wrap_title` units: a CJK character is two), so that four names sit
side by side, upright, under the bars of a 390 px phone: five Chinese characters, or about 14 Latin letters."""


def tick_names(names: list[str], lang: str = "en") -> list[str]:
    """Bar names on short lines (`<br>` between them) for a chart's category axis; draw it with `tickangle=0`."""
    units = TICK_UNITS["zh" if normalize_lang(lang) == "zh" else "en"]
    return ["<br>".join(wrap_title(name, units)) for name in names]


def base_layout(**changes: Any) -> dict[str, Any]:
    """The shared layout with some keys replaced (axis dicts merged, not overwritten). A long title is wrapped
    onto lines that fit a phone, and the top margin grows to hold them."""
    layout = {**_LAYOUT}
    for key, value in changes.items():
        if key in ("xaxis", "yaxis") and isinstance(value, dict):
            layout[key] = {**layout[key], **value}
        elif key == "title" and isinstance(value, str):
            # plotly.js (the plain-JSON charts) shows only {"text": ...} titles; plotly.py accepts both
            layout[key] = {"text": value}
        else:
            layout[key] = value
    title = layout.get("title")
    if isinstance(title, dict) and isinstance(title.get("text"), str) and "<br>" not in title["text"]:
        lines = wrap_title(title["text"])
        if len(lines) > 1:
            layout["title"] = {**title, "text": "<br>".join(lines), "font": {"size": 15}}
            margin = {**_LAYOUT["margin"], **layout.get("margin", {})}
            layout["margin"] = {**margin, "t": max(margin["t"], 30 + TITLE_LINE_PX * len(lines))}
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

    @property
    def data(self) -> tuple[Any, ...]:
        """plotly's trace objects, validated, built on demand for readers such as tests (the app sends `to_json()`
        only)."""
        return go.Figure(self.figure).data

    @property
    def layout(self) -> Any:
        """plotly's layout object, validated, built on demand (as `data`)."""
        return go.Figure(self.figure).layout


def plot_text(text: str) -> str:
    """Text safe to put in a plotly label: escaped, so `<b>` or `<a href=…>` stay literal."""
    return html.escape(text, quote=True)


LEGEND_ROW_PX = 22


def legend_below(entries: int, height: int = 360, under_axis_px: int = 70) -> dict[str, Any]:
    """Layout keys that put a horizontal legend in its own rows at the bottom of the figure, below the x axis's
    labels and title (`under_axis_px`), never over them: rows for two entries each (a 390 px phone's width), the
    bottom margin and the height grown to hold them."""
    rows = -(-entries // 2)
    return {
        "legend": dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left"),
        "margin": {**_LAYOUT["margin"], "b": under_axis_px + LEGEND_ROW_PX * rows},
        "height": height + LEGEND_ROW_PX * rows,
    }


def empty_figure(message: str = "") -> go.Figure:
    """A blank figure carrying a short message (used when there is nothing to draw)."""
    figure = go.Figure()
    figure.update_layout(**base_layout(height=200, xaxis=dict(visible=False), yaxis=dict(visible=False)))
    if message:  # on lines that fit a phone: plotly never wraps an annotation itself
        figure.add_annotation(text="<br>".join(wrap_title(plot_text(message))), showarrow=False, font=dict(size=14))
    return figure


def lines_figure(
    series: Mapping[str, Sequence[float]],
    title: str,
    x_title: str,
    y_title: str,
    start: int = 1,
    y_range: Sequence[float] | None = None,
) -> FigureJSON:
    """One line per named series against pass number (plain JSON: /attention and /layer_transitions draw it on
    every request)."""
    data = [
        {
            "type": "scatter",
            "x": list(range(start, start + len(values))),
            "y": [float(value) for value in values],
            "mode": "lines+markers",
            "name": plot_text(name),
            "line": {"color": PALETTE[i % len(PALETTE)]},
        }
        for i, (name, values) in enumerate(series.items())
    ]
    y_axis: dict[str, Any] = {"title": {"text": y_title}}
    if y_range is not None:
        y_axis["range"] = [float(value) for value in y_range]
    layout = base_layout(
        title=title, xaxis=dict(title={"text": x_title}, dtick=1), yaxis=y_axis, **legend_below(len(series))
    )
    return FigureJSON(data, layout)
