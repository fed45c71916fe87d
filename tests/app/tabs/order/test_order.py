"""The *Sentence order* tab's side-by-side (issue 30, item 4), its handlers called directly on tiny models.

The same pair goes to the SOP model and to the NSP arm of its language, each in both orders and with B from another
book; 🎲 draws that segment; a Chinese NSP arm that is not shipped says so in one sentence. Offline, tiny models only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from tests.app.support import use_tiny_assets
from tests.app.tabs.order.support import OTHERS, PAIRS, tiny_order_assets

MISSING_ZH_EN = "No Chinese NSP model is shipped (it would be assets/models/albert-lab-zh-nsp)"
MISSING_ZH_ZH = "没有随附的中文 NSP 模型（应在 assets/models/albert-lab-zh-nsp）"


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    """Two tiny worlds: every NSP arm shipped, and the Chinese one missing."""
    return {
        "full": tiny_order_assets(tmp_path_factory.mktemp("order-full")),
        "no_zh_nsp": tiny_order_assets(tmp_path_factory.mktemp("order-no-zh-nsp"), chinese_nsp=False),
    }


@pytest.fixture
def world(worlds, monkeypatch: pytest.MonkeyPatch, request) -> tuple:
    assets, others = worlds[getattr(request, "param", "full")]
    use_tiny_assets(monkeypatch)
    monkeypatch.setenv("ALBERT_LAB_MODELS", str(assets.models))
    monkeypatch.setenv("ALBERT_LAB_ORDER_OTHERS", str(others))
    return assets, others


def _class0(name: str, first: str, second: str) -> float:
    """P(class 0) of a model's sentence head for [CLS] first [SEP] second [SEP], computed here from the model."""
    from app.models import load

    lm = load(name)
    ids = lm.tokenizer(first, second)["input_ids"]
    types = [0 if i <= ids.index(lm.tokenizer.sep_token_id) else 1 for i in range(len(ids))]
    with torch.no_grad():
        logits = lm.model(torch.tensor([ids]), token_type_ids=torch.tensor([types])).sop_logits
    return float(logits.softmax(-1)[0, 0])


def test_both_models_read_both_orders_and_the_other_book(world) -> None:
    from app.tabs.order.views import order_reading, sentence_order_view

    a, b = PAIRS["en"]
    other = OTHERS["en"][0]
    raw, status, verdict, chart = sentence_order_view(a, b, "", "en", other)
    assert raw["model"] == "albert-lab-base" and raw["objective"] == "sop"  # the picked (default) SOP model on top
    beside = raw["beside"]
    assert beside["model"] == "albert-lab-nsp" and beside["role"] == "nsp" and beside["objective"] == "nsp"
    for answer, name in ((raw, "albert-lab-base"), (beside, "albert-lab-nsp")):
        for key, (first, second) in (
            ("p_in_order_a_then_b", (a, b)),
            ("p_in_order_b_then_a", (b, a)),
            ("p_a_then_other", (a, other)),
        ):
            assert answer[key] == pytest.approx(_class0(name, first, second), abs=1e-5), (name, key)
        assert answer["reading"] == order_reading(answer["p_in_order_a_then_b"], answer["p_in_order_b_then_a"])
        assert answer["topic_reading"] == order_reading(answer["p_in_order_a_then_b"], answer["p_a_then_other"])
    # The table: three pairs and two readings, both models' columns, both names.
    assert "| A → B |" in verdict and "| B → A |" in verdict and "| A → other book |" in verdict
    assert f"{raw['p_in_order_a_then_b']:.1%}" in verdict and f"{beside['p_a_then_other']:.1%}" in verdict
    assert "SOP model: **albert-lab-base** · NSP model: **albert-lab-nsp**" in verdict
    assert "albert-lab-base" in status and "albert-lab-nsp" not in status  # the status frames the picked model
    bars = chart.to_dict()["data"]
    assert [len(bar["y"]) for bar in bars] == [3, 3] and "albert-lab-nsp" in bars[1]["name"]
    json.dumps(raw)


