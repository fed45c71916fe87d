"""Readable charts, bertviz numbered like the rest, results that are never stale (issue 17, items 2, 4, 5).

Pure functions on tiny models; the browser checks of the same things are in tests/test_app_layout.py.
"""

from __future__ import annotations

import html
import json
import re

import gradio as gr
import numpy as np
import pytest
from app_support import use_tiny_assets


@pytest.fixture(autouse=True)
def tiny(monkeypatch: pytest.MonkeyPatch):
    return use_tiny_assets(monkeypatch)


def _document(iframe_html: str) -> str:
    return html.unescape(re.search(r'srcdoc="([^"]*)"', iframe_html).group(1))


def _params(document: str) -> dict:
    """bertviz's parameters as the page receives them (the JSON after `const params = `)."""
    text = document.split("const params = ", 1)[1]
    return json.JSONDecoder().raw_decode(text)[0]


# ----- the [MASK] chart ------------------------------------------------------------------------------
def test_every_mask_shares_one_0_to_100_axis_with_a_chance_line() -> None:
    from app.model_views import fill_mask_view
    from app.models import shipped_config

    raw, _, _, chart, _ = fill_mask_view("the old [MASK] walked along the [MASK] .", 5, "", "en")
    layout = chart.to_dict()["layout"]
    axes = sorted(key for key in layout if key.startswith("xaxis"))
    assert axes == ["xaxis", "xaxis2"]
    for key in axes:
        assert layout[key]["range"] == [0, 1] and layout[key]["tickformat"] == ".0%"
    assert layout["xaxis2"]["matches"] == "x"  # one axis: the same bar length means the same probability
    assert [layout[key]["showticklabels"] for key in axes] == [False, True]  # tick labels only under the last
    vocab = shipped_config("albert-lab-base").vocab_size
    lines = [shape for shape in layout["shapes"] if shape["type"] == "line"]
    assert len(lines) == 2 and {(shape["x0"], shape["x1"]) for shape in lines} == {(1 / vocab, 1 / vocab)}
    assert {shape["yref"] for shape in lines} == {"y domain", "y2 domain"}  # the whole height of each panel
    assert any(f"1/V = 1/{vocab:,}" in note["text"] for note in layout["annotations"])


def test_mask_panel_titles_sit_in_their_own_row_above_the_bars() -> None:
    from app.model_plots import BAR_PX, PANEL_TITLE_PX, topk_panels

    for panels, k in ((1, 5), (2, 5), (3, 20), (8, 1)):
        height, domains = topk_panels(panels, k)
        plot = height - 56 - 84
        tops = [high for _, high in domains]
        assert tops == sorted(tops, reverse=True)
        for i, (low, high) in enumerate(domains):
            assert (high - low) * plot == pytest.approx(k * BAR_PX)
            above = 1.0 if i == 0 else domains[i - 1][0]  # the bottom of the panel above (no tick labels there)
            assert (above - high) * plot >= PANEL_TITLE_PX - 1e-6  # the title's row is free of bars and ticks


# ----- attention heatmaps, bertviz -------------------------------------------------------------------
def test_heatmaps_carry_tokens_on_every_map_and_number_passes_from_one() -> None:
    from app.model_plots import head_heatmaps_figure
    from app.model_views import attention_view

    raw, status, head_view, model_view, heatmaps, _ = attention_view("the old sailor walked", "", 9, 48, "", "", "en")
    figure = heatmaps.to_dict()
    layers = raw["layers"]
    titles = [a["text"] for a in figure["layout"]["annotations"]]
    assert titles == [f"pass {i}" for i in range(1, layers + 1)]
    tokens = [tok.replace("▁", " ").strip() or tok for tok in raw["tokens"]]
    for name in [k for k in figure["layout"] if re.fullmatch(r"[xy]axis\d*", k)]:
        axis = figure["layout"][name]
        assert axis.get("showticklabels", True) and axis["ticktext"] == tokens, name
    assert len([k for k in figure["layout"] if re.fullmatch(r"xaxis\d*", k)]) == layers == 4  # a 2 × 2 grid
    odd = head_heatmaps_figure(np.full((5, 2, 3, 3), 1 / 3), ["[CLS]", "▁a", "[SEP]"], 0).to_dict()["layout"]
    assert odd["xaxis6"]["visible"] is False and odd["yaxis6"]["visible"] is False  # no axes in the empty cell
    assert odd["xaxis5"]["ticktext"] == ["[CLS]", "a", "[SEP]"]
    # A head past the model's last one is shown as the last one, and said so.
    assert f"has {raw['heads']} heads" in status
    assert figure["layout"]["title"]["text"] == f"Head {raw['heads']} at every pass"


