"""Readable charts, bertviz numbered like the rest, results that are never stale (issue 17, items 2, 4, 5).

Pure functions on tiny models; the browser checks of the same things are in tests/app/test_layout_pages.py.
"""

from __future__ import annotations

import html
import json
import re

import gradio as gr
import numpy as np
import pytest

from tests.app.support import use_tiny_assets


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
    from app.models import shipped_config
    from app.tabs.masked.views import fill_mask_view

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
    from app.tabs.masked.plots import BAR_PX, PANEL_TITLE_PX, topk_panels

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
    from app.tabs.attention.plots import head_heatmaps_figure
    from app.tabs.attention.views import attention_view

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
    from app.tabs.attention.bertviz import _bertviz_js, bertviz_document

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
        from app.tabs.attention.bertviz import _PATCHES

        source = _bertviz_js(kind)
        assert all(new in source for _, new in _PATCHES[kind] if new)


def test_model_view_is_sized_to_its_frame() -> None:
    from app.tabs.attention.bertviz import ViewSize, iframe, model_view_layout, view_size

    # bertviz alone: 7 × 12 / heads px a token, 42 px for 2 heads: a 6-pass, 13-token view 3,400 px tall.
    layout = model_view_layout(layers=6, heads=2, tokens=13)
    assert layout["box_height"] == 7 and layout["height"] == 6 * (13 * 7 + 10) + 38
    size = view_size("model", 6, 2, 13)
    assert size.height < 800 and size.width == layout["div_width"] + 16
    assert model_view_layout(12, 12, 48)["div_width"] == 970  # bertviz's own width, from 7 heads on
    assert model_view_layout(12, 64, 128)["height"] < 2 * 12 * (128 * 2 + 10) + 2500
    frame = iframe("<p>x</p>", ViewSize(564, 700), "t")
    assert "aspect-ratio:564 / 700" in frame and "max-height:700px" in frame
    _, _, head_view, model_view, _, _ = __import__("app.tabs.attention.views", fromlist=["x"]).attention_view(
        "the old sailor", "", 1, 48, "", "", "en"
    )
    document = _document(model_view)
    assert "document.documentElement.style.zoom" in document  # scaled down to a narrow frame, never up
    assert len(re.findall(r"<script>", document)) == 1


# ----- 中文 -----------------------------------------------------------------------------------------
def test_mode_names_and_the_paper_note_follow_the_language() -> None:
    import pandas as pd

    from app.i18n import mode_name
    from app.models.runs import summary_table
    from app.paper import paper_note

    assert mode_name("all", "en") == "all" and mode_name("all", "zh") == "全部共享（ALBERT）"
    assert mode_name("ffn", "zh") == "仅前馈" and mode_name("odd", "zh") == "odd"
    assert paper_note("none", "sop", 64, "zh").startswith("表 4 (E 768) 不共享（BERT）: 平均 ")
    assert paper_note("none", "sop", 64) == paper_note("none", "sop", 64, "en")
    assert paper_note("all", "sop", 32).endswith("Table 3: no row for E 32 (its sizes: 64, 128, 256, 768)")
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
    from app.tabs.attention.views import attention_view
    from app.tabs.masked.views import fill_mask_view

    _, status, *_ = fill_mask_view("the old [MASK] .", 5, "", "zh")
    assert "共享方式 全部共享（ALBERT）" in status and "sharing all" not in status
    raw, *_, similarity = attention_view("the old sailor", "", 1, 48, "", "", "zh")
    names = [trace["name"] for trace in similarity.to_dict()["data"]]
    assert names == ["albert-lab-base (全部共享（ALBERT）)", "albert-lab-none (不共享（BERT）)"]
    assert list(raw["pass_to_pass_similarity"]) == ["albert-lab-base (all)", "albert-lab-none (none)"]  # API keys


# ----- fresh results ---------------------------------------------------------------------------------
def test_open_runs_only_when_nothing_is_shown_and_the_language_redraws_only_what_is() -> None:
    from app.page.freshness import run_if_shown, run_unless_shown, stale_outputs

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
    from app.layout import build_app, model_events

    demo = build_app()
    names = {fn.api_name for fn in demo.fns.values()}
    main = [endpoint.name for endpoint in model_events().values()]
    for api in main:
        assert {f"{api}_on_open", f"{api}_in_language"} <= names, api
        assert (f"{api}_new_model" in names) == (api != "sentiment"), api  # sentiment has its own model
        assert f"{api}_stale" in names, api  # every model tab has a text box
    assert {"fill_mask_again", "attention_again"} <= names  # top-k; head, token limit, compared model
    assert {"fill_mask_example", "sentence_order_example", "sentiment_example"} <= names
    heads = next(c for c in demo.blocks.values() if getattr(c, "elem_id", None) == "attention-head")
    assert heads.maximum == 4  # the tiny default model's heads, not 64
    # Typing in any of a tab's text boxes cancels every run of that tab still on its way (app.page.freshness).
    by_id = {d["id"]: d for d in demo.config["dependencies"]}
    for api in main:
        kinds = ("", "_example", "_fails_example", "_on_open", "_again", "_new_model", "_in_language", "_fresh")
        runs = {api + kind for kind in kinds} & names
        assert {f"{api}_landed", f"{api}_fresh"} <= names, api  # a result landing after its inputs changed: redrawn
        # No listener that Gradio defers shares a trigger with another one: a deferred run re-sends its trigger,
        # and two such listeners send each other again for ever (the picker's four did, after every pick).
        modes = {d["api_name"]: d["trigger_mode"] for d in by_id.values()}
        assert modes[f"{api}_landed"] == "multiple" and modes.get(f"{api}_new_model", "once") == "once", api
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
    # the labels wait behind no model request: queued in a group of their own, one switch at a time (app.hosting)
    from app import hosting

    assert language.queue and language.concurrency_id == "language"
    assert hosting.GROUPS["language"].limit() == 1


