"""Plotly figures of the model tabs: top-k bars, attention heatmaps, layer transitions, runs (sentence order:
`app.order_views`)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from albert.core.config import SHARING_MODES, AlbertConfig
from albert.core.params import count_parameters
from app.i18n import t
from app.inference import FillMaskResult, display_token
from app.plots import MODE_COLORS, PALETTE, FigureJSON, base_layout, plot_text

_MASK_ROWS_SHOWN = 8  # more masks than this: the figure shows the first ones, the JSON has all
SEED_REPEAT = re.compile(r"-s\d+$")
"""A run named like `albert-lab-all-s1` repeats `albert-lab-all` with another seed: drawn in its colour, dashed."""
LOG_AXIS_SPAN = 10  # training curves use a log token axis when the longest run is this many times the shortest


BAR_PX, PANEL_TITLE_PX, PANEL_GAP_PX, TOP_PX, BOTTOM_PX = 22, 26, 14, 56, 84
"""Pixel sizes of the top-k chart: a bar, the title row above each [MASK]'s panel, the gap between panels, the
figure's title and the shared axis below the last panel (tick labels and the chance note)."""


def topk_panels(n_panels: int, k: int) -> tuple[int, list[tuple[float, float]]]:
    """The chart's height and each panel's y domain (top panel first), laid out in pixels so that every
    panel's title sits in a row of its own above the bars: never over the tick labels of the panel above
    (only the last panel has tick labels, and the x axis is one axis shared by all)."""
    panel = k * BAR_PX
    plot = n_panels * (PANEL_TITLE_PX + panel) + (n_panels - 1) * PANEL_GAP_PX
    domains, top = [], plot
    for _ in range(n_panels):
        top -= PANEL_TITLE_PX
        domains.append((max(top - panel, 0) / plot, top / plot))
        top -= panel + PANEL_GAP_PX
    return TOP_PX + plot + BOTTOM_PX, domains


def topk_figure(result: FillMaskResult, lang: str = "en", vocab_size: int | None = None) -> FigureJSON:
    """Horizontal bars of the top-k tokens, one panel per [MASK] (first ones only when there are many).

    All panels share one 0–100% probability axis, so a 5% bar is a fifth as long as a 25% one in every panel,
    and a dotted line marks chance, 1/V (a guess among the V tokens of the vocabulary)."""
    shown = result.predictions[:_MASK_ROWS_SHOWN]
    k = max(len(p.candidates) for p in shown)
    height, domains = topk_panels(len(shown), k)
    layout = base_layout(title=t("mask.chart", lang), height=height, margin=dict(l=110, r=20, t=TOP_PX, b=BOTTOM_PX))
    data, annotations, shapes = [], [], []
    for row, (prediction, (low, high)) in enumerate(zip(shown, domains, strict=True)):
        suffix = "" if row == 0 else str(row + 1)
        # Category labels must be unique: two pieces can read alike ('▁the' and 'the').
        labels, seen = [], set()
        for token, _ in prediction.candidates:
            label = plot_text(token)
            while label in seen:
                label += "\u200b"
            seen.add(label)
            labels.append(label)
        values = [prob for _, prob in prediction.candidates]
        data.append(
            {
                "type": "bar",
                "orientation": "h",
                "x": values[::-1],
                "y": labels[::-1],
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
                "marker": {"color": PALETTE[0]},
                "text": [f"{v:.1%}" for v in values][::-1],
                "textposition": "outside",
                "cliponaxis": False,
                "showlegend": False,
                "hovertemplate": "%{y}: %{x:.2%}<extra></extra>",
            }
        )
        last = row == len(shown) - 1
        layout[f"xaxis{suffix}"] = {
            **layout["xaxis"],
            "anchor": f"y{suffix}",
            "range": [0, 1],
            "dtick": 0.2,
            "tickformat": ".0%",
            "showticklabels": last,
            "fixedrange": True,
            **({} if row == 0 else {"matches": "x"}),
            **({"title": {"text": t("mask.axis", lang)}} if last else {}),
        }
        layout[f"yaxis{suffix}"] = {
            **layout["yaxis"],
            "anchor": f"x{suffix}",
            "type": "category",
            "domain": [low, high],
            "fixedrange": True,
        }
        annotations.append(
            {
                "text": t("mask.panel", lang, i=row + 1, word=plot_text(prediction.candidates[0][0])),
                "x": 0,
                "xref": "paper",
                "xanchor": "left",
                "y": high,
                "yref": "paper",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 13},
            }
        )
        if vocab_size:
            shapes.append(
                {
                    "type": "line",
                    "xref": f"x{suffix}",
                    "yref": f"y{suffix} domain",
                    "x0": 1 / vocab_size,
                    "x1": 1 / vocab_size,
                    "y0": 0,
                    "y1": 1,
                    "line": {"color": "#dc2626", "dash": "dot", "width": 1.5},
                }
            )
    if vocab_size:
        annotations.append(
            {
                "text": t("mask.chance", lang, V=f"{vocab_size:,}", p=f"{1 / vocab_size:.4%}"),
                "x": 0,
                "xref": "paper",
                "xanchor": "left",
                "xshift": -100,
                "y": 0,
                "yref": "paper",
                "yanchor": "top",
                "yshift": -58,
                "showarrow": False,  # a line of its own, under the axis
                "font": {"size": 11, "color": "#dc2626"},
            }
        )
    layout["annotations"], layout["shapes"] = annotations, shapes
    return FigureJSON(data, layout)


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
    figure.update_xaxes(**axis, tickangle=-90)
    figure.update_yaxes(**axis, autorange="reversed")
    for cell in range(layers + 1, rows * cols + 1):  # the grid's empty cells (L = 5, 7, …) draw no axes
        figure.update_layout({f"xaxis{cell}": dict(visible=False), f"yaxis{cell}": dict(visible=False)})
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


