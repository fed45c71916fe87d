"""What every model tab's event shares: the guard that turns bad input and missing models into one sentence (never
a traceback), the message block, the one-line description of a model, and how a compared model is picked and named.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from app import inputs
from app.i18n import mode_name, normalize_lang, safe, t
from app.inference import InputError
from app.models import (
    AUTO_MODEL,
    FAIR_PAIRS,
    LoadedModel,
    ModelError,
    budget,
    fair_comparison,
    shipped_metrics,
)
from app.numbers import count_words

logger = logging.getLogger(__name__)
A = TypeVar("A", bound=tuple)
"""An event's named outputs (a NamedTuple)."""
MAX_HEAD_CHOICE = 64
"""The heatmap head slider's range; a model with fewer heads shows its last one."""


def status_markdown(messages: list[str], error: bool = False) -> str:
    """Messages as a short Markdown block (a warning sign for errors). Never includes raw user text."""
    if not messages:
        return ""
    sign = "⚠️ " if error else "ℹ️ "
    return "\n\n".join(sign + m for m in messages)


# ----- parameter calculator ---------------------------------------------------------------------
def guarded(answer: type[A], error_result: Callable[[str, type[A]], A] | None = None) -> Callable:
    """Turn InputError / ModelError into a message among the event's outputs; log anything else.

    `answer` is the event's named outputs (a NamedTuple class such as `app.tabs.masked.views.MaskAnswer`; Gradio
    receives its fields in order). A refusal is `error_result(message, answer)` (by default `error_outputs`). The
    work runs under the per-request time limit (`app.models.budget`); a request past it answers with that sentence.
    Bad input is logged at most as one line, never with a traceback.
    """

    def decorate(fn: Callable) -> Callable:
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> tuple:
            try:  # the `lang` argument wherever it is (/sentence_order takes the other book's segment after it)
                lang = inputs.language(signature.bind_partial(*args, **kwargs).arguments.get("lang", "en"))
            except TypeError:
                lang = "en"
            try:
                with budget.deadline(lang=lang):
                    return fn(*args, **kwargs)
            except (InputError, ModelError) as error:
                message = str(error)
                logger.info("%s: refused: %s", fn.__name__, message[:200])
            except MemoryError:
                logger.warning("%s ran out of memory", fn.__name__)
                message = t("request.err.memory", lang)
            except Exception:  # a bug, not bad input: keep the details in the log, not on screen
                logger.exception("%s failed", fn.__name__)
                message = t("common.err.unexpected", lang)
            return (error_result or error_outputs)(message, answer)

        return wrapper

    return decorate


def error_outputs(message: str, answer: type[A]) -> A:
    """An event's named outputs (`answer`, a NamedTuple class) for a refusal: the JSON result {"error": …}, the message
    as its status line, empty values for the rest."""
    empty = [None] * (len(answer._fields) - 2)
    return answer._make(({"error": message}, status_markdown([message], error=True), *empty))


def model_line(lm: LoadedModel, lang: str, metrics: bool = True) -> str:
    """'Model: albert-lab-base · sharing all · 12 passes · held-out MLM 18.8%, SOP 51.0%' (without the held-out
    figures when `metrics` is False: the framing line beside a prediction gives them with chance)."""
    c = lm.config
    text = t(
        "model.line",
        lang,
        name=safe(lm.name),
        sharing=mode_name(c.sharing, lang),
        L=c.num_hidden_layers,
        H=c.hidden_size,
        E=c.embedding_size,
        V=f"{c.vocab_size:,}",
    )
    if not metrics:
        return text
    metrics = lm.metrics or {}
    mlm, order = metrics.get("mlm_accuracy"), metrics.get("order_accuracy")
    if isinstance(mlm, (int, float)) and isinstance(order, (int, float)):
        text += t("model.metrics", lang, mlm=f"{mlm:.1%}", order=f"{order:.1%}")
    return text


def series(lm: LoadedModel, lang: str | None = None) -> str:
    """'albert-lab-base (all)': a model's key in the JSON results (the sharing mode as the API names it), or with
    `lang` its name in a chart's legend ('albert-lab-base (全部共享（ALBERT）)' in 中文)."""
    return f"{lm.name} ({lm.config.sharing if lang is None else mode_name(lm.config.sharing, lang)})"


def compare_choices(lm: LoadedModel, compare_model: str | None, lang: str = "en") -> tuple[list[str], list[str]]:
    """The models to compare `lm` with, and the sentence that says why: the one picked; else, with "automatic" (or
    nothing) picked, `lm`'s like-for-like twin, or its language's like-for-like pair (`app.models.fair_comparison`),
    named in a sentence (their training tokens, and that they are not `lm`), so a difference reads as sharing's."""
    choice = (compare_model or "").strip()
    if choice and choice != AUTO_MODEL:
        return ([choice] if choice != lm.name else []), []
    names = fair_comparison(lm.name)
    pair = next((p for p in FAIR_PAIRS.values() if set(p) <= {lm.name, *names} and len(names) == 2), None)
    if pair is None:
        return names, []
    tokens = (shipped_metrics(pair[0]) or {}).get("tokens")
    read = count_words(tokens, normalize_lang(lang)) if isinstance(tokens, (int, float)) else "?"
    return names, [t("compare.pair", lang, shared=pair[0], alone=pair[1], tokens=read, model=safe(lm.name))]
