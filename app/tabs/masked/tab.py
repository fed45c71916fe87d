"""Tab 3, masked words: type [MASK] (or pick a word to mask) and see the model's top-k guesses."""

from __future__ import annotations

import math
from typing import Any

import gradio as gr

from app.i18n import normalize_lang
from app.inference import MAX_WORDS
from app.models import language_models
from app.models.languages import follow_language
from app.page.endpoints import BATCH, Endpoint, example_table
from app.page.examples import mask_texts
from app.page.runs import wire_run
from app.tabs import TabContext
from app.tabs.masked import views

EXAMPLES = mask_texts("en")
EXAMPLES_ZH = mask_texts("zh")
"""Used in the 中文 interface only when the Chinese model is shipped: the English models cannot read them."""
EXAMPLES_FAILS = mask_texts("en", fails=True)
"""Labelled "where it fails" (app.page.examples)."""


def examples(lang: str = "en") -> list[str]:
    """The examples for `lang`: the Chinese ones in the 中文 interface when albert-lab-zh is shipped."""
    return EXAMPLES_ZH if normalize_lang(lang) == "zh" and language_models()["zh"] else EXAMPLES


def fail_examples(lang: str = "en") -> list[str]:
    """The "where it fails" example for `lang` (the English one until the Chinese model has its own)."""
    chinese = mask_texts("zh", fails=True)
    return chinese if chinese and examples(lang) is EXAMPLES_ZH else EXAMPLES_FAILS


def example_in_language(text: Any, lang: Any) -> Any:
    """After a language switch: the new language's first example if the box still holds a first example."""
    wanted = follow_language(text, (EXAMPLES[0], EXAMPLES_ZH[0]), examples(lang if isinstance(lang, str) else "")[0])
    return gr.skip() if wanted is None else wanted


def _picked(index: Any) -> int | None:
    """/pick_word: the picked word's number into the hidden field /mask_word reads. The value arrives as sent
    (unchecked by Gradio): anything but a word number the radio can hold (0 to MAX_WORDS - 1) becomes None,
    which /mask_word answers by changing nothing."""
    if isinstance(index, bool) or not isinstance(index, (int, float)):
        return None
    if not (math.isfinite(index) and index == int(index) and 0 <= index < MAX_WORDS):
        return None
    return int(index)


FILL_MASK = Endpoint(
    "fill_mask",
    views.fill_mask_view,
    "model",
    optional=("",),  # `expected` came later: a client sending the first four gets no expected word
    button="mask.button",
    batch=BATCH,
)
MASK_WORD = Endpoint(
    "mask_word",
    views.mask_word_view,
    "model",
)
PICK_WORD = Endpoint("pick_word", _picked, "instant", public=False)
ENDPOINTS = (FILL_MASK, MASK_WORD, PICK_WORD)


def build(ctx: TabContext) -> None:
    """The masked-words tab; `/fill_mask` and `/mask_word` are its endpoints."""
    tr, lang, model = ctx.tr, ctx.lang, ctx.model
    tr.add(gr.Markdown, text="mask.explain")
    with gr.Row():
        with gr.Column(scale=3):
            text = tr.add(
                gr.Textbox,
                EXAMPLES[0],
                lines=2,
                max_lines=8,
                label="mask.text",
                info="mask.text.info",
                elem_id="mask-text",
            )
            expected = tr.add(
                gr.Textbox,
                "",
                lines=1,
                max_lines=1,
                label="mask.expected.label",
                info="mask.expected.info",
                elem_id="mask-expected",
            )
            with gr.Row():
                top_k = tr.add(gr.Slider, 1, 20, value=5, step=1, label="mask.top_k")
                button = tr.add(gr.Button, text="mask.button", variant="primary", elem_id="mask-button")
            table = example_table(tr, [text], "common.examples", lambda lang: [[x] for x in examples(lang)])
            fails = example_table(tr, [text], "examples.fails", lambda lang: [[x] for x in fail_examples(lang)])
        with gr.Column(scale=2):  # the answer beside the text, chart first: on a projector it is on the first screen
            chart = gr.Plot(show_label=False, elem_id="mask-chart")
            status = gr.Markdown(elem_id="mask-status")
            filled = tr.add(gr.Textbox, label="mask.filled", interactive=False, elem_id="mask-filled")
            words = tr.add(gr.Radio, [], label="mask.words", info="mask.words.info", elem_id="mask-words")
    tr.add(gr.Markdown, text="howto.mask_chart", elem_classes="lab-howto")
    with tr.add(gr.Accordion, label="common.raw", open=False):
        raw = gr.JSON(show_label=False)

    tr.refresh("mask_example", example_in_language, [text, lang], [text])
    outputs = [raw, status, filled, chart, words]
    inputs = [text, top_k, model, lang, expected]
    examples_ = [(table, "example"), (fails, "fails_example")]  # clicking an example runs it
    wire_run(ctx, FILL_MASK, [button.click, text.submit, expected.submit], inputs, outputs, examples_)
    # The radio's choices change with the text, and Gradio checks a radio's value against its current
    # choices; so the public /mask_word takes the word's number from a hidden field instead. /pick_word skips
    # that check too (preprocess=False): a client calling it never holds the choices the page last received,
    # and Gradio answered every such call with "not in the list of choices: []" and a traceback in the log.
    word_index = gr.Number(visible=False, precision=0)
    picked_word = PICK_WORD.on(words.input, [words], [word_index])
    MASK_WORD.then(picked_word, [text, word_index, top_k, model, lang], [text, *outputs])
