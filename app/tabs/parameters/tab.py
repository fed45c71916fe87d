"""Tab 1, the parameter calculator: layout and events. The logic lives beside it: `calculator` (counts, presets),
`costs` (compute and memory), `views` (what the events return), `plots` (its figures)."""

from __future__ import annotations

from typing import Any

import gradio as gr

from albert.core.config import PRESETS, SHARING_MODES
from app.i18n import Translations, t
from app.page.endpoints import Endpoint
from app.paper import views as paper_views
from app.tabs import TabContext
from app.tabs.parameters import costs, views
from app.tabs.parameters.calculator import matching_preset, preset_values

FORM = (
    "vocab_size",
    "embedding_size",
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "intermediate_size",
    "sharing",
    "num_hidden_groups",
    "project_embeddings",
    "max_position_embeddings",
)
"""The form's fields, in the order every endpoint of the tab takes them."""


def sharing_choices(lang: str) -> list[tuple[str, str]]:
    return [(t(f"sharing.{mode}", lang), mode) for mode in SHARING_MODES]


def preset_match(*values: object) -> str:
    """/preset_match: the preset the form equals, else 'custom' (so re-choosing a preset refills the form)."""
    names = [value for _, value in views.preset_choices("en") if value != "custom"]
    return matching_preset(values, {name: views.preset_fields(name) for name in names})


PARAMETERS = Endpoint("parameters", views.parameters_view, "light")
PRESET = Endpoint("preset", views.preset_view, "light")
PRESET_MATCH = Endpoint("preset_match", preset_match, "light", parameters=FORM)
COMPUTE = Endpoint("compute", costs.compute_view, "light")
MEASURE_SPEED = Endpoint("measure_speed", costs.measure_view, "measure")
ENDPOINTS = (PARAMETERS, PRESET, PRESET_MATCH, COMPUTE, MEASURE_SPEED)


def build(ctx: TabContext) -> None:
    """The calculator tab; call inside a `gr.Tab`.

    Endpoints: `/parameters`, `/preset`, `/preset_match` (an edited form shows '(custom)'), `/compute`
    (FLOPs and memory) and `/measure_speed` (times the four sharing modes on this computer).
    """
    tr, lang = ctx.tr, ctx.lang
    tr.add(gr.Markdown, text="calc.explain")
    start = preset_values(PRESETS["albert-base"])
    first = views.parameters_view(*start, lang="en")  # filled at start-up so the tab is never empty
    with gr.Row():
        with gr.Column(scale=2, min_width=320):
            preset = tr.add(
                gr.Dropdown,
                value="albert-base",
                label="field.preset",
                info="field.preset.info",
                choices=views.preset_choices,
            )
            with gr.Row():
                vocab = _number(tr, "vocab_size", start[0])
                embedding = _number(tr, "embedding_size", start[1])
                hidden = _number(tr, "hidden_size", start[2])
            with gr.Row():
                layers = _number(tr, "num_hidden_layers", start[3])
                heads = _number(tr, "num_attention_heads", start[4])
                ffn = _number(tr, "intermediate_size", start[5])
            sharing = tr.add(gr.Radio, value=start[6], label="field.sharing", choices=sharing_choices)
            with gr.Row():
                groups = tr.add(
                    gr.Number,
                    start[7],
                    precision=0,
                    label="field.num_hidden_groups",
                    info="field.num_hidden_groups.info",
                )
                positions = _number(tr, "max_position_embeddings", start[9])
                project = tr.add(
                    gr.Checkbox, start[8], label="field.project_embeddings", info="field.project_embeddings.info"
                )
            button = tr.add(gr.Button, text="calc.button", variant="primary")
        with gr.Column(scale=3, min_width=360):
            status = gr.Markdown(first.status, elem_id="parameters-status")
            embedding_md = gr.Markdown(first.embedding, elem_id="embedding-arithmetic")
            totals_md = gr.Markdown(first.totals, elem_id="parameters-totals")
    with gr.Row():
        variants_plot = gr.Plot(first.variants, show_label=False)
        sweep_plot = gr.Plot(first.sweep, show_label=False)
    # Widths as shares of the table (Gradio sizes a column by its unwrapped text otherwise): the three columns fit a
    # 390 px phone, a component's name wraps, a number never does (app/static/lab.css keeps a phone's font small); tall
    # enough for all eleven rows, the total included, without an inner scroll.
    table = tr.add(
        gr.Dataframe,
        first.table,
        label="calc.table",
        interactive=False,
        wrap=True,
        column_widths=["40%", "35%", "25%"],
        max_height=720,
    )
    with tr.add(gr.Accordion, label="common.raw", open=False):
        raw = gr.JSON(first.raw, show_label=False)

    fields = [vocab, embedding, hidden, layers, heads, ffn, sharing, groups, project, positions]
    outputs = [raw, status, embedding_md, totals_md, table, variants_plot, sweep_plot]
    # One listener per field trigger, the rest chained with .then: Gradio re-sends a deferred ("always_last")
    # listener by re-dispatching its trigger, which also re-sends every other listener of that trigger; two or
    # more of them still running defer each other for ever (three here sent 69 requests in 2 minutes after four
    # keystrokes, tests/app/page/test_freshness_browser.py).
    edited = PARAMETERS.on(
        [button.click, *(f.input for f in fields), *(f.submit for f in fields if hasattr(f, "submit"))],
        [*fields, lang],
        outputs,
        trigger_mode="always_last",
    )
    tr.refresh("parameters", views.parameters_view, [*fields, lang], outputs)
    preset_event = PRESET.on(preset.input, [preset, lang], [*fields, *outputs])
    matched = PRESET_MATCH.then(edited, fields, [preset])

    _build_costs(ctx, fields, matched, preset_event)
    paper_views.panel(tr, "calc")  # Tables 1, 2 and 6 beside our exact counts
    paper_views.panel(tr, "misreadings", open=True)


