"""The *Sentence order* tab's side-by-side: one pair shown to an SOP model and to an NSP model (issue 30, item 4).

Each model is asked three things about the same text: A → B (the true order), B → A (swapped) and A followed by
"B from another book" (a segment of another held-out document). An SOP model that reads order puts A → B above
B → A; an NSP model reads topic: it says "next" to both real orders and "not next" to the other book. That is the
paper's Table 5 argument (an NSP-trained ALBERT-base scores 52.0% on SOP), live on our own models.

Pure functions and Markdown / chart builders only: the event functions are in `app.tabs.order.views`, which loads the
models and decides each column's reading (`order_reading`). The "other book" segments are a small shipped list per
language (`OTHERS_PATH`), written by `python -m scripts.choose_examples --others` from held-out text with
`albert.data.sentence_order.order_pairs` (the `other` of each pair), and drawn at random per click.
"""

from __future__ import annotations

import json
import logging
import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from app import paper, settings
from app.i18n import normalize_lang, safe, t
from app.inference import SentenceOrderResult
from app.inputs import InputError
from app.models import (
    CHINESE_MODELS,
    DEFAULT_MODEL,
    NSP_MODELS,
    REPO_ROOT,
    ZH_MODEL,
    LoadedModel,
    language_models,
    shipped_metrics,
    shipped_models,
)
from app.page.plots import PALETTE, FigureJSON, base_layout, plot_text

logger = logging.getLogger(__name__)
OTHERS_PATH = REPO_ROOT / "assets" / "sentence_order" / "other-books.json"
"""{"en": [segment, …], "zh": [segment, …]}: held-out segments for the "B from another book" button."""
ROLES = ("sop", "nsp")
"""The two columns, left to right."""
_rng = random.Random()


# ----- B from another book ------------------------------------------------------------------------
@lru_cache(maxsize=4)
def _read_segments(path: Path) -> dict[str, tuple[str, ...]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        logger.warning("no segments of other books at %s: %s", path, error)
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        lang: tuple(s for s in segments if isinstance(s, str) and s.strip())
        for lang, segments in data.items()
        if isinstance(segments, list)
    }


def others_path() -> Path:
    """Where the segments of other books are read (`ALBERT_LAB_ORDER_OTHERS` overrides `OTHERS_PATH`)."""
    override = settings.ORDER_OTHERS.read()  # tests point it at segments their tiny models read
    return Path(override) if override else OTHERS_PATH


def other_segments(lang: str, path: Path | None = None) -> tuple[str, ...]:
    """The shipped segments of other books in `lang` ('en' or 'zh'); () when none are shipped."""
    return _read_segments(path or others_path()).get(normalize_lang(lang), ())


def draw_other(lang: str, current: Any = "", rng: random.Random | None = None, path: Path | None = None) -> str:
    """A segment of another book in `lang`, at random, never the one already in the box (when there is a choice)."""
    pool = other_segments(lang, path)
    if not pool:
        raise InputError(t("order.err.no_others", lang, language=t(f"order.lang.{normalize_lang(lang)}", lang)))
    choices = [s for s in pool if s != current] or list(pool)
    return (rng or _rng).choice(choices)


# ----- the two columns ----------------------------------------------------------------------------
def pair_language(lm: LoadedModel, text: str, lang: str) -> str:
    """The language of the pair's models: Chinese for a Chinese model, else the text's own (`text_language`)."""
    from app.models.languages import text_language

    return "zh" if lm.name in CHINESE_MODELS else text_language(text, lang)


def partner(lm: LoadedModel, language: str) -> tuple[str, str]:
    """(role, name) of the model shown beside `lm`: the language's NSP arm beside an SOP model, the language's
    default SOP model beside an NSP one. The name is returned whether or not that model is shipped."""
    if lm.config.sentence_objective == "nsp":
        return "sop", language_models()[language] or (ZH_MODEL if language == "zh" else DEFAULT_MODEL)
    return "nsp", NSP_MODELS[language]


def is_shipped(name: str) -> bool:
    return name in shipped_models()


@dataclass(frozen=True)
class Column:
    """What one model answered about the pair, or why it could not."""

    role: str
    """'sop' or 'nsp': the objective the model was trained with (the column it fills)."""
    model: str
    result: SentenceOrderResult | None = None
    reading: str | None = None
    """`app.tabs.order.views.order_reading` of A → B against B → A."""
    topic: str | None = None
    """The same reading of A → B against A → other book: 'prefers_ab' means it prefers the real B."""
    error: str | None = None
    """One sentence when the model is not shipped or cannot read the pair."""

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {"model": self.model, "role": self.role}
        if self.error is not None:
            return found | {"error": self.error}
        assert self.result is not None
        return found | self.result.as_dict() | {"reading": self.reading, "topic_reading": self.topic}


def missing_sentence(role: str, name: str, language: str, lang: str) -> str:
    """ "No Chinese NSP model is shipped …": the sentence an empty column shows."""
    return t(
        "order.missing",
        lang,
        language=t(f"order.lang.{language}", lang),
        objective=role.upper(),
        name=safe(name),
    )


# ----- Markdown and chart -------------------------------------------------------------------------
def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _cells(column: Column | None) -> list[str]:
    """The column's three probabilities: A → B, B → A, A → other book ("—" where there is none)."""
    if column is None or column.result is None:
        return ["—"] * 3
    r = column.result
    return [_percent(r.in_order_ab), _percent(r.in_order_ba), _percent(r.with_other)]