def test_picking_the_nsp_arm_puts_the_default_sop_model_beside_it(world) -> None:
    from app.tabs.order.views import sentence_order_view

    raw, _, verdict, _ = sentence_order_view(*PAIRS["en"], "albert-lab-nsp", "en", OTHERS["en"][1])
    assert raw["model"] == "albert-lab-nsp" and raw["objective"] == "nsp"
    assert raw["beside"]["model"] == "albert-lab-base" and raw["beside"]["role"] == "sop"
    assert "SOP model: **albert-lab-base** · NSP model: **albert-lab-nsp**" in verdict


def test_the_api_of_before_still_answers_without_the_other_book(world) -> None:
    """/sentence_order with the four inputs it had before: the picked model's answer where it was; no third row."""
    from app.tabs.order.views import sentence_order_view

    raw, _, verdict, _ = sentence_order_view(*PAIRS["en"], "", "en")
    assert {"p_in_order_a_then_b", "p_in_order_b_then_a", "objective", "reading", "model", "framing"} <= set(raw)
    assert "p_a_then_other" not in raw and raw["topic_reading"] is None
    assert "press 🎲" in verdict


def test_the_draw_puts_another_books_segment_in_the_box_and_answers_for_it(world) -> None:
    from app.tabs.order.views import draw_other_view

    a, b = PAIRS["en"]
    for current in OTHERS["en"]:
        drawn, raw, status, verdict, chart = draw_other_view(a, b, "", "en", current)
        assert drawn in OTHERS["en"] and drawn != current  # never the segment already there
        assert raw["p_a_then_other"] == pytest.approx(_class0("albert-lab-base", a, drawn), abs=1e-5)
        assert raw["beside"]["p_a_then_other"] == pytest.approx(_class0("albert-lab-nsp", a, drawn), abs=1e-5)
    drawn, raw, *_ = draw_other_view(*PAIRS["zh"], "", "zh", "")
    assert drawn in OTHERS["zh"] and raw["model"] == "albert-lab-zh" and raw["beside"]["model"] == "albert-lab-zh-nsp"


