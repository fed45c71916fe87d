"""The *Sharing modes* tab's events: /sharing_modes and /layer_transitions."""

from __future__ import annotations

import logging
from typing import Any, NamedTuple

import pandas as pd

from albert.core.config import PRESETS, AlbertConfig
from app import inference
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
from app.page import inputs
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
    """Cosine similarity per pass."""


@guarded(SharingAnswer)
def sharing_modes_view(config_choice: str | None = "", lang: str = "en") -> SharingAnswer:
    """/sharing_modes: (JSON, message, parameters per mode, MLM curves, SOP curves, final metrics, table)."""
    lang = inputs.language(lang)
    config = _config_of(inputs.name(config_choice, lang, "sharing.config"), lang)
    curves, summary = runs.load_curves(), runs.load_summary()
    notices = [] if curves or summary is not None else [t("runs.none", lang)]
    from albert.core.params import count_parameters

    per_mode = {
        mode: count_parameters(
            config.replace(sharing=mode, num_hidden_groups=(config.num_hidden_layers if mode == "none" else 1))
        ).total
        for mode in ("all", "attention", "ffn", "none")
    }
    raw = {
        "parameters_per_mode": per_mode,
        "runs": sorted(curves),
        "summary": summary.to_dict(orient="records") if summary is not None else [],
    }
    return SharingAnswer(
        result=raw,
        status=status_markdown(notices),
        parameters=mode_parameters_figure(config, lang),
        mlm_curves=curves_figure(curves, "mlm_accuracy", lang) if curves else empty_figure(t("runs.none", lang)),
        sop_curves=curves_figure(curves, "sop_accuracy", lang) if curves else empty_figure(t("runs.none", lang)),
        final_metrics=summary_figure(summary, lang) if summary is not None else empty_figure(t("runs.none", lang)),
        table=runs.summary_table(summary, lang) if summary is not None else pd.DataFrame(),
    )


@guarded(TransitionsAnswer)
def layer_transitions_view(
    text: str, model: str | None = "", compare_model: str | None = "", lang: str = "en"
) -> TransitionsAnswer:
    """/layer_transitions: (JSON, message, L2 distance per pass, cosine similarity per pass), shared vs not."""
    lang = inputs.language(lang)
    text = inputs.text(text, lang, "sharing.text")
    compare_model = inputs.name(compare_model, lang, "attention.compare")
    lm = load(model_for(model, text, lang), lang)
    models = [lm]
    others, why = compare_choices(lm, compare_model, lang)
    notices = []
    for other in others:
        try:
            models.append(load(other, lang))
        except ModelError as error:
            notices.append(str(error))
    if not others:
        notices.append(t("attention.no_twin", lang))
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
    ]
    raw = {name: {"l2": r.l2, "cosine": r.cosine, **r.unknown.as_dict()} for name, r in results.items()}
    l2 = lines_figure(
        {labels[name]: r.l2 for name, r in results.items()},
        t("sharing.l2.title", lang),
        t("sharing.axis.pass", lang),
        t("sharing.axis.l2", lang),
    )
    cosine = lines_figure(
        {labels[name]: r.cosine for name, r in results.items()},
        t("sharing.cos.title", lang),
        t("sharing.axis.pass", lang),
        t("sharing.axis.cosine", lang),
    )
    return TransitionsAnswer(result=raw, status=status_markdown(list(dict.fromkeys(notices))), l2=l2, cosine=cosine)