def test_a_result_says_what_it_was_drawn_for_and_a_late_one_is_drawn_again() -> None:
    """Runs overlap: a result can land after the language, a control or the text changed (issue 17). Each says
    what it answers (`drawn_for`), and the landing check runs the event again only for one that answers other
    inputs than those on screen."""
    from app.page.freshness import DRAWN_FOR, DRAWN_FOR_EACH, drawn_for, is_stale, landing_check, run_if_stale, stamped

    calls = []

    def view(text: str, lang: str) -> tuple:
        calls.append((text, lang))
        return ({"ok": text}, "status")

    drawn = stamped(view)
    raw, status = drawn("a", "en")
    each = [drawn_for(["a"]), drawn_for(["en"])]
    assert raw == {"ok": "a", DRAWN_FOR: drawn_for(["a", "en"]), DRAWN_FOR_EACH: each} and status == "status"
    assert drawn_for(["a", "en"]) != drawn_for(["a", "zh"]) != drawn_for(["b", "zh"])
    check = run_if_stale(drawn, 2)
    assert check(raw, "a", "en") == (gr.skip(),) * 2 and calls == [("a", "en")]  # it answers what is on screen
    assert check(raw, "a", "zh")[0][DRAWN_FOR] == drawn_for(["a", "zh"]) and calls[-1] == ("a", "zh")  # language
    assert check(raw, "b", "en")[0]["ok"] == "b"  # the text changed while it was on its way
    assert not is_stale(None, ["a", "en"]) and not is_stale({"ok": "a"}, ["b", "en"])  # nothing, or no stamp
    assert check({"ok": "a"}, "b", "en") == (gr.skip(),) * 2  # a result that does not say: left as it is
    # In the app the text boxes are named: typing cleared the result and asked for the button, so a queued redraw
    # leaves a result for another text alone (the page clears it on landing); a language change still re-runs.
    runs = len(calls)
    tab_check = run_if_stale(drawn, 2, text_positions=[0])
    assert tab_check(raw, "b", "en") == (gr.skip(),) * 2 and len(calls) == runs
    assert tab_check(raw, "a", "zh")[0][DRAWN_FOR] == drawn_for(["a", "zh"]) and calls[-1] == ("a", "zh")
    # The check on landing (outside the queue): a redraw mark for a stale result, a late mark naming the result for
    # one whose text changed, nothing for a fresh one. Each mark is new, so that it is a change.
    landed = landing_check([0])
    assert landed(raw, "a", "en") == (gr.skip(), gr.skip()) and landed(None, "a", "zh") == (gr.skip(), gr.skip())
    redraw, late = landed(raw, "a", "zh")
    assert late == gr.skip() and redraw != landed(raw, "a", "zh")[0]
    redraw, late = landed(raw, "b", "en")
    assert redraw == gr.skip() and late.split(" ")[0] == raw[DRAWN_FOR] and late != landed(raw, "b", "en")[1]
    assert landing_check()(raw, "b", "en")[1] == gr.skip()  # no text box named: a changed text is run again
    assert len(drawn_for(["\ud800 a lone surrogate", "en"])) == 16  # any text a client sends can be stamped

    def edit(text: str, index: int, top_k: int, lang: str) -> tuple:  # as /mask_word: the new text, then a result
        return (text.upper(), {"ok": text.upper()}, "status")

    new_text, raw, _ = stamped(edit, writes=("text",), answers=("top_k", "lang"))("a b", 1, 5, "zh")
    assert raw[DRAWN_FOR] == drawn_for([new_text, 5, "zh"])  # the inputs as they are once it has landed

    def refuse(text: str, lang: str) -> tuple:
        return (gr.skip(), {"error": "x"})

    skipped = stamped(refuse, writes=("text",), answers=("lang",))("a", "en")
    assert DRAWN_FOR not in skipped[1]  # what the box will hold is not known: no claim
    with pytest.raises(TypeError, match="answers must name its arguments"):
        stamped(edit, writes=("text",), answers=("model",))  # named wrong: refused when the app is built