def mode_parameters_figure(config: AlbertConfig, lang: str = "en") -> go.Figure:
    """Total parameters of `config` under each of the four sharing modes."""
    totals = []
    for mode in SHARING_MODES:
        groups = (
            config.num_hidden_groups
            if (mode == "all" and config.sharing == "all")
            else (config.num_hidden_layers if mode == "none" else 1)
        )
        totals.append(count_parameters(config.replace(sharing=mode, num_hidden_groups=groups)).total)
    from app.calculator import millions

    figure = go.Figure(
        go.Bar(
            x=[t(f"sharing.short.{m}", lang) for m in SHARING_MODES],
            y=totals,
            marker_color=[MODE_COLORS[m] for m in SHARING_MODES],
            text=[millions(v) for v in totals],
            textposition="auto",
            hovertemplate="%{x}: %{y:,}<extra></extra>",
        )
    )
    figure.update_layout(
        **base_layout(title=t("sharing.params.title", lang), yaxis=dict(title=t("calc.axis.parameters", lang)))
    )
    return figure


def curves_figure(runs: Mapping[str, pd.DataFrame], column: str, lang: str = "en") -> go.Figure:
    """A recorded metric against training tokens, one line per run (held-out split when present); a seed repeat
    is dashed in the colour of its first run."""
    figure = go.Figure()
    lengths = []
    first_runs = list(dict.fromkeys(SEED_REPEAT.sub("", name) for name in runs))
    for name, frame in runs.items():
        if column not in frame or "tokens" not in frame:
            continue
        rows = frame
        if "split" in frame:
            held_out = frame[frame["split"].astype(str).isin(["valid", "validation", "val", "eval", "test"])]
            rows = held_out if len(held_out) else frame
        rows = rows.dropna(subset=[column])
        rows = rows[rows["tokens"] > 0]
        if len(rows):
            lengths.append(float(rows["tokens"].max()))
        figure.add_scatter(
            x=rows["tokens"],
            y=rows[column],
            mode="lines+markers",
            name=plot_text(name),
            line=dict(
                color=PALETTE[first_runs.index(SEED_REPEAT.sub("", name)) % len(PALETTE)],
                dash="dash" if SEED_REPEAT.search(name) else "solid",
            ),
            marker=dict(size=4),
        )
    # Runs of very different lengths (a long default next to short ablations) share one readable
    # axis only on a log scale; otherwise the short runs crowd the left edge.
    log_scale = len(lengths) > 1 and max(lengths) > LOG_AXIS_SPAN * min(lengths)
    axis_title = t("runs.tokens.log" if log_scale else "runs.tokens", lang)
    figure.update_layout(
        **base_layout(
            title=t(f"runs.{column}", lang),
            xaxis=dict(title=axis_title, type="log" if log_scale else "linear"),
            legend=dict(orientation="h", y=-0.25),
        )
    )
    return figure


def summary_figure(summary: pd.DataFrame, lang: str = "en") -> go.Figure:
    """Final held-out figures of every run, grouped bars with their 95% intervals when recorded: MLM, prefers the
    true order and prefers the real next (each pair asked both ways); chance drawn at 50%."""
    figure = go.Figure()
    for i, key in enumerate(("mlm", "order", "topic")):
        column = f"{key}_accuracy"
        if column not in summary:
            continue
        values = pd.to_numeric(summary[column], errors="coerce")
        error = None
        if f"{key}_low" in summary and f"{key}_high" in summary:
            low, high = (pd.to_numeric(summary[f"{key}_{b}"], errors="coerce") for b in ("low", "high"))
            error = dict(
                type="data",
                array=(high - values).fillna(0),
                arrayminus=(values - low).fillna(0),
                thickness=1.2,
                width=3,
            )
        figure.add_bar(
            x=[plot_text(str(r)) for r in summary["run"]],
            y=values,
            name=t(f"runs.{column}", lang),
            marker_color=PALETTE[i],
            error_y=error,
            text=[f"{v:.1%}" if pd.notna(v) else "" for v in values],
            textposition="outside",
            cliponaxis=False,
        )
    figure.add_hline(
        y=0.5,
        line_dash="dot",
        line_color="#888",
        annotation_text=t("runs.chance", lang),
        annotation_position="top left",
    )
    figure.update_layout(
        **base_layout(
            barmode="group",
            title=t("runs.summary.title", lang),
            yaxis=dict(tickformat=".0%", range=[0, 1]),
            legend=dict(orientation="h", y=-0.2),
        )
    )
    return figure