def test_bertviz_numbers_layers_and_heads_from_one_in_the_interface_language() -> None:
    from app.attention_view import _bertviz_js, bertviz_document

    maps = np.full((3, 2, 4, 4), 0.25, np.float32)
    head = bertviz_document("head", ["[CLS]", "▁a", "▁b", "[SEP]"], maps, lang="zh")
    assert ".text(layer + 1)" in head and "层：" in head
    model = bertviz_document("model", ["[CLS]", "▁a", "[SEP]", "▁b"], maps, b_start=3, lang="zh")
    params = _params(model)
    assert params["labels"] == {
        "heads": "注意力头",
        "layers": "层（计算次序）",
        "detail": "第 {layer} 层，第 {head} 个头",
    }
    assert ".text(config.layers[i] + 1)" in model and ".text(config.heads[i] + 1)" in model
    assert '"Heads"' not in model and '"Layers"' not in model and "'Layer '" not in model
    assert [d["name"] for d in params["attention"]] == [
        "全部",
        "句子 A → 句子 A",
        "句子 B → 句子 B",
        "句子 A → 句子 B",
        "句子 B → 句子 A",
    ]
    for kind in ("head", "model"):  # every patch found its place in this bertviz
        from app.attention_view import _PATCHES

        source = _bertviz_js(kind)
        assert all(new in source for _, new in _PATCHES[kind] if new)


def test_model_view_is_sized_to_its_frame() -> None:
    from app.attention_view import ViewSize, iframe, model_view_layout, view_size

    # bertviz alone: 7 × 12 / heads px a token, 42 px for 2 heads: a 6-pass, 13-token view 3,400 px tall.
    layout = model_view_layout(layers=6, heads=2, tokens=13)
    assert layout["box_height"] == 7 and layout["height"] == 6 * (13 * 7 + 10) + 38
    size = view_size("model", 6, 2, 13)
    assert size.height < 800 and size.width == layout["div_width"] + 16
    assert model_view_layout(12, 12, 48)["div_width"] == 970  # bertviz's own width, from 7 heads on
    assert model_view_layout(12, 64, 128)["height"] < 2 * 12 * (128 * 2 + 10) + 2500
    frame = iframe("<p>x</p>", ViewSize(564, 700), "t")
    assert "aspect-ratio:564 / 700" in frame and "max-height:700px" in frame
    _, _, head_view, model_view, _, _ = __import__("app.model_views", fromlist=["x"]).attention_view(
        "the old sailor", "", 1, 48, "", "", "en"
    )
    document = _document(model_view)
    assert "document.documentElement.style.zoom" in document  # scaled down to a narrow frame, never up
    assert len(re.findall(r"<script>", document)) == 1


# ----- 中文 -----------------------------------------------------------------------------------------
def test_mode_names_and_the_paper_note_follow_the_language() -> None:
    import pandas as pd

    from app.i18n import mode_name
    from app.paper import paper_note
    from app.runs import summary_table

    assert mode_name("all", "en") == "all" and mode_name("all", "zh") == "全部共享（ALBERT）"
    assert mode_name("ffn", "zh") == "仅前馈" and mode_name("odd", "zh") == "odd"
    assert paper_note("none", "sop", 64, "zh").startswith("表 4 (E 768) 不共享（BERT）: 平均 ")
    assert paper_note("none", "sop", 64) == paper_note("none", "sop", 64, "en")
    row = {
        "run": "r",
        "sharing": "attention",
        "objective": "none",
        "embedding_size": 64,
        "parameters": 9,
        "tokens": 1e6,
    }
    table = summary_table(pd.DataFrame([row]), "zh")
    values = " ".join(str(v) for v in table.iloc[0].to_numpy()) + " ".join(table.columns)
    assert "仅注意力" in values and "无（只有 MLM）" in values
    assert not re.search(r"\b(attention|none|Table|Avg)\b", values)


