"""The *Sentence order* tab's events: /sentence_order, /split_paragraph and /draw_other."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, NamedTuple

import gradio as gr

from app import inference, inputs
from app.i18n import t
from app.inference import InputError
from app.models import (
    CHINESE_MODELS,
    LoadedModel,
    ModelError,
    load,
    model_for,
)
from app.models.languages import text_language
from app.page import framing
from app.page.results import (
    error_outputs,
    guarded,
    model_line,
    status_markdown,
)
from app.tabs.order import side_by_side as order_views
from app.tabs.order.side_by_side import Column

logger = logging.getLogger(__name__)


# ----- sentence order -------------------------------------------------------------------------
class OrderAnswer(NamedTuple):
    """/sentence_order's outputs, in the order the tab wires them."""

    result: Any
    """The JSON result: the picked model's answer, its readings, the model beside it (or {"error": …})."""
    status: Any
    """The model line, the framing line and the notices (Markdown)."""
    table: Any
    """The side-by-side table of the SOP and NSP models (Markdown)."""
    chart: Any
    """The side-by-side chart."""


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


@guarded(OrderAnswer)
def sentence_order_view(
    sentence_a: str, sentence_b: str, model: str | None = "", lang: str = "en", other: str | None = ""
) -> OrderAnswer:
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
    return OrderAnswer(
        result=raw,
        status=status_markdown([model_line(lm, lang, metrics=False), framing.line(lm, "order", lang), *notices]),
        table=order_views.comparison_markdown(columns, lang),
        chart=order_views.comparison_figure(columns, lang),
    )


class SplitAnswer(NamedTuple):
    """/split_paragraph's outputs: the two boxes it fills, then /sentence_order's."""

    sentence_a: Any
    sentence_b: Any
    result: Any
    status: Any
    table: Any
    chart: Any


class DrawAnswer(NamedTuple):
    """/draw_other's outputs: the third box (another book's segment), then /sentence_order's."""

    other: Any
    result: Any
    status: Any
    table: Any
    chart: Any


def split_paragraph_view(
    paragraph: str, split_after: float = 1, model: str | None = "", lang: str = "en", other: str | None = ""
) -> SplitAnswer:
    """/split_paragraph: sentences 1..k as A, the rest as B, then everything /sentence_order returns."""
    lang = inputs.language(lang)
    try:
        paragraph = inputs.text(paragraph, lang, "order.paragraph")
        split_after = inputs.whole(split_after, lang, "order.split_after", 1, 10_000, default=1)
        sentences = inference.split_sentences(inference.clean_text(paragraph, lang)[0])
    except InputError as error:
        return SplitAnswer("", "", *error_outputs(str(error), OrderAnswer))
    if len(sentences) < 2:
        message = t("order.err.split", lang)
        return SplitAnswer("", "", {"error": message}, status_markdown([message], error=True), "", None)
    k = min(split_after, len(sentences) - 1)
    a, b = " ".join(sentences[:k]), " ".join(sentences[k:])
    return SplitAnswer(a, b, *sentence_order_view(a, b, model, lang, other))


def draw_other_event(view: Callable[..., tuple]) -> Callable[..., tuple]:
    """/draw_other built on `view` (the app passes /sentence_order's event function, stamped with its inputs)."""

    def draw_other_view(
        sentence_a: str, sentence_b: str, model: str | None = "", lang: str = "en", other: str | None = ""
    ) -> DrawAnswer:
        """/draw_other: a segment of another book (at random, from the shipped held-out list of the pair's
        language) into the third box, then everything /sentence_order returns for it."""
        lang = inputs.language(lang)
        try:
            text = f"{inputs.text(sentence_a, lang, 'order.a')} {inputs.text(sentence_b, lang, 'order.b')}"
            picked = model_for(inputs.name(model, lang), text, lang)
            language = "zh" if picked in CHINESE_MODELS else text_language(text, lang)
            drawn = order_views.draw_other(language, other)
        except InputError as error:
            return DrawAnswer(gr.skip(), *error_outputs(str(error), OrderAnswer))
        return DrawAnswer(drawn, *view(sentence_a, sentence_b, model, lang, drawn))

    return draw_other_view


draw_other_view = draw_other_event(sentence_order_view)
"""/draw_other on the plain /sentence_order (tests and API users call it directly)."""
