"""Event functions of the model tabs (/fill_mask, /sentence_order, /attention, /sharing_modes, …).

Each loads the picked model (cached), calls the pure functions of `app.inference`, and lays the
result out as the tab's outputs: a JSON result for API users first, then a message, then the
views. No exception escapes: bad input and missing models become one clear sentence, and
anything unexpected is logged and reported as a short apology, never a traceback.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any

import gradio as gr
import pandas as pd

from albert.core.config import PRESETS, AlbertConfig
from app import attention_view as bv
from app import budget, framing, inference, inputs, model_plots, order_views, runs
from app.i18n import mode_name, safe, t
from app.inference import InputError
from app.languages import text_language
from app.models import (
    CHINESE_MODELS,
    LoadedModel,
    ModelError,
    comparison_model,
    load,
    model_for,
    shipped_config,
    shipped_models,
)
from app.order_views import Column
from app.plots import empty_figure
from app.views import status_markdown

logger = logging.getLogger(__name__)
MAX_HEAD_CHOICE = 64
"""The heatmap head slider's range; a model with fewer heads shows its last one."""


def guarded(outputs: int, error_result: Callable[[str, int], tuple] | None = None) -> Callable:
    """Turn InputError / ModelError into a message among `outputs` outputs; log anything else.

    The work runs under the per-request time limit (`app.budget`); a request past it answers with
    that sentence. Bad input is logged at most as one line, never with a traceback.
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
            make = error_result or _error_outputs
            return make(message, outputs)

        return wrapper

    return decorate


def _error_outputs(message: str, outputs: int) -> tuple:
    """({"error": …}, message, then empty values for the remaining outputs)."""
    return ({"error": message}, status_markdown([message], error=True), *([None] * (outputs - 2)))


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


# ----- masked words ---------------------------------------------------------------------------
def _word_list(words: list[tuple[str, int]]) -> dict[str, Any]:
    """The "pick a word" radio holding `words` (those of the text in the box), none picked."""
    return gr.update(choices=words, value=None)


def _mask_refusal(message: str, outputs: int) -> tuple:
    """A refusal of /fill_mask: the sentence, and no word to pick (the list of the previous text goes too)."""
    return (*_error_outputs(message, outputs - 1), _word_list([]))


@guarded(outputs=5, error_result=_mask_refusal)
def fill_mask_view(text: str, top_k: float = 5, model: str | None = "", lang: str = "en") -> tuple:
    """/fill_mask: (JSON, message, filled sentence, top-k chart, words to pick from).

    The words are always the text's own: with a prediction, and with a refusal that asks for a [MASK] ("or pick a
    word to mask"); none when the model cannot read the text (the `<unk>` guard) or the text is not one."""
    lang = inputs.language(lang)
    text = inputs.text(text, lang, "mask.text")
    top_k = inputs.whole(top_k, lang, "mask.top_k", 1, inference.MAX_TOP_K, default=5)
    lm = load(model_for(model, text, lang), lang)
    cleaned = inference.clean_text(text, lang)[0]
    inference.readable(lm, [cleaned], lang)  # the guard first: a text the model cannot read offers no word
    words = inference.word_choices(cleaned)
    try:
        result = inference.fill_mask(lm, text, top_k, lang)
    except InputError as error:
        logger.info("fill_mask_view: refused: %s", str(error)[:200])
        return (*_error_outputs(str(error), 4), _word_list(words))
    return (
        result.as_dict() | {"model": lm.name, "framing": framing.model_facts(lm, "mask").as_dict()},
        status_markdown([model_line(lm, lang, metrics=False), framing.line(lm, "mask", lang), *result.notices]),
        result.filled_text,
        model_plots.topk_figure(result, lang, lm.config.vocab_size),
        _word_list(words),
    )


def mask_word_view(text: str, word: float | None, top_k: float = 5, model: str | None = "", lang: str = "en") -> tuple:
    """/mask_word: the text with the picked word masked, then everything /fill_mask returns."""
    if word is None:
        return (gr.skip(),) * 6
    lang = inputs.language(lang)
    try:
        index = inputs.whole(word, lang, "mask.words", 0, inference.MAX_WORDS - 1)
        masked = inference.mask_word(inference.clean_text(inputs.text(text, lang, "mask.text"), lang)[0], index)
    except InputError as error:
        return (gr.skip(), *_error_outputs(str(error), 5))
    return (masked, *fill_mask_view(masked, top_k, model, lang))


