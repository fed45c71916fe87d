"""The app's pure functions: translations, inference on tiny models, bad input, escaping, model views."""

from __future__ import annotations

import html
import json
import re
import string

import numpy as np
import pytest
import torch

from albert import PRESETS, count_parameters
from tests.app.support import tiny_assets, use_tiny_assets


@pytest.fixture(autouse=True)
def _tiny_models(monkeypatch: pytest.MonkeyPatch):
    return use_tiny_assets(monkeypatch)


@pytest.fixture(scope="module")
def lm():
    from app import models

    assets = tiny_assets()
    return models.load_uncached("shipped", str(assets.models / "albert-lab-base"), "en")


# ----- translations -------------------------------------------------------------------------------
def test_every_string_has_english_and_chinese_with_the_same_placeholders() -> None:
    from app.i18n.strings import STRINGS

    fields = lambda s: {f for _, f, _, _ in string.Formatter().parse(s) if f}  # noqa: E731
    for key, (en, zh) in STRINGS.items():
        assert en.strip() and zh.strip(), key
        assert fields(en) == fields(zh), key
        if key not in ("comp.pooler", "order.ab", "order.ba", "mask.panel"):
            assert re.search(r"[\u4e00-\u9fff]", zh), f"{key} has no Chinese"


def test_no_key_is_in_two_string_tables() -> None:
    """The tables are merged into one dictionary: a key written in two of them would silently lose one text."""
    import ast
    from collections import Counter
    from pathlib import Path

    keys: Counter[str] = Counter()
    for path in Path("app").glob("strings*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Dict):
                keys.update(k.value for k in node.keys if isinstance(k, ast.Constant))
    assert not [key for key, n in keys.items() if n > 1]


def test_every_key_used_in_the_code_exists() -> None:
    from pathlib import Path

    from app.i18n.strings import STRINGS

    used = set()
    for path in Path("app").glob("*.py"):
        used |= set(
            re.findall(
                r"""(?:\bt|label=|info=|value=|text=)\(?\s*["']([a-z_]+\.[a-z0-9_.-]+)["']""",
                path.read_text(encoding="utf-8"),
            )
        )
    dynamic_prefixes = ("field.", "sharing.", "comp.", "order.", "runs.", "calc.paper_note.")
    missing = [
        k
        for k in used
        if k not in STRINGS and not k.endswith(".") and not (k.startswith(dynamic_prefixes) and "{" in k)
    ]
    assert not missing, missing


# ----- inference ----------------------------------------------------------------------------------
def test_fill_mask_matches_the_model(lm) -> None:
    from app.inference import fill_mask

    text = "the old sailor walked along the [MASK] near the village ."
    result = fill_mask(lm, text, top_k=5)
    assert len(result.predictions) == 1
    probs = [p for _, p in result.predictions[0].candidates]
    assert probs == sorted(probs, reverse=True) and all(0 < p < 1 for p in probs)
    ids = lm.tokenizer(text)["input_ids"]
    with torch.no_grad():
        logits = lm.model(torch.tensor([ids])).mlm_logits[0, ids.index(lm.mask_id)]
    full = logits.softmax(-1)
    full[list(lm.special_ids)] = -1
    best = lm.tokenizer.convert_ids_to_tokens([int(full.argmax())])[0].replace("▁", "")
    assert result.predictions[0].candidates[0][0] == best
    assert abs(result.predictions[0].candidates[0][1] - float(full.max())) < 1e-5
    assert "[MASK]" not in result.filled_text


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("", "empty"),
        ("   \n\t ", "empty"),
        ("no mask at all", "no [MASK]"),
        ("[MASK] " * 50, "50 [MASK]"),
        ("word " * 300 + "[MASK]", "limit"),
    ],
    ids=["empty", "whitespace", "no-mask", "fifty-masks", "mask-past-limit"],
)
def test_fill_mask_bad_input_gives_one_sentence(text: str, fragment: str) -> None:
    from app.tabs.masked.views import fill_mask_view

    raw, status, *_ = fill_mask_view(text, 5, "", "en")
    assert fragment in raw["error"] and "Traceback" not in status


