"""Tab 1, the parameter calculator: layout and events. The logic lives in app.calculator / app.views."""

from __future__ import annotations

from collections.abc import Callable

import gradio as gr

from albert.config import PRESETS, SHARING_MODES
from app import queues
from app.calculator import preset_values
from app.i18n import Translations, t


def sharing_choices(lang: str) -> list[tuple[str, str]]:
    return [(t(f"sharing.{mode}", lang), mode) for mode in SHARING_MODES]


def build(tr: Translations, lang: gr.Radio, parameters_view: Callable, preset_view: Callable,
          preset_choices: Callable[[str], list[tuple[str, str]]]) -> None:
    """The calculator tab; call inside a `gr.Tab`. `/parameters` and `/preset` are its endpoints."""
    tr.add(gr.Markdown(t("calc.explain", "en")), value="calc.explain")
    start = preset_values(PRESETS["albert-base"])
    # Filled at start-up so the tab is never empty (no load event needed).
    first_raw, first_status, first_embedding, first_totals, first_table, first_variants, first_sweep = \
        parameters_view(*start, lang="en")
    with gr.Row():
        with gr.Column(scale=2, min_width=320):
            preset = tr.add(gr.Dropdown(preset_choices("en"), value="albert-base", label=t("field.preset", "en"),
                                        info=t("field.preset.info", "en")),
                            label="field.preset", info="field.preset.info", choices=preset_choices)
            with gr.Row():
                vocab = _number(tr, "vocab_size", start[0])
                embedding = _number(tr, "embedding_size", start[1])
                hidden = _number(tr, "hidden_size", start[2])
            with gr.Row():
                layers = _number(tr, "num_hidden_layers", start[3])
                heads = _number(tr, "num_attention_heads", start[4])
                ffn = _number(tr, "intermediate_size", start[5])
            sharing = tr.add(gr.Radio(sharing_choices("en"), value=start[6], label=t("field.sharing", "en")),
                             label="field.sharing", choices=sharing_choices)
            with gr.Row():
                groups = tr.add(gr.Number(start[7], precision=0, label=t("field.num_hidden_groups", "en"),
                                          info=t("field.num_hidden_groups.info", "en")),
                                label="field.num_hidden_groups", info="field.num_hidden_groups.info")
                positions = _number(tr, "max_position_embeddings", start[9])
                project = tr.add(gr.Checkbox(start[8], label=t("field.project_embeddings", "en"),
                                             info=t("field.project_embeddings.info", "en")),
                                 label="field.project_embeddings", info="field.project_embeddings.info")
            button = tr.add(gr.Button(t("calc.button", "en"), variant="primary"), value="calc.button")
        with gr.Column(scale=3, min_width=360):
            status = gr.Markdown(first_status, elem_id="parameters-status")
            embedding_md = gr.Markdown(first_embedding, elem_id="embedding-arithmetic")
            totals_md = gr.Markdown(first_totals, elem_id="parameters-totals")
    with gr.Row():
        variants_plot = gr.Plot(first_variants, show_label=False)
        sweep_plot = gr.Plot(first_sweep, show_label=False)
    table = tr.add(gr.Dataframe(first_table, label=t("calc.table", "en"), interactive=False, wrap=True),
                   label="calc.table")
    with gr.Accordion(t("common.raw", "en"), open=False) as raw_box:
        raw = gr.JSON(first_raw, show_label=False)
    tr.add(raw_box, label="common.raw")

    fields = [vocab, embedding, hidden, layers, heads, ffn, sharing, groups, project, positions]
    outputs = [raw, status, embedding_md, totals_md, table, variants_plot, sweep_plot]
    gr.on([button.click, *(f.input for f in fields), *(f.submit for f in fields if hasattr(f, "submit"))],
          parameters_view, inputs=[*fields, lang], outputs=outputs, api_name="parameters",
          trigger_mode="always_last", **queues.LIGHT)
    tr.refresh("parameters", parameters_view, [*fields, lang], outputs)
    preset.input(preset_view, inputs=[preset, lang], outputs=[*fields, *outputs], api_name="preset",
                 **queues.LIGHT)


def _number(tr: Translations, name: str, value: int) -> gr.Number:
    return tr.add(gr.Number(value, precision=0, label=t(f"field.{name}", "en")), label=f"field.{name}")
