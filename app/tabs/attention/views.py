"""The *Attention* tab's event: /attention (bertviz views, one head at every pass, pass-to-pass similarity)."""

from __future__ import annotations

import logging
from typing import Any, NamedTuple

from app import inference, inputs
from app.i18n import t
from app.inference import InputError
from app.models import (
    CHINESE_MODELS,
    ModelError,
    load,
    resolve_model,
)
from app.page import framing
from app.page.client import is_phone
from app.page.plots import lines_figure
from app.page.results import (
    MAX_HEAD_CHOICE,
    compare_choices,
    guarded,
    model_line,
    series,
    status_markdown,
)
from app.tabs.attention import bertviz as bv
from app.tabs.attention.plots import head_heatmaps_figure

logger = logging.getLogger(__name__)


# ----- attention --------------------------------------------------------------------------------
class AttentionAnswer(NamedTuple):
    """/attention's outputs, in the order the tab wires them."""

    result: Any
    """The JSON result: tokens, layers, heads, pass-to-pass similarity (or {"error": …})."""
    status: Any
    """The model line, the framing line and the notices (Markdown)."""
    head_view: Any
    """bertviz's head view (an iframe)."""
    model_view: Any
    """bertviz's model view (an iframe)."""
    heatmaps: Any
    """One head's map at every pass."""
    similarity: Any
    """Pass-to-pass similarity, shared against not shared."""


@guarded(AttentionAnswer)
def attention_view(
    sentence_a: str,
    sentence_b: str = "",
    head: float = 1,
    max_tokens: float = inference.ATTENTION_TOKENS,
    model: str | None = "",
    compare: str | None = "",
    lang: str = "en",
) -> AttentionAnswer:
    """/attention: (JSON, message, head view, model view, one head at every pass, pass-by-pass similarity). A
    phone gets the heatmaps stacked (`app.page.client.is_phone`)."""
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
    compare = inputs.name(compare, lang, "attention.compare")
    both = f"{sentence_a} {sentence_b}"
    picked = resolve_model(model, both, lang)  # online: a real ALBERT once fetched
    lm = load(picked.value, lang)
    result = inference.attention(lm, sentence_a, sentence_b or None, max_tokens, lang)
    layers, heads, tokens = result.attentions.shape[0], result.attentions.shape[1], len(result.tokens)
    head_index = min(head, heads) - 1
    notices = [model_line(lm, lang, metrics=False), *picked.line(lm.name, lang), framing.line(lm, "attention", lang)]
    notices += result.notices
    if head > heads:
        notices.append(t("attention.head_clamped", lang, head=head, heads=heads))
    similarity = {series(lm): inference.attention_similarity(result.attentions)}
    labels = {series(lm): series(lm, lang)}
    others, why = compare_choices(lm, compare, lang)
    for other in others:
        try:
            twin = load(other, lang)
            twin_maps = inference.attention(twin, sentence_a, sentence_b or None, tokens, lang).attentions
            similarity[series(twin)] = inference.attention_similarity(twin_maps)
            labels[series(twin)] = series(twin, lang)
        except (ModelError, InputError) as error:
            notices.append(str(error))
    notices.extend(why if len(similarity) > 1 else [])
    if not others:
        notices.append(t("attention.no_twin", lang))
    labels_shown = inference.token_labels(result.tokens, lm.name in CHINESE_MODELS, lang)
    head_doc = bv.bertviz_document("head", labels_shown, result.attentions, result.b_start, lang)
    model_doc = bv.bertviz_document("model", labels_shown, result.attentions, result.b_start, lang)
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
    similarity_plot = lines_figure(
        {labels[k]: v for k, v in similarity.items()},
        t("attention.similarity.title", lang),
        t("attention.axis.pair", lang),
        t("attention.axis.cosine", lang),
        start=1,
    )
    return AttentionAnswer(
        result=raw,
        status=status_markdown(notices),
        head_view=bv.iframe(head_doc, bv.view_size("head", layers, heads, tokens), t("attention.head_view", lang)),
        model_view=bv.iframe(model_doc, bv.view_size("model", layers, heads, tokens), t("attention.model_view", lang)),
        heatmaps=head_heatmaps_figure(result.attentions, labels_shown, head_index, lang, narrow=is_phone()),
        similarity=similarity_plot,
    )