@pytest.mark.parametrize(
    "text",
    [
        "😀 the [MASK] 🎉",
        "the old sailor walked to 北京 [MASK]",
        "a\x00b\x07c\x1b[MASK]\x7f",
        "[mask] and ［ MASK ］ and <mask>",
        '<script>alert(1)</script> "><img src=x onerror=alert(2)> [MASK]',
        "[MASK] " + "x" * 99_993,
        "[MASK] " + "word " * 30_000,
    ],
    ids=["emoji", "cjk", "control", "mask-variants", "html", "100k-chars", "150k-chars"],
)
def test_fill_mask_odd_input_gives_a_result(text: str) -> None:
    from app.tabs.masked.views import fill_mask_view

    raw, status, filled, chart, words = fill_mask_view(text, 3, "", "en")
    assert "error" not in raw, raw
    assert raw["masks"] and all(len(m["top"]) == 3 for m in raw["masks"])
    if len(text) > 1000:
        assert "cut" in status or "only the first" in status


def test_fill_mask_truncation_and_control_notices() -> None:
    from app.tabs.masked.views import fill_mask_view

    raw, status, *_ = fill_mask_view("[MASK] " + "word " * 300, 5, "", "en")
    assert "cut off" in status and len(raw["tokens"]) == 64
    raw, status, *_ = fill_mask_view("a\x00b [MASK]", 5, "", "zh")
    assert "控制字符" in status


def test_mask_word_and_word_choices() -> None:
    from app.inference import mask_word, word_choices
    from app.tabs.masked.views import mask_word_view

    choices = word_choices("The cat [MASK] on it's mat.")
    assert [label for label, _ in choices] == ["1: The", "2: cat", "4: on", "5: it's", "6: mat"]
    assert mask_word("The cat sat on the mat.", 2) == "The cat [MASK] on the mat."
    out = mask_word_view("the old sailor walked", 1, 5, "", "en")
    assert out[0] == "the [MASK] sailor walked" and out[1]["masks"]


def test_sentence_order_matches_the_model(lm) -> None:
    from app.inference import sentence_order

    a, b = "the old sailor walked along the river .", "then she opened the door ."
    result = sentence_order(lm, a, b)
    ids = lm.tokenizer(a, b)["input_ids"]  # [CLS] A [SEP] B [SEP]; segment 1 starts after the first [SEP]
    types = [0 if i <= ids.index(lm.tokenizer.sep_token_id) else 1 for i in range(len(ids))]
    with torch.no_grad():
        expected = lm.model(torch.tensor([ids]), token_type_ids=torch.tensor([types])).sop_logits.softmax(-1)
    assert abs(result.in_order_ab - float(expected[0, 0])) < 1e-5
    assert 0 < result.in_order_ba < 1 and result.objective == "sop" and not result.notices


def test_sentence_order_views_and_bad_input() -> None:
    from app.tabs.order.views import sentence_order_view, split_paragraph_view

    raw, status, verdict, chart = sentence_order_view("", "something", "", "en")
    assert "Both sentences" in raw["error"]
    a, b, raw, *_ = split_paragraph_view("One sentence. Two sentences! Three? 四。", 2, "", "zh")
    assert (a, b) == ("One sentence. Two sentences!", "Three? 四。") and "error" not in raw
    a, b, raw, *_ = split_paragraph_view("only one sentence", 1, "", "en")
    assert "two sentences" in raw["error"]


def test_checkpoint_without_sentence_head_is_refused_by_sentence_order(tmp_path) -> None:
    from safetensors.torch import load_file, save_file

    from app.inference import InputError, sentence_order
    from app.models import load_uncached

    source = tiny_assets().models / "albert-lab-base"
    for f in source.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    state = {k: v for k, v in load_file(str(source / "model.safetensors")).items() if "sop_classifier" not in k}
    save_file(state, str(tmp_path / "model.safetensors"))
    hub_like = load_uncached("local", str(tmp_path), "en")
    assert not hub_like.has_sentence_head
    with pytest.raises(InputError, match="no trained sentence-order"):  # not a random head's numbers (issue 31)
        sentence_order(hub_like, "a b .", "c d .")


