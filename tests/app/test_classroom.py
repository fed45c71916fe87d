"""The classroom path (second pass): the Chinese path whole, fair comparisons by default, failures that teach.

Tiny random models only (app_support); each test builds the models folder it needs, so the comparison rules are
checked against the shipped names without the shipped weights.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from albert.data.piece_counts import PieceCounts, save_piece_counts
from albert.training.order_scoring import Proportion
from tests.app.support import REPO, tiny_assets, tiny_chinese_assets, use_tiny_assets
from tests.factories import ROUND_FFN, TINY

ZH_TEXT = "今天天气很好，我们去公园散步吧。"


def _models(root: Path, names: dict[str, str]) -> Path:
    """A models folder holding copies of the tiny English models under the shipped names ({name: source})."""
    source = tiny_assets().models
    for name, copied in names.items():
        shutil.copytree(source / copied, root / name)
    return root


# ----- failures that teach: each guess carries its training-text count ------------------------------------------
def test_fill_mask_guesses_carry_their_training_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.tabs.masked.views import fill_mask_view

    assets = use_tiny_assets(monkeypatch)
    models = _models(tmp_path / "models", {"albert-lab-base": "albert-lab-base", "albert-lab-none": "albert-lab-none"})
    monkeypatch.setenv("ALBERT_LAB_MODELS", str(models))
    first = fill_mask_view("the old sailor walked along the [MASK] .", 5, "albert-lab-base", "en")
    pieces = [entry["token"] for entry in first.result["masks"][0]["top"]]
    assert len(pieces) == 5
    # a table that counts every vocabulary piece by its id: the count a guess carries is the table's, exactly
    from albert.data.tokenizer import load_tokenizer

    tokenizer = load_tokenizer(models / "albert-lab-base")
    vocabulary = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
    counts = {piece: 1000 + i for i, piece in enumerate(vocabulary)}
    save_piece_counts(PieceCounts(corpus=("books.txt",), tokens=123_456, counts=counts), models / "albert-lab-base")

    answer = fill_mask_view("the old sailor walked along the [MASK] .", 5, "albert-lab-base", "en")
    top = answer.result["masks"][0]["top"]
    shown = {g["token"] for g in top}
    ids = tokenizer.convert_tokens_to_ids([p for p in vocabulary if p.replace("▁", " ").strip() in shown])
    assert all(isinstance(g["training_count"], int) and g["training_count"] >= 1000 for g in top)
    assert {g["training_count"] for g in top} <= {1000 + i for i in ids}
    assert "123,456" in answer.status and "Frequent words are the safe guesses" in answer.status
    bars = answer.chart.to_dict()["data"][0]["text"]
    assert all("× in training" in bar for bar in bars)
    assert f"{top[0]['training_count']:,}" in bars[-1]  # the top guess is the last bar (drawn bottom-up)

    zh = fill_mask_view("the old sailor walked along the [MASK] .", 5, "albert-lab-base", "zh")
    assert "训练文本中" in zh.chart.to_dict()["data"][0]["text"][0] and "123,456" in zh.status

    # a model without a table: every count is null, no line under the chart, bars without counts
    bare = fill_mask_view("the old sailor walked along the [MASK] .", 5, "albert-lab-none", "en")
    assert all(g["training_count"] is None for g in bare.result["masks"][0]["top"])
    assert "Frequent words are the safe guesses" not in bare.status
    assert not any("×" in bar for bar in bare.chart.to_dict()["data"][0]["text"])
    assert assets.models.exists()


# ----- fair comparisons by default ----------------------------------------------------------------------------------
def test_automatic_comparison_is_the_twin_or_the_like_for_like_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.models import AUTO_MODEL, fair_comparison, load
    from app.page.results import compare_choices

    use_tiny_assets(monkeypatch)
    names = {
        "albert-lab-base": "albert-lab-base",
        "albert-lab-all": "albert-lab-base",
        "albert-lab-none": "albert-lab-none",
    }
    models = _models(tmp_path / "models", names)
    (models / "albert-lab-all" / "metrics.json").write_text(json.dumps({"tokens": 20_200_000}), encoding="utf-8")
    monkeypatch.setenv("ALBERT_LAB_MODELS", str(models))

    assert fair_comparison("albert-lab-none") == ["albert-lab-all"]  # a twin: its own pair
    assert fair_comparison("albert-lab-all") == ["albert-lab-none"]
    assert fair_comparison("albert-lab-base") == ["albert-lab-all", "albert-lab-none"]  # no twin: the pair
    base = load("albert-lab-base", "en")
    for picked in ("", AUTO_MODEL, None):
        others, why = compare_choices(base, picked, "en")
        assert others == ["albert-lab-all", "albert-lab-none"]
        assert len(why) == 1 and "like-for-like pair" in why[0] and "20.2M tokens" in why[0]
        assert "not albert-lab-base" in why[0]
    assert compare_choices(base, "albert-lab-none", "en") == (["albert-lab-none"], [])  # the user's pick stands
    assert compare_choices(load("albert-lab-none", "en"), AUTO_MODEL, "en") == (["albert-lab-all"], [])

    from app.tabs.sharing.views import layer_transitions_view

    answer = layer_transitions_view("the old sailor walked along the river .", "albert-lab-base", AUTO_MODEL, "en")
    assert list(answer.result) == ["albert-lab-base (all)", "albert-lab-all (all)", "albert-lab-none (none)"]


@pytest.fixture(scope="module")
def chinese_pair(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny Chinese world with the like-for-like pair beside albert-lab-zh (copies of its tiny weights)."""
    import torch

    from albert import AlbertConfig, AlbertForPreTraining

    assets = tiny_chinese_assets(tmp_path_factory.mktemp("albert-lab-zh-pair"))
    for name, sharing in (("albert-lab-zh-all", "all"), ("albert-lab-zh-none", "none")):
        torch.manual_seed(0)
        config = AlbertConfig(
            sharing=sharing, **{**TINY, "vocab_size": len(assets.tokenizer), "intermediate_size": ROUND_FFN}
        )
        AlbertForPreTraining(config).save_pretrained(assets.models / name, tokenizer=assets.tokenizer)
    (assets.models / "albert-lab-zh-all" / "metrics.json").write_text(json.dumps({"tokens": 11_955_291}), "utf-8")
    return assets.models