# ----- sentence order -------------------------------------------------------------------------
ORDER_MARGIN = 0.02
"""Two orders closer than this (2 points) are called undecided."""


def order_reading(in_order_ab: float, in_order_ba: float) -> str:
    """What the tab tells a reader: 'prefers_ab', 'undecided' (less than ORDER_MARGIN apart) or 'prefers_ba'."""
    gap = in_order_ab - in_order_ba
    return "undecided" if abs(gap) < ORDER_MARGIN else "prefers_ab" if gap > 0 else "prefers_ba"


def _order_column(lm: LoadedModel, result: inference.SentenceOrderResult) -> Column:
    """One model's column: its probabilities and the two readings (order: A → B against B → A; topic: A → B
    against A → other book, when one was given)."""
    topic = order_reading(result.in_order_ab, result.with_other) if result.with_other is not None else None
    role = "nsp" if result.objective == "nsp" else "sop"
    return Column(role, lm.name, result, order_reading(result.in_order_ab, result.in_order_ba), topic)


def _beside(lm: LoadedModel, a: str, b: str, other: str, lang: str) -> Column:
    """The column of the model shown beside `lm` (the NSP arm beside an SOP model, and the other way round), or
    the one sentence that says why it is empty (not shipped: "No Chinese NSP model is shipped …")."""
    language = order_views.pair_language(lm, f"{a} {b}", lang)
    role, name = order_views.partner(lm, language)
    if not order_views.is_shipped(name):
        return Column(role, name, error=order_views.missing_sentence(role, name, language, lang))
    try:
        twin = load(name, lang)
        return _order_column(twin, inference.sentence_order(twin, a, b, lang, other))
    except (ModelError, InputError) as error:
        return Column(role, name, error=str(error))


@guarded(outputs=4)
def sentence_order_view(
    sentence_a: str, sentence_b: str, model: str | None = "", lang: str = "en", other: str | None = ""
) -> tuple:
    """/sentence_order: (JSON, message, side-by-side table, chart).

    The picked model (automatic: the language's default SOP model) and, beside it, the language's NSP arm (or the
    default SOP model beside an NSP one), each asked A → B, B → A and, when `other` holds a segment of another
    book, A → other. The JSON keeps the picked model's answer at its top level (as before `other` existed) and
    the other model's under "beside"."""
    lang = inputs.language(lang)
    sentence_a, sentence_b = inputs.text(sentence_a, lang, "order.a"), inputs.text(sentence_b, lang, "order.b")
    other = inputs.text(other, lang, "order.other")
    lm = load(model_for(model, f"{sentence_a} {sentence_b}", lang), lang)
    result = inference.sentence_order(lm, sentence_a, sentence_b, lang, other)
    main = _order_column(lm, result)
    beside = _beside(lm, sentence_a, sentence_b, other, lang)
    columns = {main.role: main, beside.role: beside}
    notices = dict.fromkeys([*result.notices, *(beside.result.notices if beside.result is not None else [])])
    raw = result.as_dict() | {
        "model": lm.name,
        "reading": main.reading,
        "topic_reading": main.topic,
        "framing": framing.model_facts(lm, "order").as_dict(),
        "beside": beside.as_dict(),
    }
    return (
        raw,
        status_markdown([model_line(lm, lang, metrics=False), framing.line(lm, "order", lang), *notices]),
        order_views.comparison_markdown(columns, lang),
        order_views.comparison_figure(columns, lang),
    )


def split_paragraph_view(
    paragraph: str, split_after: float = 1, model: str | None = "", lang: str = "en", other: str | None = ""
) -> tuple:
    """/split_paragraph: sentences 1..k as A, the rest as B, then everything /sentence_order returns."""
    lang = inputs.language(lang)
    try:
        paragraph = inputs.text(paragraph, lang, "order.paragraph")
        split_after = inputs.whole(split_after, lang, "order.split_after", 1, 10_000, default=1)
        sentences = inference.split_sentences(inference.clean_text(paragraph, lang)[0])
    except InputError as error:
        return ("", "", *_error_outputs(str(error), 4))
    if len(sentences) < 2:
        message = t("order.err.split", lang)
        return ("", "", {"error": message}, status_markdown([message], error=True), "", None)
    k = min(split_after, len(sentences) - 1)
    a, b = " ".join(sentences[:k]), " ".join(sentences[k:])
    return (a, b, *sentence_order_view(a, b, model, lang, other))


