"""scripts.choose_examples (which examples a model gets right) and scripts.record_dev_labels, on tiny models."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from app_support import use_tiny_assets

from scripts import choose_examples as ce


def test_masked_form_hides_words_and_chinese_characters() -> None:
    assert ce.masked_form("He took off his {hat} by the {door}.") == (
        "He took off his [MASK] by the [MASK].",
        ["hat", "door"],
    )
    assert ce.masked_form("我爱自然语言{处理}。", "zh") == ("我爱自然语言[MASK][MASK]。", ["处", "理"])
    with pytest.raises(ValueError, match="no"):
        ce.masked_form("nothing hidden")
    for lang in ("en", "zh"):
        for candidate in ce.MASK_CANDIDATES[lang]:
            text, targets = ce.masked_form(candidate, lang)
            assert text.count("[MASK]") == len(targets) and "{" not in text


def test_held_out_sentences_are_short_and_pairs_consecutive(tmp_path: Path) -> None:
    corpus = tmp_path / "held.txt"
    corpus.write_text(
        "The cat sat on the warm mat. It was very happy there. Then it fell asleep again.\n"
        "Short.\n\nA dog ran across the wide field. It barked at the birds above.\n",
        encoding="utf-8",
    )
    sentences, pairs = ce.held_out_sentences(corpus, 10, seed=1)
    assert "Short." not in sentences and all(5 <= len(s.split()) <= 14 for s in sentences) and len(sentences) == 5
    assert ("A dog ran across the wide field.", "It barked at the birds above.") in pairs and len(pairs) == 3
    text, targets = ce.mask_one_word("The cat sat on the warm mat.", random.Random(0))
    assert text.count("[MASK]") == 1 and targets[0] in "The cat sat on the warm mat.".split()
    assert ce.mask_one_word("12 34 !!", random.Random(0)) is None


def test_scores_follow_the_apps_answers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_tiny_assets(monkeypatch)
    from app import inference, models

    lm = models.load("albert-lab-base")
    text, targets = ce.masked_form("the old {sailor} walked along the river .")
    score = ce.score_mask(lm, text, targets)
    top = inference.fill_mask(lm, text, 1).predictions[0].candidates[0]
    assert score.guesses == [top[0]] and score.p_guess[0] == pytest.approx(top[1])
    assert score.right == (top[0].lower() == "sailor")
    order = ce.score_order(lm, "the old sailor walked .", "the children counted boxes .")
    assert order.right == (order.p_ab - order.p_ba >= 0.02) and order.reading in (
        "prefers_ab",
        "undecided",
        "prefers_ba",
    )
    report = ce.main(["--json", str(tmp_path / "out.json")])
    saved = json.loads((tmp_path / "out.json").read_text())
    assert saved["model"] == report["model"] == "albert-lab-base"
    assert len(saved["mask"]) == len(ce.MASK_CANDIDATES["en"]) and {"right", "guesses"} <= set(saved["mask"][0])
    assert len(saved["sentiment"]) == len(ce.SENTIMENT_CANDIDATES["en"])


def test_record_dev_labels_counts_by_label_name(tmp_path: Path) -> None:
    from scripts.record_dev_labels import dev_label_counts, main

    dev = tmp_path / "dev.tsv"
    dev.write_text("sentence\tlabel\ngood film\t1\nbad film\t0\nfine\t1\n", encoding="utf-8")
    config = {"id2label": {"0": "negative", "1": "positive"}, "task_label_values": ["0", "1"]}  # as finetune writes
    assert dev_label_counts(dev, config) == {"negative": 1, "positive": 2}
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (model / "metrics.json").write_text(
        json.dumps({"dev_accuracy": 0.5, "sst2": {"pretrained": {"dev_examples": 3}}}), encoding="utf-8"
    )
    main([str(model), str(dev)])
    assert json.loads((model / "metrics.json").read_text())["dev_labels"] == {"negative": 1, "positive": 2}
    (model / "metrics.json").write_text(json.dumps({"sst2": {"pretrained": {"dev_examples": 872}}}), encoding="utf-8")
    with pytest.raises(SystemExit, match="measured on 872"):
        main([str(model), str(dev)])
    dev.write_text("sentence\tlabel\nodd\t7\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not one of the model's labels"):
        dev_label_counts(dev, config)