def test_chinese_text_is_compared_through_the_chinese_pair(chinese_pair: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.models import AUTO_MODEL
    from app.tabs.attention.views import attention_view
    from app.tabs.sharing.views import layer_transitions_view

    use_tiny_assets(monkeypatch)
    monkeypatch.setenv("ALBERT_LAB_MODELS", str(chinese_pair))
    answer = layer_transitions_view(ZH_TEXT, AUTO_MODEL, AUTO_MODEL, "zh")
    assert list(answer.result) == ["albert-lab-zh (all)", "albert-lab-zh-all (all)", "albert-lab-zh-none (none)"]
    assert "albert-lab-zh-all" in answer.status and "不是 albert-lab-zh" in answer.status
    assert "万个词元" in answer.status  # counts in 中文 by 万 (issue 54), never "12M"
    seen = attention_view(ZH_TEXT, "", 1, 32, AUTO_MODEL, AUTO_MODEL, "en")
    assert len(seen.result["pass_to_pass_similarity"]) == 3
    assert "like-for-like pair" in seen.status
    # the marker SentencePiece puts before Chinese text is named, not drawn as a blank or "▁"
    assert "▁" in seen.result["tokens"]
    assert "[word start]" in seen.head_view and "▁" not in seen.head_view


def test_token_labels_strip_the_marker_for_chinese_models_only() -> None:
    from app.inference import token_labels

    tokens = ["[CLS]", "▁", "今", "▁天", "[SEP]"]
    assert token_labels(tokens, True, "zh") == ["[CLS]", "[词首]", "今", "天", "[SEP]"]
    assert token_labels(tokens, False, "zh") == tokens


def test_sharing_modes_follows_the_language_with_a_chinese_sentence(
    chinese_pair: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.tabs.sharing.tab import EXAMPLE, EXAMPLE_ZH, example, example_in_language

    use_tiny_assets(monkeypatch)
    monkeypatch.setenv("ALBERT_LAB_MODELS", str(chinese_pair))
    assert example("zh") == EXAMPLE_ZH and example("en") == EXAMPLE
    assert example_in_language(EXAMPLE, "zh") == EXAMPLE_ZH
    assert example_in_language(EXAMPLE_ZH, "en") == EXAMPLE


def test_the_shortcut_sop_curve_is_labelled() -> None:
    from app.tabs.sharing.plots import curves_figure

    frame = pd.DataFrame({"tokens": [1e6, 2e6], "sop_accuracy": [0.55, 0.63], "mlm_accuracy": [0.1, 0.2]})
    runs = {"albert-lab-base": frame, "albert-lab-none": frame}
    sop = {trace.name.replace("<br>", " "): trace.line.dash for trace in curves_figure(runs, "sop_accuracy", "en").data}
    assert sop == {  # a long legend entry on lines that fit a phone (issue 42)
        "albert-lab-base: SOP curve measured with the old shortcut-prone pairs (not order)": "dot",
        "albert-lab-none": "solid",
    }
    assert [t.name for t in curves_figure(runs, "mlm_accuracy", "en").data] == ["albert-lab-base", "albert-lab-none"]
    assert "捷径" in curves_figure(runs, "sop_accuracy", "zh").data[0].name


# ----- sentiment framing: data, dev size, 95% interval, baseline -----------------------------------------------------
def test_sentiment_framing_reads_the_chinese_models_own_task() -> None:
    from app.page.framing import sentiment_facts, sentiment_markdown

    metrics = {
        "dev_accuracy": 0.836027713625866,
        "task": "zh-reviews",
        "zh-reviews": {
            "model": "assets/models/albert-lab-zh",
            "budget": {"epochs": 3},
            "pretrained": {"accuracy": 0.836027713625866, "train_examples": 13853, "dev_examples": 1732},
        },
        "ngram_baseline": {"dev_accuracy": 0.8625866050808314, "dev_examples": 1732},
        "dev_labels": {"negative": 881, "positive": 851},
    }
    facts = sentiment_facts("albert-lab-zh-sentiment", metrics, 743_810, 2, {"tokens": 67_723_184})
    low, high = Proportion(0.836027713625866 * 1732, 1732).interval()
    assert (facts.dev_examples, facts.train_examples, facts.base_model) == (1732, 13853, "albert-lab-zh")
    assert facts.as_dict()["dev_ci95"] == [round(low, 4), round(high, 4)] == [0.8179, 0.8527]
    english, chinese = sentiment_markdown(facts, "en"), sentiment_markdown(facts, "zh")
    for text in (english, chinese):
        assert "81.8%–85.3%" in text and "1,732" in text and "86.3%" in text and "13,853" in text
    assert "Chinese product and book reviews" in english and "above this model's 83.6%" in english
    assert "中文商品与图书评论" in chinese and "SST-2" not in chinese


def test_sentiment_intro_names_both_models_in_both_languages() -> None:
    from app.i18n import t

    chinese = t("sentiment.explain", "zh")
    assert "SST-2 影评）把同一个网络" not in chinese and "它读英文" not in chinese
    assert "albert-lab-zh-sentiment" in chinese
    assert "英文效果最好" not in t("sentiment.text.info", "zh")
    assert "Chinese text to one fine-tuned on Chinese" in t("sentiment.explain", "en")


# ----- small items: one citation form, no English left in 中文 strings ---------------------------------------------
def test_one_citation_form_and_no_stray_english_in_chinese_strings() -> None:
    english = "\n".join(json.loads((REPO / "app" / "i18n" / "en.json").read_text(encoding="utf-8")).values())
    chinese = "\n".join(json.loads((REPO / "app" / "i18n" / "zh.json").read_text(encoding="utf-8")).values())
    assert "Lan et al. 2019" not in english and "Lan et al. 2020" not in english
    assert "Lan 等，2019" not in chinese and "Lan 等，2020" not in chinese
    assert english.count("Lan et al., ICLR 2020") >= 3 and chinese.count("Lan 等，ICLR 2020") >= 3
    for word in ("pooler", "logits", "softmax", "Speedup"):
        assert word not in chinese, word
    from app.paper import paper_note

    assert "None" not in paper_note("all", "none", 64, "zh") and "Table 5 None" in paper_note("all", "none", 64, "en")
