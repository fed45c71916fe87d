"""The *Sharing modes* tab's events: /sharing_modes and /layer_transitions."""

from __future__ import annotations

import functools
import logging
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd

from albert.core.config import PRESETS, AlbertConfig
from app import inference, inputs
from app.i18n import safe, t
from app.inference import InputError
from app.models import (
    ModelError,
    load,
    model_for,
    runs,
    shipped_config,
    shipped_models,
)
from app.models.hub_picker import hub_choices
from app.page.plots import empty_figure, lines_figure
from app.page.results import (
    compare_choices,
    guarded,
    model_line,
    series,
    status_markdown,
)
from app.tabs.sharing.plots import curves_figure, mode_parameters_figure, summary_figure

logger = logging.getLogger(__name__)


# ----- sharing modes ------------------------------------------------------------------------------
def sharing_config_choices(lang: str = "en") -> list[tuple[str, str]]:
    shipped = [(t("preset.shipped", lang, name=name), f"model:{name}") for name in shipped_models()]
    return shipped + [(name, name) for name in PRESETS]


def _config_of(choice: str, lang: str = "en") -> AlbertConfig:
    """A preset or `model:<shipped name>`; empty means ALBERT-base, anything else is refused."""
    if choice.startswith("model:") and choice.removeprefix("model:") in shipped_models():
        config = shipped_config(choice.removeprefix("model:"))
        if config is not None:
            return config
    if not choice:
        return PRESETS["albert-base"]
    if choice not in PRESETS:
        raise InputError(
            t(
                "input.err.choice",
                lang,
                field=t("sharing.config", lang),
                value=safe(choice, 40),
                choices=", ".join([*PRESETS, *(f"model:{n}" for n in shipped_models())]),
            )
        )
    return PRESETS[choice]


class SharingAnswer(NamedTuple):
    """/sharing_modes' outputs, in the order the tab wires them."""

    result: Any
    """The JSON result: parameters per mode, the recorded runs, their summary (or {"error": …})."""
    status: Any
    """Notices (Markdown)."""
    parameters: Any
    """Parameters per sharing mode."""
    mlm_curves: Any
    """Recorded MLM accuracy curves."""
    sop_curves: Any
    """Recorded SOP accuracy curves."""
    final_metrics: Any
    """The runs' final metrics."""
    table: Any
    """The runs' summary table."""


class TransitionsAnswer(NamedTuple):
    """/layer_transitions' outputs, in the order the tab wires them."""

    result: Any
    """The JSON result: L2 distance and cosine similarity per pass, per model (or {"error": …})."""
    status: Any
    """The model lines and notices (Markdown)."""
    l2: Any
    """L2 distance per pass."""
    cosine: Any
    """The angle between each pass's input and output, in degrees (the paper's right panel; cosines in the JSON)."""


class RecordedRuns(NamedTuple):
    """What /sharing_modes draws from the recorded runs (`assets/runs`) in one language: the same for every user
    until the files change, so it is drawn once per language and signature (`recorded_runs`)."""

    names: list[str]
    summary: list[dict[str, Any]]
    notices: list[str]
    mlm_curves: Any
    sop_curves: Any
    final_metrics: Any
    table: pd.DataFrame


def recorded_runs(lang: str = "en") -> RecordedRuns:
    """The recorded runs' figures and table in `lang`, drawn again only when the files changed."""
    return _recorded_runs_of(lang, runs.runs_signature())


@functools.lru_cache(maxsize=8)
def _recorded_runs_of(lang: str, signature: tuple) -> RecordedRuns:
    root = Path(signature[0])
    curves, summary = runs.load_curves(root), runs.load_summary(root)
    none = t("runs.none", lang)
    return RecordedRuns(
        names=sorted(curves),
        summary=summary.to_dict(orient="records") if summary is not None else [],
        notices=[] if curves or summary is not None else [none],
        mlm_curves=curves_figure(curves, "mlm_accuracy", lang) if curves else empty_figure(none),
        sop_curves=curves_figure(curves, "sop_accuracy", lang) if curves else empty_figure(none),
        final_metrics=summary_figure(summary, lang) if summary is not None else empty_figure(none),
        table=runs.summary_table(summary, lang) if summary is not None else pd.DataFrame(),
    )


@guarded(SharingAnswer)
def sharing_modes_view(config: str | None = "", lang: str = "en") -> SharingAnswer:
    """/sharing_modes: (JSON, message, parameters per mode, MLM curves, SOP curves, final metrics, table)."""
    lang = inputs.language(lang)
    chosen = _config_of(inputs.name(config, lang, "sharing.config"), lang)
    recorded = recorded_runs(lang)
    from albert.core.params import count_parameters

    per_mode = {
        mode: count_parameters(
            chosen.replace(sharing=mode, num_hidden_groups=(chosen.num_hidden_layers if mode == "none" else 1))
        ).total
        for mode in ("all", "attention", "ffn", "none")
    }
    raw = {"parameters_per_mode": per_mode, "runs": recorded.names, "summary": recorded.summary}
    return SharingAnswer(
        result=raw,
        status=status_markdown(recorded.notices),
        parameters=mode_parameters_figure(chosen, lang),
        mlm_curves=recorded.mlm_curves,
        sop_curves=recorded.sop_curves,
        final_metrics=recorded.final_metrics,
        table=recorded.table,
    )


