"""The *Attention* tab's figure: one head's map at every pass."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence

import numpy as np
from plotly.colors import make_colorscale, sequential
from plotly.subplots import make_subplots

from app.i18n import t
from app.inference import display_token
from app.page.plots import FigureJSON, base_layout, plot_text

PHONE_PLOT_PX = 320
"""The plot's width on a 390 px phone (the page's padding and the block's border taken off)."""
MIN_LABEL_PX = 7
"""The smallest axis label a map's columns get before some go unlabelled: a character of 7 px is still legible."""
LABEL_STEP_PX = MIN_LABEL_PX + 3
"""Pixels a turned label of that size needs along its axis; a map at least this wide per token labels them all."""
DESKTOP_ROW_PX = 730
"""A row of maps' width at the 960 px a narrow desktop window keeps (app/static/lab.css)."""


def head_heatmaps_figure(
    maps: np.ndarray, tokens: Sequence[str], head: int, lang: str = "en", narrow: bool = False
) -> FigureJSON:
    """One head's attention map at every pass (same weights when shared, yet different maps), passes 1…L.

    `narrow` (a phone, `app.page.client.is_phone`): the passes stacked one under another, each map as wide as the
    phone, the colour scale a bar under the title; otherwise a grid of up to three maps a row.

    Every map carries its tokens on both axes (rows: the token attending, columns: the token attended to);
    the positions are the axis values, so two alike tokens ('the' twice) stay two rows. Written as plain JSON
    (`FigureJSON`) on a grid laid out once per shape (`_grid`): built through plotly's objects this chart took
    ~36 ms of the interpreter per request, most of an /attention answer, and held the lock other requests need."""
    layers, count = maps.shape[0], len(tokens)
    cols = 1 if narrow else min(layers, 2 if layers % 3 and not layers % 2 else 3)  # full grids (4 → 2 × 2)
    while cols > 1 and DESKTOP_ROW_PX / cols < count * LABEL_STEP_PX:  # fewer maps a row before a token goes unlabelled
        cols -= 1
    rows = -(-layers // cols)
    labels = [plot_text(display_token(tok)) for tok in tokens]
    font = 11 if count <= 16 else 9 if count <= 32 else 7
    # px per map: a readable row per token, within the page; a phone's map grows past the phone's width (its chart
    # then scrolls sideways in its own box, app/static/lab.css) rather than leave a character unlabelled (issue 54)
    side = (
        max(230, count * LABEL_STEP_PX)
        if narrow
        else max(240, min(14 * count, 420), min(count * LABEL_STEP_PX, DESKTOP_ROW_PX // cols))
    )
    titles = tuple(t("attention.pass", lang, i=i + 1) for i in range(layers))
    gap = 80 if narrow else 90  # px between two rows of maps: the turned x labels and the next map's title
    layout = json.loads(_grid(rows, cols, titles, min(0.25, gap / (rows * side + gap))))
    positions = list(range(count))
    pairs = [[f"{labels[r]} → {labels[c]}" for c in positions] for r in positions]
    data = [
        {
            "type": "heatmap",
            "z": np.round(maps[i, head].astype(np.float64), 3).tolist(),
            "x": positions,
            "y": positions,
            "coloraxis": "coloraxis",
            "text": pairs,
            "hovertemplate": "%{text}: %{z:.3f}<extra></extra>",
            "xaxis": f"x{i + 1 if i else ''}",
            "yaxis": f"y{i + 1 if i else ''}",
        }
        for i in range(layers)
    ]
    top = float(maps[:, head].max())
    grid_axes = {key: layout.pop(key) for key in ("xaxis", "yaxis")}
    colorbar: dict = dict(title=dict(text=t("attention.axis.weight", lang)), thickness=12)
    margin = dict(l=70, r=20, t=80, b=70)
    if narrow:  # across the top, under the title: a bar on the right would take a fifth of a phone's width
        margin = dict(l=64, r=12, t=130, b=60)
        plot_px = rows * (side + gap) - gap
        colorbar |= dict(orientation="h", x=0, xanchor="left", y=1 + 30 / plot_px, yanchor="bottom", yref="paper")
        colorbar |= dict(len=0.7, thickness=10, title=dict(text=colorbar["title"]["text"], side="right"))
    layout.update(
        base_layout(
            title=t("attention.heatmap.title", lang, head=head + 1),
            height=margin["t"] + margin["b"] + rows * (side + gap) - gap,
            coloraxis=dict(colorscale=BLUES, cmin=0, cmax=top, colorbar=colorbar),
            margin=margin,
        )
    )
    if narrow and margin["l"] + side + margin["r"] > PHONE_PLOT_PX:  # wider than the phone: drawn at its own width
        layout["width"] = margin["l"] + side + margin["r"]
        for title in layout["annotations"]:  # each pass's title at its map's left edge, on screen before a scroll
            title.update(x=0, xanchor="left")
    if narrow:  # the title in the top 50 px, the colour bar under it, then pass 1's own title
        lines = layout["title"]["text"].count("<br>") + 1
        above = margin["t"] - 14 - 10 * lines  # px from the first map's top up to the title's middle
        layout["title"] = {**layout["title"], "y": 1 + above / plot_px, "yref": "paper", "yanchor": "middle"}
    axis = dict(tickmode="array", tickvals=positions, ticktext=labels, tickfont=dict(size=font), showgrid=False)
    # Columns are narrower than rows are tall: one map is about DESKTOP_ROW_PX / cols px wide on a desktop, or its
    # side on a phone; a turned label needs ~font + 3 px. Past that (more than 73 tokens on a desktop), every
    # stride-th column is labelled.
    across = side if narrow else DESKTOP_ROW_PX / cols
    # The turned labels shrink to fit every column (down to MIN_LABEL_PX, issue 54: a 中文 phone saw every other
    # character); only past that is every stride-th column labelled.
    column_font = max(MIN_LABEL_PX, min(font, int(across / count) - 3))
    stride = -(-count // max(1, int(across / (column_font + 3))))
    x_axis = axis | dict(
        tickvals=positions[::stride], ticktext=labels[::stride], tickangle=-90, tickfont=dict(size=column_font)
    )
    for name, value in grid_axes.items():  # the first map's axes: the grid's place and the page's look
        layout[name] = {**value, **layout[name]}
    for cell in range(1, rows * cols + 1):
        suffix = str(cell) if cell > 1 else ""
        layout[f"xaxis{suffix}"] = {**layout[f"xaxis{suffix}"], **x_axis}
        layout[f"yaxis{suffix}"] = {**layout[f"yaxis{suffix}"], **axis, "autorange": "reversed"}
        if cell > layers:  # the grid's empty cells (L = 5, 7, …) draw no axes
            layout[f"xaxis{suffix}"]["visible"] = layout[f"yaxis{suffix}"]["visible"] = False
    return FigureJSON(data, layout)


BLUES = make_colorscale(sequential.Blues)
"""plotly.py's "Blues" written out: plotly.js has a scale of that name too, and it is another one."""


@functools.lru_cache(maxsize=64)
def _grid(rows: int, cols: int, titles: tuple[str, ...], vertical_spacing: float) -> str:
    """The layout of a rows × cols grid of maps with its titles (plotly's `make_subplots`), as JSON: each chart
    reads a fresh copy and sets its own keys."""
    grid = make_subplots(
        rows=rows, cols=cols, subplot_titles=list(titles), horizontal_spacing=0.09, vertical_spacing=vertical_spacing
    )
    return json.dumps(grid.layout.to_plotly_json())