def test_attention_shapes_similarity_and_truncation(lm) -> None:
    from app.inference import attention, attention_similarity

    result = attention(lm, "the old sailor walked", "along the river", max_tokens=48)
    L, A, T = lm.config.num_hidden_layers, lm.config.num_attention_heads, len(result.tokens)
    assert result.attentions.shape == (L, A, T, T)
    assert np.allclose(result.attentions.sum(-1), 1, atol=1e-4)
    assert result.b_start == result.tokens.index("[SEP]") + 1
    assert len(attention_similarity(result.attentions)) == L - 1
    long = attention(lm, "word " * 500, max_tokens=16)
    assert len(long.tokens) == 16 and long.notices


def test_layer_transitions_have_one_value_per_pass(lm) -> None:
    from app.inference import layer_transitions

    result = layer_transitions(lm, "the old sailor walked along the river")
    assert len(result.l2) == len(result.cosine) == lm.config.num_hidden_layers
    assert all(v >= 0 for v in result.l2) and all(-1 <= v <= 1.0001 for v in result.cosine)


# ----- views, escaping, models ------------------------------------------------------------------
def test_attention_view_escapes_tokens_and_serves_local_libraries() -> None:
    from app.tabs.attention.bertviz import bertviz_document, iframe, vendor_files
    from app.tabs.attention.views import attention_view

    payload = '</script><script>alert(1)</script>"><img src=x onerror=alert(2)>'
    raw, status, head_html, model_html, heatmaps, similarity = attention_view(payload, "", 1, 48, "", "", "en")
    assert "error" not in raw
    for view in (head_html, model_html):
        assert view.startswith('<iframe class="lab-iframe" sandbox="allow-scripts"')
        assert "<script" not in view and "cdnjs" not in view and "<img" not in view
        document = html.unescape(re.search(r'srcdoc="([^"]*)"', view).group(1))
        assert len(re.findall(r"<script>", document)) == 1  # bertviz's own code, nothing else inline
        assert re.findall(r'<script src="([^"]+)"', document) == [
            "gradio_api/file=cache/app-static/" + vendor_files()[name].name for name in ("d3", "jquery", "require")
        ]
        assert not any(str(path.parent) in document for path in vendor_files().values())  # no folder named
    tokens = ["[CLS]", "</script><script>alert(1)</script>", "<!--", "[SEP]"]
    doc = bertviz_document("model", tokens, np.full((2, 2, 4, 4), 0.25, np.float32), b_start=2)
    assert "</script><script>alert(1)" not in doc and "<!--" not in doc
    assert len(re.findall(r"<script>", doc)) == 1 and "\\u003c/script\\u003e" in doc
    assert "v5.7.0" in vendor_files()["d3"].read_text(encoding="utf-8")[:200]
    doc = bertviz_document("head", ["[CLS]", "▁a", "[SEP]"], np.full((2, 2, 3, 3), 1 / 3, np.float32))
    assert 'id="layer"' in doc and "PYTHON_PARAMS" not in doc
    assert 'title="&lt;b&gt;"' in iframe(doc, 100, "<b>")


def test_the_model_views_detail_rows_close_up_before_the_view_grows_past_its_grid_for_them() -> None:
    """bertviz's detail box lists every token at 18 px a row; on a long sentence it was taller than the grid of
    thumbnails and the frame kept the difference empty under the grid. Its rows now close up to 14 px first."""
    from app.tabs.attention.bertviz import bertviz_document, model_view_layout

    short = model_view_layout(layers=6, heads=2, tokens=10)
    assert short["detail_box_height"] == 18 and short["height"] == 6 * (10 * 7 + 10) + 38  # the grid decides
    for tokens in (45, 64, 128):
        layout = model_view_layout(layers=6, heads=2, tokens=tokens)
        grid = 6 * (tokens * layout["box_height"] + 10) + 38
        assert 14 <= layout["detail_box_height"] < 18
        detail = tokens * layout["detail_box_height"] + 55
        assert layout["height"] == max(grid, detail)
        assert layout["height"] - grid <= max(0, tokens * 14 + 55 - grid) + 1e-9  # no more room than 14 px rows need
        assert layout["height"] < max(grid, tokens * 18 + 55)  # less than the 18 px rows took
    deep = model_view_layout(layers=12, heads=12, tokens=64)
    assert deep["detail_box_height"] == 18  # a 12-pass grid is taller than the detail box
    doc = bertviz_document("model", ["[CLS]", *["▁a"] * 62, "[SEP]"], np.full((6, 2, 64, 64), 1 / 64, np.float32))
    assert "DETAIL_BOX_HEIGHT = params.detail_box_height" in doc and '"detail_box_height":14.0' in doc


