"""Tab 4, sentence order: the same pair shown to an SOP model and to an NSP model, side by side (issue 30, item 4).

Each model reads A → B, B → A and A followed by "B from another book" (🎲 draws one). The NSP arm reads topic (yes to
both real orders, no to the other book); our SOP models are at chance on order. Beside it, the paper's Table 5 and
why order needs both sentences read together.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from app.i18n import normalize_lang
from app.models import language_models
from app.models.languages import follow_language
from app.page.endpoints import BATCH, Endpoint, example_table
from app.page.examples import PARAGRAPH as example_paragraphs
from app.page.examples import order_pairs
from app.page.runs import wire_run
from app.paper import views as paper_views
from app.tabs import TabContext
from app.tabs.order import side_by_side, views

EXAMPLES = order_pairs("en")
"""Rows of (A, B, B from another book)."""
PARAGRAPH = example_paragraphs["en"]
EXAMPLES_ZH = order_pairs("zh")
"""Used in the 中文 interface only when the Chinese model is shipped: the English models cannot read them."""
PARAGRAPH_ZH = example_paragraphs["zh"]
EXAMPLES_FAILS = order_pairs("en", fails=True)
"""Labelled "where it fails" (app.page.examples)."""


def examples(lang: str = "en") -> list[list[str]]:
    """The sentence pairs for `lang`: the Chinese ones in the 中文 interface when albert-lab-zh is shipped."""
    return EXAMPLES_ZH if normalize_lang(lang) == "zh" and language_models()["zh"] else EXAMPLES


def fail_examples(lang: str = "en") -> list[list[str]]:
    """The "where it fails" pair for `lang` (the English one until the Chinese model has its own)."""
    chinese = order_pairs("zh", fails=True)
    return chinese if chinese and examples(lang) is EXAMPLES_ZH else EXAMPLES_FAILS


def paragraph_example(lang: str = "en") -> str:
    return PARAGRAPH_ZH if examples(lang) is EXAMPLES_ZH else PARAGRAPH


def examples_in_language(sentence_a: Any, sentence_b: Any, other: Any, paragraph: Any, lang: Any) -> tuple:
    """After a language switch: the new language's examples in the boxes that still hold the first examples (the
    third box also when it holds a drawn segment of another book: that one is in the old language)."""
    lang = lang if isinstance(lang, str) else ""
    first = examples(lang)[0]
    drawn = (*side_by_side.other_segments("en"), *side_by_side.other_segments("zh"))
    wanted = (
        follow_language(sentence_a, (EXAMPLES[0][0], EXAMPLES_ZH[0][0]), first[0]),
        follow_language(sentence_b, (EXAMPLES[0][1], EXAMPLES_ZH[0][1]), first[1]),
        follow_language(other, (EXAMPLES[0][2], EXAMPLES_ZH[0][2], *drawn), first[2]),
        follow_language(paragraph, (PARAGRAPH, PARAGRAPH_ZH), paragraph_example(lang)),
    )
    return tuple(gr.skip() if value is None else value for value in wanted)


SENTENCE_ORDER = Endpoint(
    "sentence_order",
    views.sentence_order_view,
    "model",
    button="order.button",
    batch=BATCH,
)
DRAW_OTHER = Endpoint(
    "draw_other",
    views.draw_other_event(SENTENCE_ORDER.view),  # the other book's segment, then /sentence_order
    "model",
)
SPLIT_PARAGRAPH = Endpoint(
    "split_paragraph",
    views.split_paragraph_view,
    "model",
)
ENDPOINTS = (SENTENCE_ORDER, DRAW_OTHER, SPLIT_PARAGRAPH)


def build(ctx: TabContext) -> None:
    """The sentence-order tab; `/sentence_order`, `/draw_other` and `/split_paragraph` are its endpoints."""
    tr, lang = ctx.tr, ctx.lang
    tr.add(gr.Markdown, text="order.explain")
    # The answer beside the question (issue 54: on a projector the verdict was ~1,000 px down, under the examples).
    with gr.Row():
        with gr.Column(scale=3):
            with gr.Row():
                sentence_a = tr.add(gr.Textbox, EXAMPLES[0][0], lines=2, label="order.a", elem_id="order-a")
                sentence_b = tr.add(gr.Textbox, EXAMPLES[0][1], lines=2, label="order.b", elem_id="order-b")
            with gr.Row(equal_height=True):
                other = tr.add(
                    gr.Textbox,
                    EXAMPLES[0][2],
                    lines=2,
                    label="order.other",
                    info="order.other.info",
                    elem_id="order-other",
                    scale=3,
                )
                draw = tr.add(gr.Button, text="order.draw", elem_id="order-draw", scale=1, min_width=160)
            button = tr.add(gr.Button, text="order.button", variant="primary", elem_id="order-button")
            triple, headers = [sentence_a, sentence_b, other], ("order.a", "order.b", "order.other")
            table = example_table(tr, triple, "common.examples", examples, headers)
            fails = example_table(tr, triple, "examples.fails", fail_examples, headers)
            with tr.add(gr.Accordion, label="order.paragraph_box", open=False):
                paragraph = tr.add(gr.Textbox, PARAGRAPH, lines=3, label="order.paragraph")
                with gr.Row():
                    split_after = tr.add(gr.Number, 1, precision=0, label="order.split_after")
                    split_button = tr.add(gr.Button, text="order.split_button")
        with gr.Column(scale=2):
            # The verdict first, the model's description under it (a projector's first screen holds the verdict).
            verdict = gr.Markdown(elem_id="order-verdict")
            status = gr.Markdown(elem_id="order-status")
    with gr.Row():
        with gr.Column(scale=3):
            chart = gr.Plot(show_label=False, elem_id="order-chart")
            tr.add(gr.Markdown, text="howto.order_chart", elem_classes="lab-howto")
        with gr.Column(scale=2):
            tr.add(gr.Markdown, text=side_by_side.table5_markdown, elem_id="order-table5")
    with tr.add(gr.Accordion, label="common.raw", open=False):
        raw = gr.JSON(show_label=False)
    paper_views.panel(tr, "order")  # Table 5 in full beside our runs

    tr.refresh(
        "order_examples",
        examples_in_language,
        [sentence_a, sentence_b, other, paragraph, lang],
        [sentence_a, sentence_b, other, paragraph],
    )
    outputs = [raw, status, verdict, chart]
    pair = [sentence_a, sentence_b, ctx.model, lang, other]  # /sentence_order's inputs: `other` last (added later)
    actions = [button.click, sentence_a.submit, sentence_b.submit, other.submit]
    wire_run(ctx, SENTENCE_ORDER, actions, pair, outputs, [(table, "example"), (fails, "fails_example")])
    DRAW_OTHER.on(draw.click, pair, [other, *outputs])
    SPLIT_PARAGRAPH.on(
        split_button.click, [paragraph, split_after, ctx.model, lang, other], [sentence_a, sentence_b, *outputs]
    )