def comparison_markdown(columns: dict[str, Column], lang: str = "en") -> str:
    """The side-by-side table (rows: the three pairs and the two readings; columns: SOP, NSP) and the sentences
    of an empty column, in `lang`."""
    header = [t("order.col.pair", lang), *(t(f"order.col.{role}", lang) for role in ROLES)]
    rows = [[t("order.ab", lang)], [t("order.ba", lang)], [t("order.ao", lang)]]
    readings = [[t("order.row.order", lang)], [t("order.row.topic", lang)]]
    for role in ROLES:
        column = columns.get(role)
        for row, cell in zip(rows, _cells(column), strict=True):
            row.append(cell)
        ok = column is not None and column.result is not None
        readings[0].append(t(f"order.cell.{column.reading}", lang) if ok and column.reading else "—")
        topic = column.topic if ok else None
        readings[1].append(t(f"order.cell.topic.{topic}", lang) if topic else "—")
    lines = ["| " + " | ".join(header) + " |", "|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in [*rows, *readings]]
    names = t(
        "order.names",
        lang,
        sop=safe(columns["sop"].model) if "sop" in columns else "—",
        nsp=safe(columns["nsp"].model) if "nsp" in columns else "—",
    )
    parts = [t("order.table.title", lang), "\n".join(lines), names]
    parts += [f"ℹ️ {c.error}" for c in columns.values() if c.error]
    if any(c.result is not None and c.result.with_other is None for c in columns.values()):
        parts.append(t("order.no_other", lang))
    return "\n\n".join(parts)


def comparison_figure(columns: dict[str, Column], lang: str = "en") -> FigureJSON:
    """Grouped bars: P(yes) of each model for A → B, B → A and A → other book, with chance (50%) dashed."""
    rows = [t("order.ab", lang), t("order.ba", lang), t("order.ao", lang)]
    data = []
    for role, color in zip(ROLES, PALETTE, strict=False):
        column = columns.get(role)
        if column is None or column.result is None:
            continue
        r = column.result
        values = [r.in_order_ab, r.in_order_ba, r.with_other]
        data.append(
            {
                "type": "bar",
                "x": rows,
                "y": values,
                "name": plot_text(f"{t(f'order.col.{role}', lang)}: {column.model}"),
                "marker": {"color": color},
                "text": [_percent(v) for v in values],
                "textposition": "auto",
            }
        )
    layout = base_layout(
        barmode="group",
        title=t("order.chart.title", lang),
        yaxis=dict(tickformat=".0%", range=[0, 1], title=t("order.chart.axis", lang)),
        legend=dict(orientation="h", y=-0.2),
        margin=dict(l=60, r=10, t=50, b=80),
        shapes=[
            {
                "type": "line",
                "xref": "paper",
                "x0": 0,
                "x1": 1,
                "y0": 0.5,
                "y1": 0.5,
                "line": {"dash": "dot", "color": "#dc2626"},
            }
        ],
    )
    return FigureJSON(data, layout)


# ----- beside it: Table 5 and why order is hard ----------------------------------------------------
def table5_markdown(lang: str = "en") -> str:
    """The paper's Table 5, intrinsic columns (ALBERT-base: None, NSP, SOP rows, from `app.paper.TABLE5`), and
    the plain sentence for students on why order needs both sentences read together."""
    header = [t("order.table5.trained", lang), "MLM", "NSP", "SOP"]  # short: four columns fit a phone
    rows = []
    for objective in ("none", "nsp", "sop"):
        intrinsic = paper.TABLE5[objective][0]
        sop = f"**{intrinsic.sop}**" if objective == "nsp" else f"{intrinsic.sop}"
        rows.append([t(f"paper.objective.{objective}", lang), f"{intrinsic.mlm}", f"{intrinsic.nsp}", sop])
    table = "\n".join(
        ["| " + " | ".join(header) + " |", "|---|---|---|---|", *("| " + " | ".join(row) + " |" for row in rows)]
    )
    return "\n\n".join(
        [
            t("order.table5.title", lang, cite=t("paper.cite", lang)),
            table,
            t(
                "order.table5.read",
                lang,
                nsp_sop=paper.TABLE5["nsp"][0].sop,
                sop_nsp=paper.TABLE5["sop"][0].nsp,
            ),
            t("order.lesson", lang, nsp=nsp_as_measured(lang)),
        ]
    )


def nsp_as_measured(lang: str = "en") -> str:
    """The language's NSP arm as its metrics.json measured it: topic and order, and the same recipe's second seed
    where one is shipped ("" when the arm is not shipped): never "NSP only tells topic" beside 56.9% on order."""
    from app.page.framing import CHANCE, held_out, percent

    name = NSP_MODELS.get(normalize_lang(lang))
    metrics = shipped_metrics(name) if name else None
    topic, order = (held_out(metrics, key, CHANCE[key]) for key in ("topic", "order"))
    if topic is None or order is None:
        return ""

    def interval(h: Any) -> str:
        return f" [{100 * h.low:.1f}, {100 * h.high:.1f}]" if h.low is not None and h.high is not None else ""

    seed = ""
    twin = held_out(shipped_metrics(f"{name}-s1"), "order", CHANCE["order"])
    if twin is not None:
        same = twin.verdict == order.verdict
        seed = t(
            "order.lesson.seed_agrees" if same else "order.lesson.seed_differs",
            lang,
            name=safe(f"{name}-s1"),
            order=percent(twin.accuracy) + interval(twin),
        )
    return t(
        "order.lesson.nsp",
        lang,
        name=safe(name),
        topic=percent(topic.accuracy),
        order=percent(order.accuracy) + interval(order),
        verdict=t(f"frame.verdict.{order.verdict}", lang),
        seed=seed,
    )
