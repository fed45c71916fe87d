"""Tab 2, sharing modes: parameters per mode, recorded ablation runs, and how much each pass changes its input."""

from __future__ import annotations

from collections.abc import Callable

import gradio as gr

from app import paper_views, queues
from app.i18n import Translations, t


def build(tr: Translations, lang: gr.Radio, model: gr.Dropdown, config_choices: Callable[[str], list],
          config_default: str, compare_choices: list[str], compare_default: str | None,
          sharing_modes_view: Callable, layer_transitions_view: Callable) -> None:
    """The sharing tab; `/sharing_modes` and `/layer_transitions` are its endpoints."""
    tr.add(gr.Markdown(t("sharing.explain", "en")), value="sharing.explain")
    first = sharing_modes_view(config_default, "en")
    with gr.Row():
        config = tr.add(gr.Dropdown(config_choices("en"), value=config_default, label=t("sharing.config", "en")),
                        label="sharing.config", choices=config_choices)
    status = gr.Markdown(first[1], elem_id="sharing-status")
    with gr.Row():
        per_mode = gr.Plot(first[2], show_label=False)
        summary = gr.Plot(first[5], show_label=False)
    with gr.Row():
        mlm_curves = gr.Plot(first[3], show_label=False)
        sop_curves = gr.Plot(first[4], show_label=False)
    table = tr.add(gr.Dataframe(first[6], label=t("sharing.table", "en"), interactive=False), label="sharing.table")
    with gr.Accordion(t("common.raw", "en"), open=False) as raw_box:
        raw = gr.JSON(first[0], show_label=False)
    tr.add(raw_box, label="common.raw")
    paper_views.panel(tr, lang, "sharing")  # Tables 4 and 3 beside our ablation runs

    tr.add(gr.Markdown(t("sharing.live.explain", "en")), value="sharing.live.explain")
    with gr.Row():
        text = tr.add(gr.Textbox("The old sailor walked along the river and remembered the distant lighthouse.",
                                 lines=2, label=t("sharing.text", "en"), scale=3, elem_id="sharing-text"),
                      label="sharing.text")
        compare = tr.add(gr.Dropdown(compare_choices, value=compare_default, allow_custom_value=True,
                                     label=t("attention.compare", "en"), info=t("attention.compare.info", "en")),
                         label="attention.compare", info="attention.compare.info")
    button = tr.add(gr.Button(t("sharing.button", "en"), variant="primary", elem_id="sharing-button"),
                    value="sharing.button")
    live_status = gr.Markdown(elem_id="transitions-status")
    with gr.Row():
        l2 = gr.Plot(show_label=False)
        cosine = gr.Plot(show_label=False)
    with gr.Accordion(t("common.raw", "en"), open=False) as live_raw_box:
        live_raw = gr.JSON(show_label=False)
    tr.add(live_raw_box, label="common.raw")

    tr.refresh("sharing_modes", sharing_modes_view, [config, lang],
               [raw, status, per_mode, mlm_curves, sop_curves, summary, table])
    config.input(sharing_modes_view, inputs=[config, lang],
                 outputs=[raw, status, per_mode, mlm_curves, sop_curves, summary, table], api_name="sharing_modes",
                 **queues.LIGHT)
    gr.on([button.click, text.submit], layer_transitions_view, inputs=[text, model, compare, lang],
          outputs=[live_raw, live_status, l2, cosine], api_name="layer_transitions", **queues.MODEL)
