"""benchmarks/score_models.py: the independent sentence-run pairs, Wilson intervals, card checks, end to end."""

from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest
from app_support import tiny_assets

from benchmarks.score_models import Score, main, sentence_run_pairs, split_sentences_independently

BOOK = (
    'The ship left at dawn. Nobody waved. "Where to?" asked the boy.\n'
    "The captain did not answer. He looked at the sea! Then he went below.\n"
)


def test_independent_splitter_english_and_chinese() -> None:
    assert split_sentences_independently('The ship left at dawn. Nobody waved. "Where to?" asked the boy.') == [
        "The ship left at dawn.",
        "Nobody waved.",
        '"Where to?" asked the boy.',
    ]
    assert split_sentences_independently("他说：“今天下雨了。”我们就没去。好吗？") == [
        "他说：“今天下雨了。”",
        "我们就没去。",
        "好吗？",
    ]


def test_sentence_run_pairs_are_whole_consecutive_sentences(tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    path = tmp_path / "valid.txt.xz"
    with lzma.open(path, "wt", encoding="utf-8") as f:
        f.write("\n\n".join([BOOK] * 40))
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_assets().tokenizer))
    pairs = sentence_run_pairs(path, tokenizer, max_tokens=40, count=60, seed=3)
    assert len(pairs) == 60 and 0.3 < sum(label for _, _, label in pairs) / 60 < 0.7
    sentences = split_sentences_independently(BOOK.replace("\n", " "))
    text = " ".join(sentences)
    for first, second, label in pairs:
        a, b = (second, first) if label else (first, second)
        assert f"{a} {b}" in text  # consecutive, in this order, in the book
        for segment in (a, b):  # whole sentences only
            assert any(segment.startswith(s) for s in sentences) and any(segment.endswith(s) for s in sentences)
        assert len(tokenizer.tokenize(a)) + len(tokenizer.tokenize(b)) <= 40


def test_wilson_interval() -> None:
    low, high = Score(500, 1000).interval()
    assert high - low == pytest.approx(2 * 1.96 * (0.25 / 1000) ** 0.5, rel=0.01)
    assert Score(0, 50).interval()[0] == pytest.approx(0.0, abs=1e-12) and Score(0, 50).interval()[1] > 0.05


def test_scores_a_model_and_checks_its_card(tmp_path: Path) -> None:
    model = tiny_assets().models / "albert-lab-base"
    valid = tmp_path / "valid.txt"
    valid.write_text("\n\n".join([BOOK] * 30), encoding="utf-8")
    out = tmp_path / "scores.json"
    args = [
        "--valid-corpus",
        str(valid),
        "--examples",
        "40",
        "--run-pairs",
        "30",
        "--max-tokens",
        "40",
        "--cache-dir",
        str(tmp_path / "cache"),
        "--output",
        str(out),
    ]
    assert main([str(model), *args]) == 0
    scores = json.loads(out.read_text())["albert-lab-base"]
    assert set(scores) == {"mlm", "sop", "nsp", "sop_runs"} and scores["sop_runs"]["total"] == 30
    assert scores["mlm"]["ci95"][0] <= scores["mlm"]["accuracy"] <= scores["mlm"]["ci95"][1]
    card = tmp_path / "card"
    card.mkdir()
    for f in model.iterdir():
        (card / f.name).write_bytes(f.read_bytes())
    (card / "metrics.json").write_text(json.dumps({"mlm_accuracy": scores["mlm"]["accuracy"] + 0.2}))
    assert main([str(card), *args, "--check-cards"]) == 1  # the card overstates MLM by 20 points
    (card / "metrics.json").write_text(json.dumps({"mlm_accuracy": scores["mlm"]["accuracy"]}))
    assert main([str(card), *args, "--check-cards"]) == 0


def test_chinese_headlines_are_left_out_of_the_independent_pairs(tmp_path: Path) -> None:
    """A line without a sentence end (headline, dateline) opens its article: a pair holding it would give the
    order away, so the independent pairs never hold one."""
    from transformers import AutoTokenizer

    from benchmarks.score_models import is_chinese_headline

    assert is_chinese_headline("居民生活如常事业蒸蒸日上") and is_chinese_headline("（附图片）")
    assert not is_chinese_headline("他说：“今天下雨了。”") and not is_chinese_headline("The ship left at dawn")
    article = (
        "香港特区政府发表回归半年大事录\n报告长达二十页。文中说，香港顺利回归。\n报告说，经济仍然跨步前进。好吗？\n"
    )
    path = tmp_path / "valid.txt"
    path.write_text("\n\n".join([article] * 30), encoding="utf-8")
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_assets().tokenizer))
    pairs = sentence_run_pairs(path, tokenizer, max_tokens=200, count=30, seed=1)
    assert len(pairs) == 30
    assert not any("大事录" in a or "大事录" in b for a, b, _ in pairs)


def test_an_attention_shared_model_is_scored_on_the_independent_pairs(tmp_path: Path) -> None:
    """transformers cannot hold attention-only sharing and refuses its config.json; the pairs are still built with
    transformers' tokenizer and scored by ALBERT Lab's model (an arm of Table 4)."""
    import dataclasses

    from albert import AlbertForPreTraining
    from albert.tokenizer import load_tokenizer

    base = tiny_assets().models / "albert-lab-base"
    shipped = AlbertForPreTraining.from_pretrained(base)
    folder = tmp_path / "albert-lab-attention"
    config = dataclasses.replace(shipped.config, sharing="attention")
    AlbertForPreTraining(config).save_pretrained(folder, tokenizer=load_tokenizer(base))
    valid = tmp_path / "valid.txt"
    valid.write_text("\n\n".join([BOOK] * 30), encoding="utf-8")
    out = tmp_path / "scores.json"
    args = ["--valid-corpus", str(valid), "--examples", "40", "--run-pairs", "30", "--max-tokens", "40"]
    assert main([str(folder), *args, "--cache-dir", str(tmp_path / "cache"), "--output", str(out)]) == 0
    scores = json.loads(out.read_text())["albert-lab-attention"]
    assert set(scores) == {"mlm", "sop", "nsp", "sop_runs"} and scores["sop_runs"]["total"] == 30
