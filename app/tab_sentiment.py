"""Tab 6, sentiment: the shipped fine-tuned classifier labels a sentence and shows which passes' attention it used."""

from __future__ import annotations

from collections.abc import Callable

import gradio as gr

from app import queues
from app.i18n import Translations, t

EXAMPLES = [
    "A warm, funny and beautifully acted film.",
    "The plot is thin and the jokes fall flat.",
    "It is not a bad movie, just a forgettable one.",
    "这部电影很精彩。",
]


def build(tr: Translations, lang: gr.Radio, sentiment_view: Callable, card_markdown: Callable) -> None:
    """The sentiment tab; `/sentiment` is its endpoint. It uses its own model, not the picker above."""
    tr.add(gr.Markdown(t("sentiment.explain", "en")), value="sentiment.explain")
    card = gr.Markdown(card_markdown("en"), elem_id="sentiment-card")
    with gr.Row():
        with gr.Column(scale=3):
            text = tr.add(gr.Textbox(EXAMPLES[0], lines=2, max_lines=8, label=t("sentiment.text", "en"),
                                     info=t("sentiment.text.info", "en"), elem_id="sentiment-text"),
                          label="sentiment.text", info="sentiment.text.info")
            button = tr.add(gr.Button(t("sentiment.button", "en"), variant="primary", elem_id="sentiment-button"),
                            value="sentiment.button")
            examples = gr.Examples(EXAMPLES, inputs=[text], label=t("common.examples", "en"))
            tr.add(examples.dataset, label="common.examples")
        with gr.Column(scale=2):
            status = gr.Markdown(elem_id="sentiment-status")
            verdict = gr.Markdown(elem_id="sentiment-verdict")
    with gr.Row():
        probabilities = gr.Plot(show_label=False, elem_id="sentiment-probabilities")
        passes = gr.Plot(show_label=False, elem_id="sentiment-passes")
    tokens = gr.HTML(elem_id="sentiment-tokens")
    with gr.Accordion(t("common.raw", "en"), open=False) as raw_box:
        raw = gr.JSON(show_label=False)
    tr.add(raw_box, label="common.raw")

    tr.refresh("sentiment_card", card_markdown, [lang], [card])
    gr.on([button.click, text.submit], sentiment_view, inputs=[text, lang],
          outputs=[raw, status, verdict, probabilities, passes, tokens], api_name="sentiment", **queues.MODEL)
