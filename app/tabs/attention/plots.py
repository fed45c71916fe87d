"""The *Attention* tab's figure: one head's map at every pass."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from app.i18n import t
from app.inference import display_token
from app.page.plots import base_layout, plot_text


def head_heatmaps_figure(maps: np.ndarray, tokens: Sequence[str], head: int, lang: str = "en") -> go.Figure:
    """One head's attention map at every pass (same weights when shared, yet different maps), passes 1…L.

    Every map carries its tokens on both axes (rows: the token attending, columns: the token attended to);
    the positions are the axis values, so two alike tokens ('the' twice) stay two rows."""
    layers, count = maps.shape[0], len(tokens)
    cols = min(layers, 2 if layers % 3 and not layers % 2 else 3)  # a full grid when L allows it (4 → 2 × 2)
    rows = -(-layers // cols)
    labels = [plot_text(display_token(tok)) for tok in tokens]
    font = 11 if count <= 16 else 9 if count <= 32 else 7
    side = max(240, min(14 * count, 420))  # px per map: a readable row per token, within the page
    figure = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[t("attention.pass", lang, i=i + 1) for i in range(layers)],
        horizontal_spacing=0.09,
        vertical_spacing=min(0.25, 90 / (rows * side + 90)),
    )
    positions = list(range(count))
    pairs = [[f"{labels[r]} → {labels[c]}" for c in positions] for r in positions]
    for i in range(layers):
        figure.add_trace(
            go.Heatmap(
                z=np.round(maps[i, head], 3),
                x=positions,
                y=positions,
                coloraxis="coloraxis",
                text=pairs,
                hovertemplate="%{text}: %{z:.3f}<extra></extra>",
            ),
            row=i // cols + 1,
            col=i % cols + 1,
        )
    top = float(maps[:, head].max())
    figure.update_layout(
        **base_layout(
            title=t("attention.heatmap.title", lang, head=head + 1),
            height=110 + rows * (side + 90),
            coloraxis=dict(
                colorscale="Blues",
                cmin=0,
                cmax=top,
                colorbar=dict(title=dict(text=t("attention.axis.weight", lang)), thickness=12),
            ),
            margin=dict(l=70, r=20, t=80, b=70),
        )
    )
    axis = dict(tickmode="array", tickvals=positions, ticktext=labels, tickfont=dict(size=font), showgrid=False)
    figure.update_yaxes(**axis, autorange="reversed")
    # Columns are narrower than rows are tall: at the 960 px a phone keeps (app/static/lab.css) one map is about
    # 730 / cols px wide, and a turned label needs ~font + 4 px. Past that, every stride-th column is labelled.
    stride = -(-count // max(1, int(730 / cols / (font + 4))))
    figure.update_xaxes(**(axis | dict(tickvals=positions[::stride], ticktext=labels[::stride])), tickangle=-90)
    for cell in range(layers + 1, rows * cols + 1):  # the grid's empty cells (L = 5, 7, …) draw no axes
        figure.update_layout({f"xaxis{cell}": dict(visible=False), f"yaxis{cell}": dict(visible=False)})
    return figure
