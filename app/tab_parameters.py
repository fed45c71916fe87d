"""Tab 1, the parameter calculator: layout and events. The logic lives in app.calculator / app.views."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradio as gr

from albert.config import PRESETS, SHARING_MODES
from app import costs, paper_views, queues
from app.calculator import matching_preset, preset_values
from app.i18n import Translations, t


def sharing_choices(lang: str) -> list[tuple[str, str]]:
    return [(t(f"sharing.{mode}", lang), mode) for mode in SHARING_MODES]


def build(tr: Translations, lang: gr.Radio, parameters_view: Callable, preset_view: Callable,
          preset_choices: Callable[[str], list[tuple[str, str]]], preset_fields: Callable | None = None,
          compute_view: Callable = costs.compute_view, measure_view: Callable = costs.measure_view) -> None:
    """The calculator tab; call inside a `gr.Tab`.

    Endpoints: `/parameters`, `/preset`, `/preset_match` (an edited form shows '(custom)'), `/compute`
    (FLOPs and memory) and `/measure_speed` (times the four sharing modes on this computer).
    `preset_fields(name)` gives a preset's form values (default: `app.views.preset_fields`).
    """
    if preset_fields is None:
        from app.views import preset_fields
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
    preset_event = preset.input(preset_view, inputs=[preset, lang], outputs=[*fields, *outputs], api_name="preset",
                                **queues.LIGHT)

    def preset_match(*values: object) -> str:
        """/preset_match: the preset the form equals, else 'custom' (so re-choosing a preset refills the form)."""
        names = [value for _, value in preset_choices("en") if value != "custom"]
        return matching_preset(values, {name: preset_fields(name) for name in names})

    gr.on([f.input for f in fields], preset_match, inputs=fields, outputs=preset, api_name="preset_match",
          trigger_mode="always_last", **queues.LIGHT)

    _build_costs(tr, lang, fields, button, preset_event, compute_view, measure_view)
    paper_views.panel(tr, lang, "calc")  # Tables 1, 2 and 6 beside our exact counts
    paper_views.panel(tr, lang, "misreadings", open=True)


def _build_costs(tr: Translations, lang: gr.Radio, fields: list, button: gr.Button, preset_event: Any,
                 compute_view: Callable, measure_view: Callable) -> None:
    """Compute and memory: FLOPs per token, weight / activation memory, the paper's Table 2, and timing."""
    tr.add(gr.Markdown(t("compute.title", "en")), value="compute.title")
    with gr.Row():
        batch = _number(tr, "batch_size", 8)
        seq = _number(tr, "seq_len", 512)
        mlm = tr.add(gr.Checkbox(False, label=t("field.count_mlm_head", "en"),
                                 info=t("field.count_mlm_head.info", "en")),
                     label="field.count_mlm_head", info="field.count_mlm_head.info")
    first = compute_view(*preset_values(PRESETS["albert-base"]), 8, 512, False, lang="en")
    status = gr.Markdown(first[1], elem_id="compute-status")
    with gr.Row():
        flops_md = gr.Markdown(first[2], elem_id="compute-flops")
        memory_md = gr.Markdown(first[3], elem_id="compute-memory")
    paper_md = gr.Markdown(first[4], elem_id="compute-paper")
    with gr.Accordion(t("common.raw", "en"), open=False) as raw_box:
        raw = gr.JSON(first[0], show_label=False)
    tr.add(raw_box, label="common.raw")
    inputs = [*fields, batch, seq, mlm, lang]
    outputs = [raw, status, flops_md, memory_md, paper_md]
    triggers = [button.click, *(c.input for c in (*fields, batch, seq, mlm)),
                *(c.submit for c in (*fields, batch, seq) if hasattr(c, "submit"))]
    gr.on(triggers, compute_view, inputs=inputs, outputs=outputs, api_name="compute", trigger_mode="always_last",
          **queues.LIGHT)
    preset_event.then(compute_view, inputs=inputs, outputs=outputs, api_name="compute_after_preset",
                      api_visibility="undocumented", **queues.LIGHT)
    tr.refresh("compute", compute_view, inputs, outputs)

    explain = gr.Markdown(costs.measure_explain("en"), elem_id="measure-explain")
    tr.refresh("measure_explain", costs.measure_explain, [lang], [explain])
    measure_button = tr.add(gr.Button(t("compute.measure.button", "en")), value="compute.measure.button")
    measure_status = gr.Markdown(t("compute.measure.pending", "en"), elem_id="measure-status")
    measured_md = gr.Markdown("", elem_id="measure-result")
    measured_plot = gr.Plot(show_label=False)
    with gr.Accordion(t("common.raw", "en"), open=False) as measured_box:
        measured_raw = gr.JSON({}, show_label=False)
    tr.add(measured_box, label="common.raw")
    measure_button.click(measure_view, inputs=[*fields, seq, lang],
                         outputs=[measured_raw, measure_status, measured_md, measured_plot], api_name="measure_speed",
                         **queues.MODEL)
    # The language switch redraws the last timing from its JSON instead of timing again.
    tr.refresh("measure_render", costs.measure_render, [measured_raw, lang],
               [measure_status, measured_md, measured_plot])


def _number(tr: Translations, name: str, value: int) -> gr.Number:
    return tr.add(gr.Number(value, precision=0, label=t(f"field.{name}", "en")), label=f"field.{name}")
