"""Tab 6, sentiment: the shipped fine-tuned classifier labels a sentence and shows which passes' attention it used."""

from __future__ import annotations

from typing import Any

import gradio as gr

from app.i18n import normalize_lang
from app.models.classifiers import is_installed, zh_sentiment_dir
from app.models.languages import follow_language
from app.page.endpoints import BATCH, Endpoint, example_table
from app.page.examples import sentiment_texts
from app.page.runs import wire_run
from app.paper import views as paper_views
from app.tabs import TabContext
from app.tabs.sentiment import views
from app.tabs.sentiment.classifier import card_markdown
from app.tabs.sentiment.deploy import deploy_markdown, two_heads_view
from app.tabs.sentiment.deploy_timing import measure_view

EXAMPLES = sentiment_texts("en")
EXAMPLES_ZH = sentiment_texts("zh")
"""Used in the 中文 interface only when the Chinese sentiment model is installed: the English one cannot read them."""
EXAMPLES_FAILS = sentiment_texts("en", fails=True)
"""Labelled "where it fails" (app.page.examples)."""


def examples(lang: str = "en") -> list[str]:
    """The examples for `lang`: the Chinese ones in the 中文 interface when the Chinese sentiment model is installed."""
    return EXAMPLES_ZH if normalize_lang(lang) == "zh" and is_installed(zh_sentiment_dir()) else EXAMPLES


def fail_examples(lang: str = "en") -> list[str]:
    """The "where it fails" example for `lang` (the English one until the Chinese model has its own)."""
    chinese = sentiment_texts("zh", fails=True)
    return chinese if chinese and examples(lang) is EXAMPLES_ZH else EXAMPLES_FAILS


def example_in_language(text: Any, lang: Any) -> Any:
    """After a language switch: the new language's first example if the box still holds a first example."""
    wanted = follow_language(text, (EXAMPLES[0], EXAMPLES_ZH[0]), examples(lang if isinstance(lang, str) else "")[0])
    return gr.skip() if wanted is None else wanted


SENTIMENT = Endpoint(
    "sentiment",
    views.sentiment_view,
    "model",
    button="sentiment.button",
    batch=BATCH,
)
TWO_HEADS = Endpoint("sentiment_two_heads", two_heads_view, "model", public=False)  # the multi-task model: two heads
DEPLOY_MEASURE = Endpoint("sentiment_deploy_measure", measure_view, "measure", public=False)  # four models timed
ENDPOINTS = (SENTIMENT, TWO_HEADS, DEPLOY_MEASURE)


def build(ctx: TabContext) -> None:
    """The sentiment tab; `/sentiment` is its endpoint. It uses its own model, not the picker above."""
    tr, lang = ctx.tr, ctx.lang
    tr.add(gr.Markdown, text="sentiment.explain")
    tr.add(gr.Markdown, text=card_markdown, elem_id="sentiment-card")  # a line: with the labels
    with gr.Row():
        with gr.Column(scale=3):
            text = tr.add(
                gr.Textbox,
                EXAMPLES[0],
                lines=2,
                max_lines=8,
                label="sentiment.text",
                info="sentiment.text.info",
                elem_id="sentiment-text",
            )
            button = tr.add(gr.Button, text="sentiment.button", variant="primary", elem_id="sentiment-button")
            table = example_table(tr, [text], "common.examples", lambda lang: [[x] for x in examples(lang)])
            fails = example_table(tr, [text], "examples.fails", lambda lang: [[x] for x in fail_examples(lang)])
        with gr.Column(scale=2):
            # The verdict first, the model's description under it (a projector's first screen holds the verdict).
            verdict = gr.Markdown(elem_id="sentiment-verdict")
            status = gr.Markdown(elem_id="sentiment-status")
    with gr.Row():
        probabilities = gr.Plot(show_label=False, elem_id="sentiment-probabilities")
        passes = gr.Plot(show_label=False, elem_id="sentiment-passes")
    tokens = gr.HTML(elem_id="sentiment-tokens")
    with tr.add(gr.Accordion, label="common.raw", open=False):
        raw = gr.JSON(show_label=False)
    paper_views.panel(tr, "downstream")  # SST-2 in Tables 2 and 9, GLUE and SQuAD/RACE beside ours
    two_heads, timing = _deploy_view(tr)

    tr.refresh("sentiment_example", example_in_language, [text, lang], [text])
    button2, two_raw, two_answer = two_heads
    measure_button, measured = timing
    DEPLOY_MEASURE.on(measure_button.click, [lang], [measured])
    TWO_HEADS.on(button2.click, [text, lang], [two_raw, two_answer])
    outputs = [raw, status, verdict, probabilities, passes, tokens]
    examples_ = [(table, "example"), (fails, "fails_example")]  # clicking an example runs it
    wire_run(ctx, SENTIMENT, [button.click, text.submit], [text, lang], outputs, examples_)


def _deploy_view(tr: Any) -> tuple[tuple[gr.Button, gr.JSON, gr.Markdown], tuple[gr.Button, gr.Markdown]]:
    """The closed "deploy" accordion: the measured variants of the interface language's task with a button that
    times them here, then the multi-task model's two heads on the typed text. Returns (the two heads' button, raw
    answer and answer), (the timing button and its table)."""
    with tr.add(gr.Accordion, label="sentiment.deploy", open=False, elem_id="sentiment-deploy"):
        tr.add(gr.Markdown, text=deploy_markdown, elem_id="sentiment-deploy-table")
        measure = tr.add(gr.Button, text="deploy.measure.button", size="sm", elem_id="sentiment-deploy-measure")
        measured = gr.Markdown(elem_id="sentiment-deploy-measured")
        tr.add(gr.Markdown, text="deploy.two.title")
        button = tr.add(gr.Button, text="deploy.two.button", elem_id="sentiment-two-heads-button")
        answer = gr.Markdown(elem_id="sentiment-two-heads")
        with tr.add(gr.Accordion, label="common.raw", open=False):
            raw = gr.JSON(show_label=False)
    return (button, raw, answer), (measure, measured)