def test_user_text_never_becomes_markup_in_messages() -> None:
    from app.page.plots import plot_text
    from app.tabs.masked.views import fill_mask_view

    raw, status, *_ = fill_mask_view("[MASK]", 5, "<img src=x onerror=alert(1)>", "en")
    assert "<img" not in status and "&lt;img" in status
    assert plot_text("<b>x</b>") == "&lt;b&gt;x&lt;/b&gt;"


def test_model_picker_errors(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from app.tabs.attention.views import attention_view
    from app.tabs.masked.views import fill_mask_view
    from app.tabs.order.views import sentence_order_view

    for choice, fragment in (
        ("/no/such/folder", "not a model folder"),
        ("someone/some-model", "offline"),
        ("a b c", "neither"),
    ):
        raw, *_ = fill_mask_view("[MASK]", 5, choice, "en")
        assert fragment in raw["error"]
    monkeypatch.setenv("ALBERT_LAB_MODELS", str(tmp_path))  # nothing shipped
    for view, args in (
        (fill_mask_view, ("a [MASK]", 5)),
        (sentence_order_view, ("a", "b")),
        (attention_view, ("a", "", 1, 48)),
    ):
        raw, status, *_ = view(*args, "", *([""] if view is attention_view else []), "zh")
        assert "还没有随附的模型" in raw["error"]


def test_sharing_modes_view_with_and_without_runs(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from app.tabs.sharing.views import sharing_modes_view

    raw, status, *figures, table = sharing_modes_view("albert-base", "en")
    assert raw["parameters_per_mode"]["all"] == count_parameters(PRESETS["albert-base"]).total
    assert raw["runs"] == ["albert-lab-base", "albert-lab-none"] and len(table) == 3
    json.dumps(raw)
    monkeypatch.setenv("ALBERT_LAB_RUNS", str(tmp_path))
    raw, status, *_ = sharing_modes_view("model:albert-lab-base", "en")
    assert "No recorded training runs" in status and raw["runs"] == []


def test_app_builds_without_shipped_models(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from app import build_app, launch_options

    monkeypatch.setenv("ALBERT_LAB_MODELS", str(tmp_path))
    monkeypatch.setenv("ALBERT_LAB_RUNS", str(tmp_path))
    demo = build_app()
    names = {d.api_name for d in demo.fns.values()}
    assert {
        "parameters",
        "preset",
        "fill_mask",
        "mask_word",
        "sentence_order",
        "split_paragraph",
        "draw_other",
        "attention",
        "sharing_modes",
        "layer_transitions",
        "set_language",
    } <= names
    monkeypatch.delenv("GRADIO_SERVER_NAME", raising=False)
    monkeypatch.delenv("GRADIO_SERVER_PORT", raising=False)
    assert (launch_options()["server_name"], launch_options()["server_port"]) == ("127.0.0.1", 7860)
    monkeypatch.setenv("GRADIO_SERVER_NAME", "0.0.0.0")
    monkeypatch.setenv("GRADIO_SERVER_PORT", "7999")
    assert (launch_options()["server_name"], launch_options()["server_port"]) == ("0.0.0.0", 7999)


def test_training_curves_use_a_log_axis_only_for_runs_of_very_different_lengths() -> None:
    import pandas as pd

    from app.tabs.sharing.plots import curves_figure

    def run(tokens: list[int]) -> pd.DataFrame:
        return pd.DataFrame({"tokens": tokens, "split": "eval", "mlm_accuracy": np.linspace(0.05, 0.2, len(tokens))})

    long, short, similar = run([1_000_000, 20_000_000, 60_000_000]), run([200_000, 1_400_000]), run([300_000, 900_000])
    mixed = curves_figure({"long": long, "short": short}, "mlm_accuracy", "zh").to_dict()["layout"]["xaxis"]
    assert mixed["type"] == "log" and "对数" in mixed["title"]["text"]
    alike = curves_figure({"a": short, "b": similar}, "mlm_accuracy").to_dict()["layout"]["xaxis"]
    assert alike["type"] == "linear" and alike["title"]["text"] == "training tokens"


def test_a_seed_repeat_is_dashed_in_the_colour_of_its_first_run() -> None:
    import pandas as pd

    from app.tabs.sharing.plots import curves_figure

    run = pd.DataFrame({"tokens": [1e6, 2e6], "split": "eval", "mlm_accuracy": [0.05, 0.1]})
    names = ["albert-lab-all", "albert-lab-none", "albert-lab-all-s1", "albert-lab-none-s1", "albert-lab-e32"]
    lines = {trace["name"]: trace["line"] for trace in curves_figure(dict.fromkeys(names, run), "mlm_accuracy").data}
    assert [line["dash"] for line in lines.values()] == ["solid", "solid", "dash", "dash", "solid"]
    assert lines["albert-lab-all-s1"]["color"] == lines["albert-lab-all"]["color"]
    assert lines["albert-lab-none-s1"]["color"] == lines["albert-lab-none"]["color"]
    assert len({lines[n]["color"] for n in ("albert-lab-all", "albert-lab-none", "albert-lab-e32")}) == 3


def test_sharing_summary_shows_intervals_the_honest_order_and_the_paper() -> None:
    import pandas as pd

    from app.models.runs import summary_table
    from app.tabs.sharing.plots import summary_figure

    summary = pd.DataFrame(
        [
            {
                "run": "albert-lab-all",
                "sharing": "all",
                "objective": "sop",
                "embedding_size": 64,
                "parameters": 1000,
                "tokens": 20.2e6,
                "mlm_accuracy": 0.15,
                "mlm_low": 0.145,
                "mlm_high": 0.155,
                "order_accuracy": 0.6,
                "order_low": 0.58,
                "order_high": 0.62,
                "topic_accuracy": 0.55,
                "topic_low": 0.53,
                "topic_high": 0.57,
            },
            {
                "run": "albert-lab-mlm-only",
                "sharing": "all",
                "objective": "none",
                "embedding_size": 64,
                "parameters": 900,
                "tokens": 20.2e6,
                "mlm_accuracy": 0.16,
                "mlm_low": 0.155,
                "mlm_high": 0.165,
            },
        ]
    )
    table = summary_table(summary, "en")
    assert table.loc[0, "masked words [95% CI]"] == "15.0% [14.5%, 15.5%]" and table.loc[0, "tokens"] == "20.2M"
    assert table.loc[0, "prefers the true order [95% CI]"] == "60.0% [58.0%, 62.0%]"
    assert table.loc[1, "prefers the true order [95% CI]"] == "—"  # MLM only: no sentence head, no number
    assert "Table 5 None: MLM 54.9" in table.loc[1].iloc[-1] and "Table 3 (E 64): Avg 79.0" in table.loc[0].iloc[-1]
    assert "遮蔽词 [95% 区间]" in summary_table(summary, "zh").columns
    figure = summary_figure(summary, "en")
    bars = {bar.name: bar for bar in figure.data}
    mlm = bars["Held-out masked-word accuracy"]
    assert list(mlm.error_y.array) == pytest.approx([0.005, 0.005]) and mlm.error_y.type == "data"
    assert list(bars) == [
        "Held-out masked-word accuracy",
        "Prefers the true order (both orders asked)",
        "Prefers the real next over another book's",
    ]
    assert any(shape.y0 == 0.5 for shape in figure.layout.shapes)  # the chance line
