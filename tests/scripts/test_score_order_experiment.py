"""scripts/score_order_experiment.py: the structure experiment's honest figures, on tiny text of the tests' own.

The baselines read what they should: a bag of words reads order off position words in single segments (an opener,
a closer) where a text-free tree cannot; the tree reads a length cue.
The model command scores a tiny model on the committed pairs, and `compare` refuses results built on other pairs."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from albert.data.sentence_order import order_pairs
from scripts.score_order_experiment import (
    all_sentence_documents,
    bag_of_words_baseline,
    compare,
    main,
    outcomes,
    paired_difference,
    segment_features,
    split_by,
    text_free_baseline,
)
from tests.app.support import tiny_assets

HAN = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产"


def reviews(count: int, seed: int, opener: str = "", closer: str = "", short_last: bool = False) -> list[list[str]]:
    """Documents of 2-4 random Han sentences; the first may open with `opener`, the last with `closer`; with
    `short_last` the last sentence is always short (a length cue and nothing else)."""
    rng = random.Random(seed)
    documents = []
    for _ in range(count):
        sizes = [rng.randint(8, 30) for _ in range(rng.randint(2, 4))]
        if short_last:
            sizes[-1] = rng.randint(3, 6)
        sentences = ["".join(rng.choice(HAN) for _ in range(size)) + "。" for size in sizes]
        sentences[0], sentences[-1] = opener + sentences[0], closer + sentences[-1]
        documents.append(sentences)
    return documents


def test_segment_features_see_marks_and_lengths_not_words() -> None:
    shout, open_end = segment_features("总之很好！", len), segment_features("还行", len)
    assert shout[:2] == [5, 5] and shout[5] and shout[-1]  # ends in ！, ends a sentence
    assert not open_end[-1] and not open_end[5]
    assert segment_features("他说：“好。”", len)[-1]  # a closing quote after the full stop still ends a sentence


@pytest.mark.parametrize("cue", ["words", "length"])
def test_baselines_read_what_they_can_and_nothing_else(cue: str) -> None:
    words = {"opener": "刚买", "closer": "总之"} if cue == "words" else {"short_last": True}
    train = order_pairs(reviews(600, 0, **words), len, 125, 5000, seed=0)
    test = order_pairs(reviews(300, 1, **words), len, 125, 5000, seed=0)
    tree, tree_outcomes = text_free_baseline(train, test, len)
    bag, bag_outcomes, cues = bag_of_words_baseline(train, test)
    assert len(tree_outcomes) == len(bag_outcomes) == len(test) >= 250
    if cue == "words":  # same lengths (the two markers are two characters each): only words order these pairs
        assert bag.rate > 0.9 and {"刚买", "刚"} & set(cues["first"]) and {"总之", "总"} & set(cues["last"])
        assert abs(tree.rate - 0.5) < 0.08, tree.as_dict()
    else:  # random characters everywhere: lengths order these pairs (a bag of binary n-grams sees them too: a
        # longer segment has more of them, so its score is not a pure reading of words)
        assert tree.rate > 0.7, tree.as_dict()


def test_the_diagnostic_reader_keeps_unpunctuated_ends(tmp_path: Path) -> None:
    text = tmp_path / "reviews.txt"
    text.write_text("买了一本书。很好看\n\n一句话。\n\n第一句。第二句！\n", encoding="utf-8")
    assert all_sentence_documents([text]) == [["买了一本书。", "很好看"], ["第一句。", "第二句！"]]


def test_outcomes_and_paired_difference() -> None:
    ours = outcomes(np.array([0.9, 0.2, 0.5, 0.7]), np.array([0.1, 0.8, 0.5, 0.6]))
    assert ours.tolist() == [1.0, 0.0, 0.5, 1.0]
    theirs = np.array([0.0, 0.0, 1.0, 1.0])
    difference = paired_difference(ours, theirs)
    assert difference["n"] == 4 and difference["mean"] == pytest.approx(0.125)
    assert difference["ci95"][0] < 0.125 < difference["ci95"][1]
    split = split_by(theirs, ours)
    assert split["on_reference_right"]["hits"] == 1.5 and split["on_reference_wrong"]["hits"] == 1.0


def test_model_scores_and_compare_on_the_same_pairs(tmp_path: Path) -> None:
    rng = random.Random(0)
    vocabulary = "the old sailor walked along river and remembered narrow bridge near quiet village".split()

    def write(path: Path, documents: int) -> Path:
        blocks = [
            " ".join(
                " ".join(rng.choice(vocabulary) for _ in range(rng.randint(3, 8))).capitalize() + "."
                for _ in range(rng.randint(2, 5))
            )
            for _ in range(documents)
        ]
        path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
        return path

    train, dev = write(tmp_path / "train.txt", 300), write(tmp_path / "dev.txt", 60)
    model = tiny_assets().models / "albert-lab-base"
    scores, reference = tmp_path / "scores.json", tmp_path / "baselines.json"
    assert main(["model", "--model", str(model), "--corpus", f"dev={dev}", "--output", str(scores)]) == 0
    result = json.loads(scores.read_text(encoding="utf-8"))
    assert result["max_tokens"] == 61  # the tiny model's 64 positions less [CLS] and two [SEP]
    figures = result["corpora"]["dev"]
    assert figures["pairs"] == len(figures["outcomes"]) == figures["order"]["n"] > 40
    low, high = figures["order"]["ci95"]
    assert low <= figures["order"]["rate"] <= high and figures["order_verdict"] in {"above", "chance", "below"}
    argv = ["baselines", "--train", str(train), "--dev", str(dev), "--tokenizer", str(model), "--max-tokens", "61"]
    assert main([*argv, "--output", str(reference)]) == 0
    versus = tmp_path / "compare.json"
    assert (
        main(
            [
                "compare",
                "--scores",
                str(scores),
                "--baselines",
                str(reference),
                "--corpus",
                "dev",
                "--output",
                str(versus),
            ]
        )
        == 0
    )
    paired = json.loads(versus.read_text(encoding="utf-8"))
    assert paired["text_free_tree"]["difference"]["n"] == figures["pairs"]
    other = json.loads(reference.read_text(encoding="utf-8")) | {"dev_fingerprint": "0" * 16}
    with pytest.raises(ValueError, match="other pairs"):
        compare(result, other, "dev")
