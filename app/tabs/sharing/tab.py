"""Tab 2, sharing modes: parameters per mode, recorded ablation runs, and how much each pass changes its input."""

from __future__ import annotations

import gradio as gr

from app import queues
from app.i18n import t
from app.models import runs
from app.paper import views as paper_views
from app.tabs import TabContext
from app.tabs.sharing.views import compare_choices


def build(ctx: TabContext) -> None:
    """The sharing tab; `/sharing_modes` and `/layer_transitions` are its endpoints."""
    tr, lang, views = ctx.tr, ctx.lang, ctx.views
    tr.add(gr.Markdown, text=lambda lang: t("sharing.explain", lang, runs=runs.sharing_runs_text(lang)))
    start = f"model:{ctx.default_model}" if ctx.default_model else "albert-base"
    first = views.sharing_modes(start, "en")
    with gr.Row():
        config = tr.add(gr.Dropdown, value=start, label="sharing.config", choices=views.sharing_configs)
    status = gr.Markdown(first[1], elem_id="sharing-status")
    with gr.Row():
        per_mode = gr.Plot(first[2], show_label=False)
        summary = gr.Plot(first[5], show_label=False)
    with gr.Row():
        mlm_curves = gr.Plot(first[3], show_label=False)
        sop_curves = gr.Plot(first[4], show_label=False)
    table = tr.add(gr.Dataframe, first[6], label="sharing.table", interactive=False)
    with tr.add(gr.Accordion, label="common.raw", open=False):
        raw = gr.JSON(first[0], show_label=False)
    paper_views.panel(tr, "sharing")  # Tables 4 and 3 beside our ablation runs

    tr.add(gr.Markdown, text="sharing.live.explain")
    with gr.Row():
        text = tr.add(
            gr.Textbox,
            "The old sailor walked along the river and remembered the distant lighthouse.",
            lines=2,
            label="sharing.text",
            scale=3,
            elem_id="sharing-text",
        )
        compare = tr.add(
            gr.Dropdown,
            value=ctx.compare_default,
            choices=lambda lang: compare_choices(list(ctx.shipped), lang),
            allow_custom_value=True,
            label="attention.compare",
            info="attention.compare.info",
        )
    button = tr.add(gr.Button, text="sharing.button", variant="primary", elem_id="sharing-button")
    live_status = gr.Markdown(elem_id="transitions-status")
    with gr.Row():
        l2 = gr.Plot(show_label=False)
        cosine = gr.Plot(show_label=False)  # the angle in degrees, as the paper draws it
    with tr.add(gr.Accordion, label="common.raw", open=False):
        live_raw = gr.JSON(show_label=False)

    outputs = [raw, status, per_mode, mlm_curves, sop_curves, summary, table]
    tr.refresh("sharing_modes", views.sharing_modes, [config, lang], outputs)
    config.input(views.sharing_modes, inputs=[config, lang], outputs=outputs, api_name="sharing_modes", **queues.LIGHT)
    gr.on(
        [button.click, text.submit],
        views.layer_transitions,
        inputs=[text, ctx.model, compare, lang],
        outputs=[live_raw, live_status, l2, cosine],
        api_name="layer_transitions",
        **queues.MODEL,
    )
