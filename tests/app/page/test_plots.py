"""The charts drawn on every request are plain JSON (`app.page.plots.FigureJSON`, issue 35): the same figure
plotly would build, without its object model (36 ms of the interpreter per attention answer before)."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from app.page.plots import FigureJSON, lines_figure
from app.tabs.attention.plots import BLUES, head_heatmaps_figure


def test_heatmaps_keep_plotlys_grid_and_write_the_colour_scale_out() -> None:
    maps = np.random.default_rng(0).random((5, 2, 4, 4)).astype(np.float32)
    figure = head_heatmaps_figure(maps, ["[CLS]", "▁a", "▁b", "[SEP]"], 1)
    layout = json.loads(figure.to_json())["layout"]
    grid = make_subplots(rows=2, cols=3, horizontal_spacing=0.09, vertical_spacing=90 / (2 * 240 + 90)).layout
    for i in range(1, 7):
        suffix = str(i) if i > 1 else ""
        for axis in ("xaxis", "yaxis"):
            expected = grid[f"{axis}{suffix}"]
            assert layout[f"{axis}{suffix}"]["domain"] == list(expected.domain), f"{axis}{suffix}"
            assert layout[f"{axis}{suffix}"]["anchor"] == expected.anchor
    assert layout["xaxis"]["gridcolor"] == "#e5e7eb"  # the page's look on the first map too
    assert layout["coloraxis"]["colorscale"] == [list(step) for step in BLUES]  # not plotly.js's own "Blues"
    data = figure.to_dict()["data"]
    assert [trace["xaxis"] for trace in data] == ["x", "x2", "x3", "x4", "x5"]
    assert data[4]["z"] == np.round(maps[4, 1].astype(np.float64), 3).tolist()
    go.Figure(figure.to_dict())  # plotly accepts every key: nothing misspelt


def test_lines_are_plain_json_that_plotly_validates_with_their_range() -> None:
    figure = lines_figure({"all": [0.5, 0.25, 0.125], "none": [0.4, 0.3, 0.2]}, "title", "pass", "value", 1, (0, 1))
    assert isinstance(figure, FigureJSON)
    assert [list(trace.x) for trace in figure.data] == [[1, 2, 3], [1, 2, 3]]  # read through plotly, validated
    assert list(figure.layout.yaxis.range) == [0, 1] and figure.layout.xaxis.title.text == "pass"
    assert json.loads(figure.to_json())["data"][1]["y"] == [0.4, 0.3, 0.2]


def test_the_calculators_charts_mark_the_chosen_embedding_size() -> None:
    from app.tabs.parameters.calculator import ParameterForm, calculate
    from app.tabs.parameters.plots import sweep_figure, variants_figure

    calc = calculate(ParameterForm(30000, 128, 768, 12, 12, 3072, "all", 1, True, 512), "en")
    sweep = sweep_figure(calc, "en")
    line = sweep.to_dict()["layout"]["shapes"][0]
    assert (line["x0"], line["x1"], line["yref"]) == (128, 128, "y domain")
    assert sweep.layout.xaxis.type == "log" and len(sweep.data) >= 4
    bars = variants_figure(calc, "en")
    totals = bars.to_dict()["data"][-1]["y"]
    assert bars.layout.yaxis.range[1] == max(totals) * 1.15 and bars.layout.barmode == "stack"


def test_bar_names_fit_four_abreast_on_a_phone_in_both_languages() -> None:
    """Under the bars of a 390 px phone a line holds five Chinese characters or about 14 Latin letters; an opening
    bracket starts its line (a real CJK font drew "两者都不用（BERT 式）" past the screen's edge, turned 30°)."""
    from app.i18n import t
    from app.page.plots import _units, tick_names, wrap_title

    keys = ("calc.chart.this", "calc.chart.no_fact", "calc.chart.no_share", "calc.chart.neither")
    for lang, widest in (("en", 14), ("zh", 10)):
        for name in tick_names([t(key, lang) for key in keys], lang):
            # an opening bracket moved down to the line it opens ("（BERT 式）") is not counted
            assert all(_units(line.lstrip("（(")) <= widest for line in name.split("<br>") if " " in line), name
    assert tick_names([t(key, "zh") for key in keys], "zh") == [
        "本模型",
        "不分解<br>（E=H）",
        "不共享",
        "都不用<br>（BERT 式）",
    ]
    assert tick_names(["全部共享（ALBERT）", "不共享（BERT）"], "zh") == [
        "全部共享<br>（ALBERT）",
        "不共享<br>（BERT）",
    ]
    assert wrap_title("两者都不用（BERT 式）", 12) == ["两者都不用", "（BERT 式）"]  # not "两者都不用（" / "BERT 式）"


def test_the_phone_charts_draw_their_bar_names_upright() -> None:
    from albert.core.config import AlbertConfig
    from app.tabs.parameters import views
    from app.tabs.parameters.plots import measure_figure
    from app.tabs.parameters.tab import PRESETS, preset_values
    from app.tabs.sharing.plots import mode_parameters_figure

    assert mode_parameters_figure(AlbertConfig(), "zh").layout.xaxis.tickangle == 0
    assert mode_parameters_figure(AlbertConfig(), "zh").data[0].x[0] == "全部共享<br>（ALBERT）"
    modes = [
        dict(sharing=m, parameters_vs_none=1.0, time_vs_none=1.0, time_vs_none_min=0.9, time_vs_none_max=1.1)
        for m in ("all", "attention", "ffn", "none")
    ]
    timed = measure_figure({"modes": modes}, "zh")  # the speed chart names the same modes the same way
    assert timed.layout.xaxis.tickangle == 0 and timed.data[0].x[0] == "全部共享<br>（ALBERT）"
    variants = views.parameters_view(*preset_values(PRESETS["albert-base"]), lang="zh").variants
    assert json.loads(variants.to_json())["layout"]["xaxis"]["tickangle"] == 0