def test_every_result_of_the_app_says_what_it_was_drawn_for() -> None:
    """The page's events (the button, opening, redraws) all run the stamped views; refusals are stamped too."""
    from app.layout import build_app, model_events
    from app.page.freshness import DRAWN_FOR, drawn_for, is_stale

    demo = build_app()
    fns = {fn.api_name: fn for fn in demo.fns.values()}
    values = {
        "layer_transitions": ["the old sailor", "", "", "zh"],
        "fill_mask": ["the old [MASK] .", 5, "", "zh"],
        "sentence_order": ["the old sailor .", "then she sat .", "", "zh"],
        "attention": ["the old sailor", "", 1, 48, "", "", "zh"],
        "sentiment": ["the old sailor", "zh"],
    }
    for api in (endpoint.name for endpoint in model_events().values()):
        raw = fns[api].fn(*values[api])[0]
        assert "error" not in raw and raw[DRAWN_FOR] == drawn_for(values[api]), api
        assert is_stale(raw, [*values[api][:-1], "en"]), api  # drawn in 中文: stale once the page is English
        refusal = fns[api].fn(*(["", *values[api][1:]]))[0]  # no text: one sentence, stamped as well
        assert "error" in refusal and refusal[DRAWN_FOR] == drawn_for(["", *values[api][1:]]), api
    masked, raw, *_ = fns["mask_word"].fn("the old sailor", 2, 3, "", "en")
    assert masked == "the old [MASK]" and raw[DRAWN_FOR] == drawn_for([masked, 3, "", "en"])
    a, b, raw, *_ = fns["split_paragraph"].fn("One. Two. Three.", 1, "", "en", "the baker sold bread .")
    assert raw[DRAWN_FOR] == drawn_for([a, b, "", "en", "the baker sold bread ."])  # /sentence_order's five inputs
    other, raw, *_ = fns["draw_other"].fn("the old sailor .", "then she sat .", "", "en", "")
    assert other and raw[DRAWN_FOR] == drawn_for(["the old sailor .", "then she sat .", "", "en", other])


def test_a_cleared_result_keeps_its_sentence_in_the_new_language() -> None:
    """Typing cleared the result (its status says which button shows the new one): a switch to 中文 redraws that
    sentence in 中文 and runs nothing; a shown result is drawn again; a tab never opened stays empty."""
    from app.page.freshness import ModelEvent, redraw_in_language, stale_outputs

    calls = []

    def view(text: str, lang: str) -> tuple:
        calls.append((text, lang))
        return ({"ok": text}, "status", "chart")

    outputs = [gr.JSON(render=False), gr.Markdown(render=False), gr.Plot(render=False)]
    late = gr.Textbox(render=False)
    redraw = redraw_in_language(ModelEvent("view", view, [], outputs, "mask.button", late=late))
    hint = stale_outputs(outputs, "mask.button", "en")[1]
    assert "Predict" in hint
    # The sentence is written by the page, if still no result is shown when the mark arrives (`late_js`): sent from
    # the queue, it could land after the result of a button pressed just after the switch and wipe it.
    *unchanged, mark = redraw(None, hint, "typed", "zh")
    assert unchanged == [gr.skip()] * 3 and mark.startswith(" ") and calls == []
    assert redraw(None, hint, "typed", "zh")[-1] != mark  # a new mark each time: a change
    assert redraw(None, "", "typed", "zh") == (gr.skip(),) * 4 and calls == []
    assert redraw({"ok": "a"}, "status", "a", "zh") == ({"ok": "a"}, "status", "chart", gr.skip())
    assert calls == [("a", "zh")]


# ----- the "pick a word" list ------------------------------------------------------------------------
def _choices(words: object) -> list[str]:
    assert isinstance(words, dict) and words.get("__type__") == "update" and words.get("value") is None, words
    return [label for label, _ in words["choices"]]


def test_the_pick_a_word_list_is_always_the_words_of_the_text() -> None:
    """With a prediction and with the refusal that asks for a [MASK] ("or pick a word"), the list holds the text's
    own words; with the `<unk>` guard's refusal (the model cannot read the text) or no text, none: never the
    previous text's (a radio keeps its choices unless they are replaced)."""
    from app.inference import word_choices
    from app.tabs.masked.views import fill_mask_view

    text = "the old sailor walked along the [MASK] ."
    *_, words = fill_mask_view(text, 5, "", "en")
    assert _choices(words) == [label for label, _ in word_choices(text)] and "3: sailor" in _choices(words)
    plain = "the old sailor walked along the river ."
    raw, status, filled, chart, words = fill_mask_view(plain, 5, "", "en")
    assert "pick a word" in raw["error"] and filled is None and chart is None
    assert _choices(words) == [label for label, _ in word_choices(plain)]
    for unreadable in ("我爱自然语言[MASK]理，这部电影很精彩。", "我爱自然语言处理，这部电影很精彩。"):
        raw, status, _, _, words = fill_mask_view(unreadable, 5, "albert-lab-base", "en")
        assert "cannot read this language" in raw["error"], raw  # the guard's sentence, with or without a [MASK]
        assert _choices(words) == []
    raw, *_, words = fill_mask_view("   ", 5, "", "en")
    assert "error" in raw and _choices(words) == []
    raw, *_, words = fill_mask_view("the [MASK]", 5, "/definitely/not/here", "en")  # not a model: nothing to pick
    assert "error" in raw and _choices(words) == []