def _build_costs(ctx: TabContext, fields: list, edited: Any, preset_event: Any) -> None:
    """Compute and memory: FLOPs per token, weight / activation memory, the paper's Table 2, and timing."""
    tr, lang = ctx.tr, ctx.lang
    tr.add(gr.Markdown, text="compute.title")
    with gr.Row():
        batch = _number(tr, "batch_size", 8)
        seq = _number(tr, "seq_len", 512)
        mlm = tr.add(gr.Checkbox, False, label="field.count_mlm_head", info="field.count_mlm_head.info")
    first = costs.compute_view(*preset_values(PRESETS["albert-base"]), 8, 512, False, lang="en")
    status = gr.Markdown(first.status, elem_id="compute-status")
    with gr.Row():
        flops_md = gr.Markdown(first.flops, elem_id="compute-flops")
        memory_md = gr.Markdown(first.memory, elem_id="compute-memory")
    paper_md = gr.Markdown(first.paper, elem_id="compute-paper")
    with tr.add(gr.Accordion, label="common.raw", open=False):
        raw = gr.JSON(first.raw, show_label=False)
    inputs = [*fields, batch, seq, mlm, lang]
    outputs = [raw, status, flops_md, memory_md, paper_md]
    COMPUTE.on(
        [*(c.input for c in (batch, seq, mlm)), *(c.submit for c in (batch, seq))],
        inputs,
        outputs,
        trigger_mode="always_last",
    )
    COMPUTE.then(edited, inputs, outputs, "after_edit")
    COMPUTE.then(preset_event, inputs, outputs, "after_preset")
    tr.refresh("compute", costs.compute_view, inputs, outputs)

    explain = gr.Markdown(costs.measure_explain("en"), elem_id="measure-explain")
    tr.refresh("measure_explain", costs.measure_explain, [lang], [explain])
    measure_button = tr.add(gr.Button, text="compute.measure.button")
    measure_status = gr.Markdown(t("compute.measure.pending", "en"), elem_id="measure-status")
    measured_md = gr.Markdown("", elem_id="measure-result")
    measured_plot = gr.Plot(costs.measure_render(None, "en").chart, show_label=False, elem_id="measure-chart")
    with tr.add(gr.Accordion, label="common.raw", open=False):
        measured_raw = gr.JSON({}, show_label=False)
    MEASURE_SPEED.on(
        measure_button.click, [*fields, seq, lang], [measured_raw, measure_status, measured_md, measured_plot]
    )
    # The language switch redraws the last timing from its JSON instead of timing again.
    tr.refresh(
        "measure_render", costs.measure_render, [measured_raw, lang], [measure_status, measured_md, measured_plot]
    )


def _number(tr: Translations, name: str, value: int) -> gr.Number:
    return tr.add(gr.Number, value, precision=0, label=f"field.{name}")