def draw_other_event(view: Callable[..., tuple]) -> Callable[..., tuple]:
    """/draw_other built on `view` (the app passes /sentence_order's event function, stamped with its inputs)."""

    def draw_other_view(
        sentence_a: str, sentence_b: str, model: str | None = "", lang: str = "en", other: str | None = ""
    ) -> tuple:
        """/draw_other: a segment of another book (at random, from the shipped held-out list of the pair's
        language) into the third box, then everything /sentence_order returns for it."""
        lang = inputs.language(lang)
        try:
            text = f"{inputs.text(sentence_a, lang, 'order.a')} {inputs.text(sentence_b, lang, 'order.b')}"
            picked = model_for(inputs.name(model, lang), text, lang)
            language = "zh" if picked in CHINESE_MODELS else text_language(text, lang)
            drawn = order_views.draw_other(language, other)
        except InputError as error:
            return (gr.skip(), *_error_outputs(str(error), 4))
        return (drawn, *view(sentence_a, sentence_b, model, lang, drawn))

    return draw_other_view


draw_other_view = draw_other_event(sentence_order_view)
"""/draw_other on the plain /sentence_order (tests and API users call it directly)."""


# ----- attention --------------------------------------------------------------------------------
def _series(lm: LoadedModel, lang: str | None = None) -> str:
    """'albert-lab-base (all)': a model's key in the JSON results (the sharing mode as the API names it), or with
    `lang` its name in a chart's legend ('albert-lab-base (全部共享（ALBERT）)' in 中文)."""
    return f"{lm.name} ({lm.config.sharing if lang is None else mode_name(lm.config.sharing, lang)})"


def _compare_choice(lm: LoadedModel, compare_model: str | None) -> str | None:
    """The model to compare with: the one picked, else `comparison_model` (a not-shared model for a shared one, the
    all-shared twin for a not-shared arm)."""
    choice = (compare_model or "").strip() or comparison_model(lm.name)
    return choice if choice and choice != lm.name else None


@guarded(outputs=6)
def attention_view(
    sentence_a: str,
    sentence_b: str = "",
    head: float = 1,
    max_tokens: float = inference.ATTENTION_TOKENS,
    model: str | None = "",
    compare_model: str | None = "",
    lang: str = "en",
) -> tuple:
    """/attention: (JSON, message, head view, model view, one head at every pass, pass-by-pass similarity)."""
    lang = inputs.language(lang)
    sentence_a, sentence_b = inputs.text(sentence_a, lang, "attention.a"), inputs.text(sentence_b, lang, "attention.b")
    head = inputs.whole(head, lang, "attention.head", 1, MAX_HEAD_CHOICE, default=1)
    max_tokens = inputs.whole(
        max_tokens,
        lang,
        "attention.max_tokens",
        inference.MIN_ATTENTION_TOKENS,
        inference.MAX_ATTENTION_TOKENS,
        default=inference.ATTENTION_TOKENS,
    )
    compare_model = inputs.name(compare_model, lang, "attention.compare")
    lm = load(model_for(model, f"{sentence_a} {sentence_b}", lang), lang)
    result = inference.attention(lm, sentence_a, sentence_b or None, max_tokens, lang)
    layers, heads, tokens = result.attentions.shape[0], result.attentions.shape[1], len(result.tokens)
    head_index = min(head, heads) - 1
    notices = [model_line(lm, lang, metrics=False), framing.line(lm, "attention", lang), *result.notices]
    if head > heads:
        notices.append(t("attention.head_clamped", lang, head=head, heads=heads))
    similarity = {_series(lm): inference.attention_similarity(result.attentions)}
    labels = {_series(lm): _series(lm, lang)}
    other = _compare_choice(lm, compare_model)
    if other is not None:
        try:
            twin = load(other, lang)
            twin_maps = inference.attention(twin, sentence_a, sentence_b or None, tokens, lang).attentions
            similarity[_series(twin)] = inference.attention_similarity(twin_maps)
            labels[_series(twin)] = _series(twin, lang)
        except (ModelError, InputError) as error:
            notices.append(str(error))
    else:
        notices.append(t("attention.no_twin", lang))
    head_doc = bv.bertviz_document("head", result.tokens, result.attentions, result.b_start, lang)
    model_doc = bv.bertviz_document("model", result.tokens, result.attentions, result.b_start, lang)
    raw = {
        "model": lm.name,
        "tokens": result.tokens,
        "layers": layers,
        "heads": heads,
        "b_start": result.b_start,
        "pass_to_pass_similarity": similarity,
        "notices": result.notices,
        **result.unknown.as_dict(),
        "framing": framing.model_facts(lm, "attention").as_dict(),
    }
    similarity_plot = model_plots.lines_figure(
        {labels[k]: v for k, v in similarity.items()},
        t("attention.similarity.title", lang),
        t("attention.axis.pair", lang),
        t("attention.axis.cosine", lang),
        start=1,
    )
    return (
        raw,
        status_markdown(notices),
        bv.iframe(head_doc, bv.view_size("head", layers, heads, tokens), t("attention.head_view", lang)),
        bv.iframe(model_doc, bv.view_size("model", layers, heads, tokens), t("attention.model_view", lang)),
        model_plots.head_heatmaps_figure(result.attentions, result.tokens, head_index, lang),
        similarity_plot,
    )


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


