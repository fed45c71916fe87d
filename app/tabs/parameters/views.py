"""The *Parameters* tab's events (/parameters, /preset): the pure calculator's results arranged as its outputs.

These functions are what the tab modules wire to events and what the API exposes; they
never raise for bad input: a problem becomes a one-sentence message among the outputs.
"""

from __future__ import annotations

import logging
from typing import Any, NamedTuple

import pandas as pd

from albert.core.config import PRESETS
from app import inputs
from app.i18n import safe, t
from app.inputs import InputError
from app.models import shipped_config, shipped_models
from app.page.plots import empty_figure
from app.page.results import status_markdown
from app.tabs.parameters import calculator
from app.tabs.parameters.calculator import CalculatorInputError
from app.tabs.parameters.plots import sweep_figure, variants_figure

logger = logging.getLogger(__name__)
MAX_PARAMETERS = 10**15
"""Largest count the calculator answers (a quadrillion): every number it returns then stays below 2^53,
exact in JSON and in the browser's JavaScript, far from a 64-bit overflow."""


class ParametersAnswer(NamedTuple):
    """/parameters' outputs, in the tab's order."""

    raw: dict[str, Any]
    status: str
    embedding: str
    """The embedding arithmetic, V×H against V×E + E×H."""
    totals: str
    table: pd.DataFrame
    variants: Any
    """The chart of the four variants (factorized or not, shared or not)."""
    sweep: Any
    """The chart of the total over E for the four sharing modes."""


def preset_choices(lang: str = "en") -> list[tuple[str, str]]:
    """The paper's presets, then the shipped models, then 'custom'."""
    choices = [(name, name) for name in calculator.PAPER_PRESETS]
    choices += [(t("preset.shipped", lang, name=name), f"model:{name}") for name in shipped_models()]
    return choices + [(t("preset.custom", lang), "custom")]


def preset_fields(preset: str) -> tuple | None:
    """Form values of a preset name or `model:<shipped name>`; None when unknown."""
    if preset in PRESETS:
        return calculator.preset_values(PRESETS[preset])
    if preset and preset.startswith("model:") and preset.removeprefix("model:") in shipped_models():
        config = shipped_config(preset.removeprefix("model:"))
        return calculator.preset_values(config) if config is not None else None
    return None


def parameters_view(
    vocab_size: float | None,
    embedding_size: float | None,
    hidden_size: float | None,
    num_hidden_layers: float | None,
    num_attention_heads: float | None,
    intermediate_size: float | None,
    sharing: str,
    num_hidden_groups: float | None,
    project_embeddings: bool,
    max_position_embeddings: float | None = 512,
    lang: str = "en",
) -> ParametersAnswer:
    """/parameters: the JSON result, a message, the embedding arithmetic, totals, table and two charts."""
    lang = inputs.language(lang)
    try:
        form = calculator.ParameterForm.sent(locals())
        calc = calculator.calculate(form, lang)
        largest = max(calc.total, calc.without_factorization, calc.without_sharing, calc.without_both)
        if largest > MAX_PARAMETERS:
            raise CalculatorInputError(t("calc.err.too_many", lang, n=f"{largest:,}", limit=f"{MAX_PARAMETERS:,}"))
    except (CalculatorInputError, InputError) as error:
        return _error_result(str(error))
    return ParametersAnswer(
        calc.as_dict(),
        status_markdown(calc.notes),
        calculator.embedding_markdown(calc, lang),
        calculator.totals_markdown(calc, lang),
        calculator.component_table(calc, lang),
        variants_figure(calc, lang),
        sweep_figure(calc, lang),
    )


FORM_FIELDS = len(calculator.ParameterForm.__dataclass_fields__)


def preset_view(preset: str, lang: str = "en") -> tuple:
    """/preset: the form's ten fields filled from a preset, followed by `ParametersAnswer`."""
    import gradio as gr

    lang = inputs.language(lang)
    keep = (gr.skip(),) * FORM_FIELDS
    try:
        preset = inputs.name(preset, lang, "field.preset")
    except InputError as error:
        return (*keep, *_error_result(str(error)))
    if preset == "custom":  # keep the form, say nothing new
        return (*keep, *ParametersAnswer._make([gr.skip()] * len(ParametersAnswer._fields)))
    fields = preset_fields(preset)
    if fields is None:
        message = t(
            "input.err.choice",
            lang,
            field=t("field.preset", lang),
            value=safe(preset, 40),
            choices=", ".join(value for _, value in preset_choices(lang)),
        )
        return (*keep, *_error_result(message))
    return (*fields, *parameters_view(*fields, lang=lang))


def _error_result(message: str) -> ParametersAnswer:
    """/parameters' outputs for a refused input."""
    return ParametersAnswer(
        {"error": message},
        status_markdown([message], error=True),
        "",
        "",
        pd.DataFrame(),
        empty_figure(message),
        empty_figure(),
    )
