"""Tab 5, attention: bertviz's head and model views, one head across every pass, shared against not shared."""

from __future__ import annotations

from typing import Any

import gradio as gr

from app.i18n import Translations, normalize_lang
from app.inference import ATTENTION_TOKENS, MAX_ATTENTION_TOKENS
from app.models import default_model, language_models, shipped_config
from app.models.hub_picker import hub_choices
from app.models.languages import follow_language
from app.page.endpoints import Endpoint
from app.page.results import MAX_HEAD_CHOICE
from app.page.runs import wire_run
from app.tabs import TabContext
from app.tabs.attention import views

EXAMPLE = "The cat sat on the mat because it was tired."
EXAMPLE_ZH = "这部电影很精彩，我还想再看一遍。"
"""Used in the 中文 interface only when the Chinese model is shipped: the English models cannot read it."""


def example(lang: str = "en") -> str:
    """The default sentence for `lang`: the Chinese one in the 中文 interface when albert-lab-zh is shipped."""
    return EXAMPLE_ZH if normalize_lang(lang) == "zh" and language_models()["zh"] else EXAMPLE


def example_in_language(text: Any, lang: Any) -> Any:
    """After a language switch: the new language's sentence if the box still holds a default one."""
    wanted = follow_language(text, (EXAMPLE, EXAMPLE_ZH), example(lang if isinstance(lang, str) else ""))
    return gr.skip() if wanted is None else wanted


def head_bounds(raw: Any, head: Any) -> Any:
    """The head slider bounded by the heads of the model that drew `raw` (its value moved inside if needed)."""
    heads = raw.get("heads") if isinstance(raw, dict) else None
    if not isinstance(heads, int) or heads < 1:
        return gr.skip()
    value = (
        head
        if isinstance(head, (int, float)) and 1 <= head <= heads
        else 1
        if not isinstance(head, (int, float)) or not head >= 1
        else heads
    )  # a head past the end moves to the last head (as the heatmaps show it)
    return gr.update(maximum=heads, value=int(value))


ATTENTION = Endpoint(
    "attention",
    views.attention_view,
    "heavy",  # every layer's attention: on the heavy lane (app.hosting)
    button="attention.button",
)
HEAD_BOUNDS = Endpoint("attention_heads", head_bounds, "instant", public=False)
ENDPOINTS = (ATTENTION, HEAD_BOUNDS)


def build(ctx: TabContext) -> None:
    """The attention tab; `/attention` is its endpoint."""
    tr, lang = ctx.tr, ctx.lang
    tr.add(gr.Markdown, text="attention.explain")
    # Projector first (issue 54): the sentences across the page, then the options and the button on the left and,
    # level with them, the chart the lesson reads (how alike consecutive passes attend); the per-pass heatmaps and
    # bertviz's views below. A phone stacks the columns.
    with gr.Row():
        sentence_a = tr.add(gr.Textbox, EXAMPLE, lines=2, label="attention.a", elem_id="attention-a")
        sentence_b = tr.add(gr.Textbox, "", lines=2, label="attention.b", elem_id="attention-b")
    with gr.Row(equal_height=False):
        with gr.Column(scale=2, min_width=320):
            with gr.Row():
                head = tr.add(
                    gr.Slider, 1, default_heads(), value=1, step=1, label="attention.head", elem_id="attention-head"
                )
                max_tokens = tr.add(
                    gr.Slider, 8, MAX_ATTENTION_TOKENS, value=ATTENTION_TOKENS, step=1, label="attention.max_tokens"
                )
            compare = tr.add(
                gr.Dropdown,
                value=ctx.compare_default,
                choices=lambda lang: [*ctx.compare_choices(lang), *hub_choices(lang)],  # automatic, ours, the hub's
                allow_custom_value=True,
                label="attention.compare",
                info="attention.compare.info",
            )
            button = tr.add(gr.Button, text="attention.button", variant="primary", elem_id="attention-button")
            status = gr.Markdown(elem_id="attention-status")
        with gr.Column(scale=3, min_width=360):
            similarity = gr.Plot(show_label=False, elem_id="attention-similarity")
            howto(tr, "howto.similarity")
    heatmaps = gr.Plot(show_label=False, elem_id="attention-heatmaps")
    howto(tr, "howto.heatmaps")
    head_view = tr.add(gr.HTML, label="attention.head_view", show_label=True, container=True, elem_id="head-view")
    howto(tr, "howto.head_view")
    model_view = tr.add(gr.HTML, label="attention.model_view", show_label=True, container=True, elem_id="model-view")
    howto(tr, "howto.model_view")
    with tr.add(gr.Accordion, label="common.raw", open=False):
        raw = gr.JSON(show_label=False)

    tr.refresh("attention_example", example_in_language, [sentence_a, lang], [sentence_a])
    wire_run(
        ctx,
        ATTENTION,
        [button.click, sentence_a.submit, sentence_b.submit],
        [sentence_a, sentence_b, head, max_tokens, ctx.model, compare, lang],
        [raw, status, head_view, model_view, heatmaps, similarity],
    )
    # Whatever drew the result (the button, opening the tab, a language switch), the slider then ends at the
    # model's last head.
    HEAD_BOUNDS.on(raw.change, [raw, head], [head], show_progress="hidden")


def default_heads() -> int:
    """The default model's number of heads (the head slider's end before a first result), else the API's bound."""
    name = default_model()
    config = shipped_config(name) if name else None
    return config.num_attention_heads if config is not None else MAX_HEAD_CHOICE


def howto(tr: Translations, key: str) -> gr.Markdown:
    """The one line under a view that says how to read it."""
    return tr.add(gr.Markdown, text=key, elem_classes="lab-howto")
