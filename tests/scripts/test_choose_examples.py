"""scripts.choose_examples (which examples a model gets right) and scripts.record_dev_labels, on tiny models."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from scripts import choose_examples as ce
from tests.app.support import use_tiny_assets


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


def test_held_out_sentences_are_short(tmp_path: Path) -> None:
    corpus = tmp_path / "held.txt"
    corpus.write_text(
        "The cat sat on the warm mat. It was very happy there. Then it fell asleep again.\n"
        "Short.\n\nA dog ran across the wide field. It barked at the birds above.\n",
        encoding="utf-8",
    )
    sentences = ce.held_out_sentences(corpus, 10, seed=1)
    assert "Short." not in sentences and all(5 <= len(s.split()) <= 14 for s in sentences) and len(sentences) == 5
    text, targets = ce.mask_one_word("The cat sat on the warm mat.", random.Random(0))
    assert text.count("[MASK]") == 1 and targets[0] in "The cat sat on the warm mat.".split()
    assert ce.mask_one_word("12 34 !!", random.Random(0)) is None


def test_held_out_pairs_follow_the_one_pair_rule(tmp_path: Path) -> None:
    """The candidate pairs are `albert.data.sentence_order.order_pairs`'s: consecutive whole sentences of one
    document, and B from another document."""
    from albert.data.sentence_order import order_pairs, sentence_documents

    documents = [
        [f"Cat sentence {i} of the first book is here." for i in range(8)],
        [f"Dog line {i} of the second book runs on." for i in range(8)],
    ]
    corpus = tmp_path / "held.txt"
    corpus.write_text("\n\n".join(" ".join(d) for d in documents) + "\n", encoding="utf-8")
    words = lambda text: len(text.split())  # noqa: E731 — a tokenizer of whole words
    pairs = ce.held_out_pairs(corpus, 4, words, 32, seed=3)
    assert pairs == order_pairs(sentence_documents([corpus]), words, 32, 4, 3) and len(pairs) >= 2
    for pair in pairs:
        book = documents[0] if pair.first.startswith("Cat") else documents[1]
        text = " ".join(book)
        assert f"{pair.first} {pair.second}" in text  # consecutive, in the true order
        assert pair.other.split()[0] != pair.first.split()[0]  # another book


def test_other_books_are_plain_segments_written_per_language(tmp_path: Path) -> None:
    assert ce.plain_segment("His face was round, his eyes a faded blue, and he wore white cotton gloves.")
    for odd in (
        "(3) After 4 hrs.",  # a figure
        "“Do I look angry?”“You look serious.",  # two lines run together
        "Emily said. “Can you take a joke?”Francine replied. Emily said no more.",
        '"Well, what it amounts to is just that women want to have a better time.',  # a quotation cut in two
        "SOCRATES: And now tell me, my good friend, about the art.",
        "Too short here.",
    ):
        assert not ce.plain_segment(odd), odd
    assert ce.plain_segment("谈到湘西的贫穷，彭楚政显得心情沉重，表情也凝重了几分。", "zh")
    assert not ce.plain_segment("小白鹭", "zh") and not ce.plain_segment("the quick brown fox jumps over", "zh")
    path = tmp_path / "others.json"
    ce.write_others(path, "zh", ["一段中文的文字在这里写着。", "一段中文的文字在这里写着。"], "zh source")
    kept = ce.write_others(path, "en", [" one ", "two", "one"], "en source")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert kept == data["en"] == ["one", "two"] and data["zh"] == ["一段中文的文字在这里写着。"]
    assert data["source"] == {"zh": "zh source", "en": "en source"}


def test_scores_follow_the_apps_answers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_tiny_assets(monkeypatch)
    from app import inference, models
    from app.tabs.order.views import order_reading

    lm = models.load("albert-lab-base")
    text, targets = ce.masked_form("the old {sailor} walked along the river .")
    score = ce.score_mask(lm, text, targets)
    top = inference.fill_mask(lm, text, 1).predictions[0].candidates[0]
    assert score.guesses == [top[0]] and score.p_guess[0] == pytest.approx(top[1])
    assert score.right == (top[0].lower() == "sailor")
    a, b, other = "the old sailor walked .", "the children counted boxes .", "the baker sold bread ."
    order = ce.score_order(lm, a, b, other=other)
    assert order.right == (order.p_ab - order.p_ba >= 0.02) and order.reading in (
        "prefers_ab",
        "undecided",
        "prefers_ba",
    )
    result = inference.sentence_order(lm, order.a, order.b, "en", order.other)
    assert (order.p_ab, order.p_ba, order.p_other) == (result.in_order_ab, result.in_order_ba, result.with_other)
    assert order.topic == order_reading(order.p_ab, order.p_other)  # the NSP arm's topic reading, by the same rule
    report = ce.main(["--json", str(tmp_path / "out.json")])
    saved = json.loads((tmp_path / "out.json").read_text())
    assert saved["model"] == report["model"] == "albert-lab-base"
    assert len(saved["mask"]) == len(ce.MASK_CANDIDATES["en"]) and {"right", "guesses"} <= set(saved["mask"][0])
    assert len(saved["sentiment"]) == len(ce.SENTIMENT_CANDIDATES["en"])
    assert all(entry["other"] and "topic" in entry for entry in saved["order"])  # each with B from another book


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
