"""Tab 2, sharing modes: parameters per mode, recorded ablation runs, and how much each pass changes its input."""

from __future__ import annotations

from typing import Any

import gradio as gr

from app.i18n import normalize_lang, t
from app.models import language_models, runs
from app.models.languages import follow_language
from app.page.endpoints import Endpoint
from app.page.runs import wire_run
from app.paper import views as paper_views
from app.tabs import TabContext
from app.tabs.sharing import views

EXAMPLE = "The old sailor walked along the river and remembered the distant lighthouse."
EXAMPLE_ZH = "老水手沿着河边慢慢走着，想起了远处的那座灯塔。"
"""Used in the 中文 interface only when the Chinese model is shipped: the English models cannot read it."""


def example(lang: str = "en") -> str:
    """The default sentence for `lang`: the Chinese one in the 中文 interface when albert-lab-zh is shipped."""
    return EXAMPLE_ZH if normalize_lang(lang) == "zh" and language_models()["zh"] else EXAMPLE


def example_in_language(text: Any, lang: Any) -> Any:
    """After a language switch: the new language's sentence if the box still holds a default one."""
    wanted = follow_language(text, (EXAMPLE, EXAMPLE_ZH), example(lang if isinstance(lang, str) else ""))
    return gr.skip() if wanted is None else wanted


SHARING_MODES = Endpoint("sharing_modes", views.sharing_modes_view, "light")
LAYER_TRANSITIONS = Endpoint(
    "layer_transitions",
    views.layer_transitions_view,
    "heavy",  # every pass's hidden states: on the heavy lane (app.hosting)
    button="sharing.button",
)
ENDPOINTS = (SHARING_MODES, LAYER_TRANSITIONS)


def build(ctx: TabContext) -> None:
    """The sharing tab; `/sharing_modes` and `/layer_transitions` are its endpoints."""
    tr, lang = ctx.tr, ctx.lang
    tr.add(gr.Markdown, text=lambda lang: t("sharing.explain", lang, runs=runs.sharing_runs_text(lang)))
    start = f"model:{ctx.default_model}" if ctx.default_model else "albert-base"
    first = views.sharing_modes_view(start, "en")
    with gr.Row():
        config = tr.add(gr.Dropdown, value=start, label="sharing.config", choices=views.sharing_config_choices)
    status = gr.Markdown(first.status, elem_id="sharing-status")
    with gr.Row():
        per_mode = gr.Plot(first.parameters, show_label=False)
        summary = gr.Plot(first.final_metrics, show_label=False)
    with gr.Row():
        mlm_curves = gr.Plot(first.mlm_curves, show_label=False)
        sop_curves = gr.Plot(first.sop_curves, show_label=False)
    # Widths in pixels, one per column of app.models.runs.summary_table (Gradio sizes a column by its unwrapped text
    # otherwise: ~2,300 px in all); wider than a phone, the table scrolls sideways with its run column kept in view and
    # a shadow at the edge that hides columns (app/static/lab.css); tall enough for the 13 recorded runs (~770 px on
    # a phone, two or three lines a row) without an inner scroll.
    table = tr.add(
        gr.Dataframe,
        first.table,
        label="sharing.table",
        interactive=False,
        wrap=True,
        column_widths=[140, 96, 104, 56, 104, 80, 128, 128, 128, 128, 280],
        max_height=1000,
    )
    with tr.add(gr.Accordion, label="common.raw", open=False):
        raw = gr.JSON(first.result, show_label=False)
    paper_views.panel(tr, "sharing")  # Tables 4 and 3 beside our ablation runs

    tr.add(gr.Markdown, text="sharing.live.explain")
    # Projector first (issue 54): the two charts level with the sentence and the button, the status lines under the
    # button, so that a click leaves the figures on the screen. A phone stacks the two columns.
    with gr.Row(equal_height=False):
        with gr.Column(scale=2, min_width=320):
            text = tr.add(gr.Textbox, EXAMPLE, lines=2, label="sharing.text", elem_id="sharing-text")
            compare = tr.add(
                gr.Dropdown,
                value=ctx.compare_default,
                choices=lambda lang: [
                    *ctx.compare_choices(lang)[:1],
                    *views.compare_picker_entries(list(ctx.shipped), lang),
                ],
                allow_custom_value=True,
                label="attention.compare",
                info="attention.compare.info",
            )
            button = tr.add(gr.Button, text="sharing.button", variant="primary", elem_id="sharing-button")
            live_status = gr.Markdown(elem_id="transitions-status")
        with gr.Column(scale=3, min_width=360), gr.Row():
            l2 = gr.Plot(show_label=False)
            cosine = gr.Plot(show_label=False)  # the angle in degrees, as the paper draws it
    with tr.add(gr.Accordion, label="common.raw", open=False):
        live_raw = gr.JSON(show_label=False)

    tr.refresh("sharing_example", example_in_language, [text, lang], [text])
    outputs = [raw, status, per_mode, mlm_curves, sop_curves, summary, table]
    tr.refresh("sharing_modes", views.sharing_modes_view, [config, lang], outputs)
    SHARING_MODES.on(config.input, [config, lang], outputs)
    wire_run(
        ctx,
        LAYER_TRANSITIONS,
        [button.click, text.submit],
        [text, ctx.model, compare, lang],
        [live_raw, live_status, l2, cosine],
    )