PAPER_PAIR = "paper"
"""The compare picker's value for the paper's own pair (`paper_pair`), whatever the model picker holds."""
PAPER_MODELS = ("google-bert/bert-large-uncased", "albert/albert-large-v2")
"""Lan et al., ICLR 2020, Figure 1 (Figure 2 in arXiv v1): BERT-large against ALBERT-large."""
OFFLINE_PAIR = ("albert-lab-none", "albert-lab-all")
"""Our own stand-ins: the not-shared arm (BERT's layout) against its all-shared twin."""


def compare_picker_entries(shipped: list[str], lang: str = "en") -> list[tuple[str, str]]:
    """The "compare with" picker's entries: the paper's pair first, then every shipped model, then the hub's."""
    return [(t("sharing.paper.choice", lang), PAPER_PAIR), *((name, name) for name in shipped), *hub_choices(lang)]


def paper_pair(lang: str = "en") -> tuple[tuple[str, str], str] | None:
    """(BERT, ALBERT) picker values to draw and the sentence that says which pair it is: the paper's BERT-large and
    ALBERT-large when both are cached or downloadable, else our not-shared and all-shared models; None when
    neither pair can be had."""
    from app.models import hub

    if all(hub.is_cached(name) for name in PAPER_MODELS) or hub.hub_reachable():
        bert, albert = PAPER_MODELS
        return PAPER_MODELS, t("sharing.paper.pair", lang, bert=bert, albert=albert)
    if all(name in shipped_models() for name in OFFLINE_PAIR):
        bert, albert = OFFLINE_PAIR
        return OFFLINE_PAIR, t("sharing.paper.offline", lang, bert=bert, albert=albert)
    return None


def _transition_models(text: str, model: str | None, compare: str, lang: str) -> tuple[list, list[str], list[str]]:
    """The loaded models to draw (the first always loads, or its one sentence is the answer), the notices, and the
    sentence that says why these are compared (the paper's pair, or a like-for-like twin or pair)."""
    pair = paper_pair(lang) if compare == PAPER_PAIR else None
    if pair is not None:
        (first, second), sentence = pair
        return [load(first, lang), load(second, lang)], [], [sentence]
    lm = load(model_for(model, text, lang), lang)
    others, why = compare_choices(lm, "" if compare == PAPER_PAIR else compare, lang)
    models, notices = [lm], []
    for other in others:
        try:
            models.append(load(other, lang))
        except ModelError as error:
            notices.append(str(error))
    if not others:
        notices.append(t("attention.no_twin", lang))
    return models, notices, why


@guarded(TransitionsAnswer)
def layer_transitions_view(
    text: str, model: str | None = "", compare: str | None = "", lang: str = "en"
) -> TransitionsAnswer:
    """/layer_transitions: (JSON, message, L2 distance per pass, angle per pass), shared vs not — or the paper's
    pair (compare "paper"): BERT-large against ALBERT-large, as Lan et al. (ICLR 2020) Figure 1 draws them."""
    lang = inputs.language(lang)
    text = inputs.text(text, lang, "sharing.text")
    compare = inputs.name(compare, lang, "attention.compare").strip()
    models, notices, why = _transition_models(text, model, compare, lang)
    lm = models[0]
    results = {series(lm): inference.layer_transitions(lm, text, lang)}
    labels = {series(m): series(m, lang) for m in models}
    for twin in models[1:]:
        try:  # a twin that cannot read the text (an English one for Chinese) is left out, with its sentence
            results[series(twin)] = inference.layer_transitions(twin, text, lang)
        except InputError as error:
            models.remove(twin)
            notices.append(str(error))
    why = why if len(models) > 1 else []
    notices = [
        *(model_line(m, lang) for m in models),
        *why,
        *notices,
        *(n for r in results.values() for n in r.notices),
        t("sharing.paper.note", lang),  # the figure cited beside the charts, and what the paper saw
    ]
    raw = {
        name: {"l2": r.l2, "cosine": r.cosine, "degrees": r.degrees, **r.unknown.as_dict()}
        for name, r in results.items()
    }
    l2 = lines_figure(
        {labels[name]: r.l2 for name, r in results.items()},
        t("sharing.l2.title", lang),
        t("sharing.axis.pass", lang),
        t("sharing.axis.l2", lang),
    )
    degrees = lines_figure(
        {labels[name]: r.degrees for name, r in results.items()},
        t("sharing.cos.title", lang),
        t("sharing.axis.pass", lang),
        t("sharing.axis.cosine", lang),
    )
    return TransitionsAnswer(result=raw, status=status_markdown(list(dict.fromkeys(notices))), l2=l2, cosine=degrees)
