"""The *Sharing modes* tab's figures: parameters per mode, training curves, final metrics."""

from __future__ import annotations

import re
from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go

from albert.core.config import SHARING_MODES, AlbertConfig
from albert.core.params import count_parameters
from app.i18n import t
from app.page.plots import MODE_COLORS, PALETTE, base_layout, legend_below, plot_text, tick_names, wrap_title

SEED_REPEAT = re.compile(r"-s\d+$")
"""A run named like `albert-lab-all-s1` repeats `albert-lab-all` with another seed: drawn in its colour, dashed."""
LOG_AXIS_SPAN = 10  # training curves use a log token axis when the longest run is this many times the shortest


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
    from app.numbers import millions

    figure = go.Figure(
        go.Bar(
            x=tick_names([t(f"sharing.short.{m}", lang) for m in SHARING_MODES], lang),
            y=totals,
            marker_color=[MODE_COLORS[m] for m in SHARING_MODES],
            text=[millions(v) for v in totals],
            textposition="auto",
            hovertemplate="%{x}: %{y:,}<extra></extra>",
        )
    )
    figure.update_layout(
        **base_layout(
            title=t("sharing.params.title", lang),
            xaxis=dict(tickangle=0),  # upright, on short lines: turned, 中文 names overlapped on a phone
            yaxis=dict(title=t("calc.axis.parameters", lang)),
        )
    )
    return figure


SHORTCUT_SOP_RUNS = frozenset({"albert-lab-base"})
"""Runs trained and scored on the old reference cut, whose SOP curve climbed on the truncation shortcut (which
segment was cut), not on order (docs/results/sentence-order.md): their SOP curve is labelled so, and dotted."""


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
        shortcut = column == "sop_accuracy" and name in SHORTCUT_SOP_RUNS
        figure.add_scatter(
            x=rows["tokens"],
            y=rows[column],
            mode="lines+markers",
            name="<br>".join(wrap_title(plot_text(t("runs.shortcut", lang, name=name) if shortcut else name), 36)),
            line=dict(
                color=PALETTE[first_runs.index(SEED_REPEAT.sub("", name)) % len(PALETTE)],
                dash="dot" if shortcut else "dash" if SEED_REPEAT.search(name) else "solid",
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
            **legend_below(len(figure.data)),
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
            # run names in full (automargin makes room for them), the legend in its own rows below them
            xaxis=dict(automargin=True, tickangle=-45),
            **legend_below(len(figure.data), height=440, under_axis_px=130),
        )
    )
    return figure
