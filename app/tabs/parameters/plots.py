"""The *Parameters* tab's figures: embedding and sharing variants, the size sweep, measured speed."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from albert.core.config import SHARING_MODES
from albert.core.params import count_parameters, without_factorization, without_sharing
from app.i18n import t
from app.page.plots import MODE_COLORS, FigureJSON, base_layout, plot_text, tick_names
from app.tabs.parameters.calculator import Calculation, paper_sweep_points, sweep


# ----- calculator -----------------------------------------------------------------------------
def variants_figure(calc: Calculation, lang: str = "en") -> FigureJSON:
    """Stacked bars (embeddings / layers / heads) of this model and its unfactorized / unshared twins (plain JSON:
    the calculator draws it on every change of the form)."""
    config = calc.config
    plain = without_factorization(config)
    variants = [
        ("calc.chart.this", config),
        ("calc.chart.no_fact", plain),
        ("calc.chart.no_share", without_sharing(config)),
        ("calc.chart.neither", without_sharing(plain)),
    ]
    names = tick_names([t(key, lang) for key, _ in variants], lang)
    counts = [count_parameters(c) for _, c in variants]
    data: list[dict[str, Any]] = []
    for label, attr, color in (
        ("comp.token_embeddings", "embeddings", "#a5b4fc"),
        ("comp.attention", "attention", "#4f46e5"),
        ("comp.ffn", "ffn", "#d97706"),
        ("comp.pooler", "heads", "#9ca3af"),
    ):
        values = [
            getattr(c, attr)
            + (c.attention_layer_norms if attr == "attention" else 0)
            + (c.ffn_layer_norms if attr == "ffn" else 0)
            for c in counts
        ]
        name = t("calc.legend.embeddings", lang) if attr == "embeddings" else t(label, lang)
        data.append(
            {
                "type": "bar",
                "x": names,
                "y": values,
                "name": name,
                "marker": {"color": color},
                "hovertemplate": "%{x}<br>" + plot_text(name) + ": %{y:,}<extra></extra>",
            }
        )
    totals = [c.total for c in counts]
    data.append(
        {
            "type": "scatter",
            "x": names,
            "y": totals,
            "mode": "text",
            "text": [_short(v) for v in totals],
            "textposition": "top center",
            "showlegend": False,
            "hoverinfo": "skip",
        }
    )
    layout = base_layout(
        barmode="stack",
        title=t("calc.chart.variants", lang),
        height=420,
        yaxis=dict(title={"text": t("calc.axis.parameters", lang)}, range=[0, max(totals) * 1.15]),
        xaxis=dict(tickangle=0),  # upright, on their short lines: turned, the last one ran off a phone's screen
        legend=dict(orientation="h", y=-0.2),
    )
    return FigureJSON(data, layout)


def sweep_figure(calc: Calculation, lang: str = "en") -> FigureJSON:
    """Total parameters against E, one line per sharing mode; the paper's points when they apply (plain JSON, as
    `variants_figure`)."""
    points = sweep(calc.config)
    data: list[dict[str, Any]] = []
    for mode in SHARING_MODES:
        rows = [p for p in points if p["sharing"] == mode]
        data.append(
            {
                "type": "scatter",
                "x": [p["embedding_size"] for p in rows],
                "y": [p["total"] for p in rows],
                "mode": "lines+markers",
                "name": t(f"sharing.{mode}", lang),
                "line": {"color": MODE_COLORS[mode]},
                "hovertemplate": "E=%{x}<br>%{y:,}<extra></extra>",
            }
        )
    paper = paper_sweep_points(calc.config)
    if paper:
        data.append(
            {
                "type": "scatter",
                "x": [p["embedding_size"] for p in paper],
                "y": [p["total"] for p in paper],
                "mode": "markers",
                "name": t("calc.paper_points", lang),
                "marker": {"symbol": "x", "size": 10, "color": [MODE_COLORS[p["sharing"]] for p in paper]},
                "hovertemplate": "E=%{x}<br>%{y:,.0f}<extra></extra>",
            }
        )
    sizes = sorted({p["embedding_size"] for p in points})
    ticks = [sizes[0]]  # a tick at least ×3 from the last: labels apart on a 390 px phone's log axis
    for size in sizes[1:]:
        if size >= 3 * ticks[-1]:
            ticks.append(size)
    layout = base_layout(
        title=t("calc.sweep", lang),
        height=420,
        xaxis=dict(
            title={"text": t("calc.axis.embedding", lang)}, type="log", tickvals=ticks, ticktext=[str(e) for e in ticks]
        ),
        yaxis=dict(title={"text": t("calc.axis.parameters", lang)}),
        legend=dict(orientation="h", y=-0.3),
        margin=dict(l=60, r=20, t=50, b=40),
        shapes=[_vertical_line(calc.config.embedding_size)],
    )
    return FigureJSON(data, layout)


def _vertical_line(x: float) -> dict[str, Any]:
    """A dotted grey line at `x` across the plot's height (what plotly's `add_vline` writes)."""
    return {
        "type": "line",
        "x0": x,
        "x1": x,
        "xref": "x",
        "y0": 0,
        "y1": 1,
        "yref": "y domain",
        "line": {"dash": "dot", "color": "#9ca3af"},
    }


def _short(n: float) -> str:
    from app.numbers import millions

    return millions(n)


def measure_figure(result: dict[str, Any], lang: str = "en") -> go.Figure:
    """Per sharing mode: parameters and measured forward time (median, whiskers min–max over the rounds), both
    relative to no sharing (= 1)."""
    modes = [row["sharing"] for row in result["modes"]]
    names = tick_names([t(f"sharing.short.{mode}", lang) for mode in modes], lang)  # as the Sharing tab's chart
    figure = go.Figure()
    for key, label, color in (
        ("parameters_vs_none", "compute.chart.parameters", "#a5b4fc"),
        ("time_vs_none", "compute.chart.time", "#d97706"),
    ):
        values = [row[key] for row in result["modes"]]
        spread = None
        if key == "time_vs_none":  # the range over the interleaved rounds, around the median
            spread = dict(
                type="data",
                array=[row["time_vs_none_max"] - row["time_vs_none"] for row in result["modes"]],
                arrayminus=[row["time_vs_none"] - row["time_vs_none_min"] for row in result["modes"]],
                color="#78350f",
                thickness=1.5,
            )
        figure.add_bar(
            x=names,
            y=values,
            name=t(label, lang),
            marker_color=color,
            error_y=spread,
            text=[f"{v:.2f}" for v in values],
            textposition="outside",
            hovertemplate="%{x}: %{y:.2f}<extra></extra>",
        )
    top = max(max(row["time_vs_none_max"], row["parameters_vs_none"]) for row in result["modes"])
    figure.add_hline(y=1, line_dash="dot", line_color="#9ca3af")
    figure.update_layout(
        **base_layout(
            barmode="group",
            title=t("compute.chart.title", lang),
            height=360,
            yaxis=dict(title=t("compute.axis.relative", lang), range=[0, top * 1.2]),
            xaxis=dict(tickangle=0),  # the mode names upright, on their short lines
            legend=dict(orientation="h", y=-0.2),
        )
    )
    return figure