def test_no_segments_for_a_language_is_one_sentence(world, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.tabs.order.views import draw_other_view

    empty = tmp_path / "none.json"
    empty.write_text(json.dumps({"en": OTHERS["en"]}), encoding="utf-8")
    monkeypatch.setenv("ALBERT_LAB_ORDER_OTHERS", str(empty))
    kept, raw, status, *_ = draw_other_view(*PAIRS["zh"], "", "zh", "")
    assert raw["error"] == "没有随附的中文其他书籍片段；请在输入框里自己输入一段。" and "⚠️" in status
    assert not isinstance(kept, str)  # gr.skip(): the box keeps what it holds


@pytest.mark.parametrize("world", ["no_zh_nsp"], indirect=True)
def test_a_missing_chinese_nsp_arm_says_so_in_one_sentence(world) -> None:
    from app.tabs.order.views import sentence_order_view

    for lang, sentence in (("zh", MISSING_ZH_ZH), ("en", MISSING_ZH_EN)):
        raw, status, verdict, chart = sentence_order_view(*PAIRS["zh"], "", lang, OTHERS["zh"][0])
        assert raw["model"] == "albert-lab-zh" and "p_a_then_other" in raw  # the SOP column answers
        assert raw["beside"]["model"] == "albert-lab-zh-nsp" and raw["beside"]["error"].startswith(sentence)
        assert sentence in verdict and verdict.count(sentence) == 1
        assert len(chart.to_dict()["data"]) == 1  # one model's bars
    raw, *_ = sentence_order_view(*PAIRS["en"], "", "en", OTHERS["en"][0])
    assert "error" not in raw["beside"]  # the English arm is shipped in this world


@pytest.mark.parametrize("world", ["full"], indirect=True)
def test_a_shipped_chinese_nsp_arm_answers_beside_the_chinese_model(world) -> None:
    from app.tabs.order.views import sentence_order_view

    raw, status, verdict, _ = sentence_order_view(*PAIRS["zh"], "", "zh", OTHERS["zh"][0])
    assert raw["model"] == "albert-lab-zh" and raw["beside"]["model"] == "albert-lab-zh-nsp"
    assert raw["beside"]["p_a_then_other"] == pytest.approx(
        _class0("albert-lab-zh-nsp", PAIRS["zh"][0], OTHERS["zh"][0]), abs=1e-5
    )
    assert "SOP 模型：**albert-lab-zh** · NSP 模型：**albert-lab-zh-nsp**" in verdict and "| A → 另一本书 |" in verdict


def test_an_other_book_the_model_cannot_read_costs_only_its_row(world) -> None:
    from app.tabs.order.views import sentence_order_view

    raw, status, verdict, _ = sentence_order_view(*PAIRS["en"], "", "en", "这是另一本书里的一段话。")
    assert "error" not in raw and "p_a_then_other" not in raw
    assert "albert-lab-zh" in status  # the guard's sentence names the model that reads it


def test_split_paragraph_keeps_the_other_book(world) -> None:
    from app.tabs.order.views import split_paragraph_view

    a, b, raw, *_ = split_paragraph_view("the old sailor walked . then she sat .", 1, "", "en", OTHERS["en"][0])
    assert (a, b) == ("the old sailor walked .", "then she sat .")
    assert "p_a_then_other" in raw and "p_a_then_other" in raw["beside"]


def test_table5_and_the_lesson_sit_beside_the_comparison() -> None:
    from app import paper
    from app.tabs.order.side_by_side import table5_markdown

    english, chinese = table5_markdown("en"), table5_markdown("zh")
    for objective in ("none", "nsp", "sop"):
        intrinsic = paper.TABLE5[objective][0]
        for text in (english, chinese):
            assert f"{intrinsic.mlm}" in text and f"{intrinsic.nsp}" in text and f"{intrinsic.sop}" in text
    assert f"**{paper.TABLE5['nsp'][0].sop}**" in english  # an NSP model at chance on order, in bold
    assert "50.3%" in english and "400,000" in english and "at chance" in english
    assert "50.3%" in chinese and "40 万" in chinese and "随机水平" in chinese
    # no model's size typed in the lesson (issue 42: "1.3M parameters, 60M tokens" beside a 1.7M / 20.2M model)
    assert "1.3M" not in english and "130 万" not in chinese and "6000 万" not in chinese


def test_the_lesson_states_the_nsp_arm_as_measured(monkeypatch) -> None:
    """NSP's order figures from its metrics.json, with the second seed beside them, never "NSP only tells topic"
    (issue 42: albert-lab-nsp 56.9% [55.1, 58.7] on order, seed 1 51.6%)."""
    import json as json_module

    from app.tabs.order.side_by_side import nsp_as_measured
    from tests.app.support import REPO

    models = REPO / "assets" / "models"
    monkeypatch.setenv("ALBERT_LAB_MODELS", str(models))
    seed0 = json_module.loads((models / "albert-lab-nsp" / "metrics.json").read_text(encoding="utf-8"))
    seed1 = json_module.loads((models / "albert-lab-nsp-s1" / "metrics.json").read_text(encoding="utf-8"))
    english = nsp_as_measured("en")
    assert f"{100 * seed0['order_accuracy']:.1f}%" in english and f"{100 * seed1['order_accuracy']:.1f}%" in english
    assert f"{100 * seed0['topic_accuracy']:.1f}%" in english and "albert-lab-nsp-s1" in english
    assert "not yet a finding" in english and "only tells topic" not in english
    chinese = nsp_as_measured("zh")
    zh = json_module.loads((models / "albert-lab-zh-nsp" / "metrics.json").read_text(encoding="utf-8"))
    assert f"{100 * zh['order_accuracy']:.1f}%" in chinese and "albert-lab-zh-nsp" in chinese and "抛硬币" in chinese


def test_the_shipped_other_books_are_plain_held_out_prose() -> None:
    """The shipped list (written by scripts.choose_examples --others): both languages, no repeats, plain segments."""
    from app.tabs.order.side_by_side import OTHERS_PATH
    from scripts.choose_examples import plain_segment

    data = json.loads(OTHERS_PATH.read_text(encoding="utf-8"))
    for lang in ("en", "zh"):
        segments = data[lang]
        assert len(segments) >= 10 and len(set(segments)) == len(segments), lang
        assert all(plain_segment(s, lang) for s in segments), lang
        assert lang in data["source"]
