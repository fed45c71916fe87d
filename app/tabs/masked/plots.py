"""The *Masked words* tab's figure: the top-k bars, one panel per [MASK]."""

from __future__ import annotations

from app.i18n import t
from app.inference import WORD_START, FillMaskResult
from app.page.plots import PALETTE, FigureJSON, base_layout, plot_text, wrap_title

_MASK_ROWS_SHOWN = 8  # more masks than this: the figure shows the first ones, the JSON has all

BAR_PX, PANEL_TITLE_PX, PANEL_GAP_PX, TOP_PX, BOTTOM_PX = 22, 26, 14, 56, 84
"""Pixel sizes of the top-k chart: a bar, the title row above each [MASK]'s panel, the gap between panels, the
figure's title and the shared axis below the last panel (tick labels and the chance note)."""
AXIS_TITLE_UNITS, AXIS_LINE_PX = 30, 16
"""The axis title's line holds at most this many units (`wrap_title`): a phone's plot is ~200 px wide here."""


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


def topk_figure(
    result: FillMaskResult,
    lang: str = "en",
    vocab_size: int | None = None,
    counts: list[list[int | None]] | None = None,
) -> FigureJSON:
    """Horizontal bars of the top-k tokens, one panel per [MASK] (first ones only when there are many).

    With `counts` (each guess's count in the training text, `app.tabs.masked.counts`) each bar's label also says
    how often the training text held that guess ("2.8% · 6,783×"); "—" where a count is unknown.

    All panels share one 0–100% probability axis, so a 5% bar is a fifth as long as a 25% one in every panel,
    and a dotted line marks chance, 1/V (a guess among the V tokens of the vocabulary)."""
    shown = result.predictions[:_MASK_ROWS_SHOWN]
    k = max(len(p.candidates) for p in shown)
    height, domains = topk_panels(len(shown), k)
    axis_title = wrap_title(t("mask.axis", lang), AXIS_TITLE_UNITS)
    below = AXIS_LINE_PX * (len(axis_title) - 1)  # a second line of the axis title pushes the chance note down
    layout = base_layout(
        title=t("mask.chart", lang), height=height + below, margin=dict(l=110, r=20, t=TOP_PX, b=BOTTOM_PX + below)
    )
    data, annotations, shapes = [], [], []
    for row, (prediction, (low, high)) in enumerate(zip(shown, domains, strict=True)):
        suffix = "" if row == 0 else str(row + 1)
        # Category labels must be unique: two pieces can read alike ('▁the' and 'the').
        labels, seen = [], set()
        for token, _ in prediction.candidates:
            label = plot_text(t("token.word_start", lang) if token == WORD_START else token)
            while label in seen:
                label += "\u200b"
            seen.add(label)
            labels.append(label)
        values = [prob for _, prob in prediction.candidates]
        texts = [f"{v:.1%}" for v in values]
        if counts is not None:
            seen_counts = counts[row] if row < len(counts) else []
            texts = [
                t("mask.bar.count", lang, p=text, n="—" if n is None else f"{n:,}")
                for text, n in zip(texts, [*seen_counts, *[None] * len(texts)], strict=False)
            ]
        data.append(
            {
                "type": "bar",
                "orientation": "h",
                "x": values[::-1],
                "y": labels[::-1],
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
                "marker": {"color": PALETTE[0]},
                "text": texts[::-1],
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
            **({"title": {"text": "<br>".join(axis_title)}} if last else {}),
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
                "yshift": -58 - below,
                "showarrow": False,  # a line of its own, under the axis
                "font": {"size": 11, "color": "#dc2626"},
            }
        )
    layout["annotations"], layout["shapes"] = annotations, shapes
    return FigureJSON(data, layout)