def test_status_lines_and_legends_name_the_mode_in_chinese() -> None:
    from app.model_views import attention_view, fill_mask_view

    _, status, *_ = fill_mask_view("the old [MASK] .", 5, "", "zh")
    assert "共享方式 全部共享（ALBERT）" in status and "sharing all" not in status
    raw, *_, similarity = attention_view("the old sailor", "", 1, 48, "", "", "zh")
    names = [trace["name"] for trace in similarity.to_dict()["data"]]
    assert names == ["albert-lab-base (全部共享（ALBERT）)", "albert-lab-none (不共享（BERT）)"]
    assert list(raw["pass_to_pass_similarity"]) == ["albert-lab-base (all)", "albert-lab-none (none)"]  # API keys


# ----- fresh results ---------------------------------------------------------------------------------
def test_open_runs_only_when_nothing_is_shown_and_the_language_redraws_only_what_is() -> None:
    from app.freshness import run_if_shown, run_unless_shown, stale_outputs

    calls = []

    def view(text: str, lang: str) -> tuple:
        calls.append((text, lang))
        return ({"ok": text}, "status", "chart")

    on_open, redraw = run_unless_shown(view, 3), run_if_shown(view, 3)
    assert on_open(None, "a", "en") == ({"ok": "a"}, "status", "chart")
    assert on_open({"ok": "a"}, "b", "en") == (gr.skip(),) * 3 and calls == [("a", "en")]
    assert redraw(None, "a", "zh") == (gr.skip(),) * 3 and calls == [("a", "en")]
    assert redraw({"error": "x"}, "a", "zh")[0] == {"ok": "a"} and calls[-1] == ("a", "zh")
    assert on_open.__name__ == "view_unless_shown"  # a name for the log; the signature is the wrapper's own
    words = gr.Radio(["x"], render=False)
    cleared = stale_outputs([gr.JSON(render=False), gr.Markdown(render=False), words], "mask.button", "zh")
    assert cleared[0] is None and "按 **预测**" in cleared[1] and cleared[2]["choices"] == []


def test_every_model_tab_is_wired_to_open_clear_and_rerun() -> None:
    from app.layout import MODEL_EVENTS, build_app

    demo = build_app()
    names = {fn.api_name for fn in demo.fns.values()}
    for api, _ in MODEL_EVENTS.values():
        assert {f"{api}_on_open", f"{api}_in_language"} <= names, api
        assert (f"{api}_new_model" in names) == (api != "sentiment"), api  # sentiment has its own model
        assert f"{api}_stale" in names, api  # every model tab has a text box
    assert {"fill_mask_again", "attention_again"} <= names  # top-k; head, token limit, compared model
    assert {"fill_mask_example", "sentence_order_example", "sentiment_example"} <= names
    heads = next(c for c in demo.blocks.values() if getattr(c, "elem_id", None) == "attention-head")
    assert heads.maximum == 4  # the tiny default model's heads, not 64
    # Typing in any of a tab's text boxes cancels every run of that tab still on its way (app.freshness).
    by_id = {d["id"]: d for d in demo.config["dependencies"]}
    for api, _ in MODEL_EVENTS.values():
        kinds = ("", "_example", "_fails_example", "_on_open", "_again", "_new_model", "_in_language")
        runs = {api + kind for kind in kinds} & names
        event = next(fn for fn in demo.fns.values() if fn.api_name == api)
        boxes = [c._id for c in event.inputs if isinstance(c, gr.Textbox)]
        assert boxes, api
        for box in boxes:
            cancelling = [
                d for d in by_id.values() if [box, "input"] in [list(t) for t in d["targets"]] and d["cancels"]
            ]
            assert len(cancelling) == 1, (api, box)
            assert {by_id[i]["api_name"] for i in cancelling[0]["cancels"]} == runs, api
    assert {"fill_mask_fails_example", "sentence_order_fails_example"} <= names
    language = next(fn for fn in demo.fns.values() if fn.api_name == "set_language")
    assert language.queue is False  # the labels do not wait behind model requests