@guarded(outputs=7)
def sharing_modes_view(config_choice: str | None = "", lang: str = "en") -> tuple:
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
    return (
        raw,
        status_markdown(notices),
        model_plots.mode_parameters_figure(config, lang),
        model_plots.curves_figure(curves, "mlm_accuracy", lang) if curves else empty_figure(t("runs.none", lang)),
        model_plots.curves_figure(curves, "sop_accuracy", lang) if curves else empty_figure(t("runs.none", lang)),
        model_plots.summary_figure(summary, lang) if summary is not None else empty_figure(t("runs.none", lang)),
        runs.summary_table(summary, lang) if summary is not None else pd.DataFrame(),
    )


@guarded(outputs=4)
def layer_transitions_view(
    text: str, model: str | None = "", compare_model: str | None = "", lang: str = "en"
) -> tuple:
    """/layer_transitions: (JSON, message, L2 distance per pass, cosine similarity per pass), shared vs not."""
    lang = inputs.language(lang)
    text = inputs.text(text, lang, "sharing.text")
    compare_model = inputs.name(compare_model, lang, "attention.compare")
    lm = load(model_for(model, text, lang), lang)
    models = [lm]
    other = _compare_choice(lm, compare_model)
    notices = []
    if other is not None:
        try:
            models.append(load(other, lang))
        except ModelError as error:
            notices.append(str(error))
    else:
        notices.append(t("attention.no_twin", lang))
    results = {_series(lm): inference.layer_transitions(lm, text, lang)}
    labels = {_series(m): _series(m, lang) for m in models}
    for twin in models[1:]:
        try:  # a twin that cannot read the text (an English one for Chinese) is left out, with its sentence
            results[_series(twin)] = inference.layer_transitions(twin, text, lang)
        except InputError as error:
            models.remove(twin)
            notices.append(str(error))
    notices = [*(model_line(m, lang) for m in models), *notices, *(n for r in results.values() for n in r.notices)]
    raw = {name: {"l2": r.l2, "cosine": r.cosine, **r.unknown.as_dict()} for name, r in results.items()}
    l2 = model_plots.lines_figure(
        {labels[name]: r.l2 for name, r in results.items()},
        t("sharing.l2.title", lang),
        t("sharing.axis.pass", lang),
        t("sharing.axis.l2", lang),
    )
    cosine = model_plots.lines_figure(
        {labels[name]: r.cosine for name, r in results.items()},
        t("sharing.cos.title", lang),
        t("sharing.axis.pass", lang),
        t("sharing.axis.cosine", lang),
    )
    return raw, status_markdown(list(dict.fromkeys(notices))), l2, cosine
