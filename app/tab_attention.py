"""Tab 5, attention: bertviz's head and model views, one head across every pass, shared against not shared."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradio as gr

from app import queues
from app.i18n import Translations, normalize_lang, t
from app.inference import ATTENTION_TOKENS, MAX_ATTENTION_TOKENS
from app.languages import follow_language
from app.models import language_models

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


def build(tr: Translations, lang: gr.Radio, model: gr.Dropdown, compare_choices: list[str],
          compare_default: str | None, attention_view: Callable) -> None:
    """The attention tab; `/attention` is its endpoint."""
    tr.add(gr.Markdown(t("attention.explain", "en")), value="attention.explain")
    with gr.Row():
        sentence_a = tr.add(gr.Textbox(EXAMPLE, lines=2,
                                       label=t("attention.a", "en"), elem_id="attention-a"), label="attention.a")
        sentence_b = tr.add(gr.Textbox("", lines=2, label=t("attention.b", "en"), elem_id="attention-b"),
                            label="attention.b")
    with gr.Row():
        head = tr.add(gr.Slider(1, 64, value=1, step=1, label=t("attention.head", "en")), label="attention.head")
        max_tokens = tr.add(gr.Slider(8, MAX_ATTENTION_TOKENS, value=ATTENTION_TOKENS, step=1,
                                      label=t("attention.max_tokens", "en")), label="attention.max_tokens")
        compare = tr.add(gr.Dropdown(compare_choices, value=compare_default, allow_custom_value=True,
                                     label=t("attention.compare", "en"), info=t("attention.compare.info", "en")),
                         label="attention.compare", info="attention.compare.info")
    button = tr.add(gr.Button(t("attention.button", "en"), variant="primary", elem_id="attention-button"),
                    value="attention.button")
    status = gr.Markdown(elem_id="attention-status")
    head_view = tr.add(gr.HTML(label=t("attention.head_view", "en"), show_label=True, container=True,
                               elem_id="head-view"), label="attention.head_view")
    model_view = tr.add(gr.HTML(label=t("attention.model_view", "en"), show_label=True, container=True,
                                elem_id="model-view"),
                        label="attention.model_view")
    heatmaps = gr.Plot(show_label=False, elem_id="attention-heatmaps")
    similarity = gr.Plot(show_label=False, elem_id="attention-similarity")
    with gr.Accordion(t("common.raw", "en"), open=False) as raw_box:
        raw = gr.JSON(show_label=False)
    tr.add(raw_box, label="common.raw")

    tr.refresh("attention_example", example_in_language, [sentence_a, lang], [sentence_a])
    gr.on([button.click, sentence_a.submit, sentence_b.submit], attention_view,
          inputs=[sentence_a, sentence_b, head, max_tokens, model, compare, lang],
          outputs=[raw, status, head_view, model_view, heatmaps, similarity], api_name="attention", **queues.MODEL)
