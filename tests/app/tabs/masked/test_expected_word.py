"""Issue 42, item 4: a wrong guess explains itself whole. Beside the guesses, the count of the word the student
expected (typed in "what did you expect?", or the word they masked by picking it) and a few contexts where the
training text held it and the top guess, from a tiny fixture index (never the shipped one, never ../shared)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from albert.data.piece_contexts import PieceContexts, save_piece_contexts
from albert.data.piece_counts import PieceCounts, save_piece_counts
from albert.data.tokenizer import load_tokenizer
from tests.app.support import tiny_assets, use_tiny_assets

TEXT = "the old sailor walked along the [MASK] ."
MODEL = "albert-lab-base"


@pytest.fixture
def indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """albert-lab-base with a count table (piece i counted 1000 + i) and a context index of every word piece."""
    use_tiny_assets(monkeypatch)
    models = tmp_path / "models"
    for name in ("albert-lab-base", "albert-lab-none"):
        shutil.copytree(tiny_assets().models / name, models / name)
    monkeypatch.setenv("ALBERT_LAB_MODELS", str(models))
    tokenizer = load_tokenizer(models / MODEL)
    vocabulary = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
    counts = {piece: 1000 + i for i, piece in enumerate(vocabulary)}
    save_piece_counts(PieceCounts(corpus=("books.txt",), tokens=123_456, counts=counts), models / MODEL)
    contexts = {
        piece: [(f"before {n} *", piece.lstrip("▁").upper(), f" after {n}") for n in range(4)]
        for piece in vocabulary
        if piece.startswith("▁") and piece[1:].isalpha()
    }
    save_piece_contexts(PieceContexts(("books.txt",), 4, 40, 0, 99, contexts), models / MODEL)
    return counts


def test_the_expected_word_carries_its_count_and_contexts_beside_the_top_guess(indexed: dict[str, int]) -> None:
    from app.tabs.masked.views import fill_mask_view

    plain = fill_mask_view(TEXT, 5, MODEL, "en")
    guess = plain.result["masks"][0]["top"][0]
    expected = "bridge" if guess["token"] != "bridge" else "garden"
    answer = fill_mask_view(TEXT, 5, MODEL, "en", expected)
    found = answer.result["expected"]
    assert found["mask"] == 0 and found["expected"]["word"] == expected
    assert found["expected"]["pieces"] == [f"▁{expected}"]
    assert found["expected"]["training_count"] == indexed[f"▁{expected}"]
    assert found["top_guess"]["training_count"] == guess["training_count"]
    assert len(found["expected"]["contexts"]) == 3  # four indexed, three shown
    assert found["expected"]["contexts"][0] == {"before": "before 0 *", "word": expected.upper(), "after": " after 0"}
    assert f"You expected “{expected}”" in answer.status
    assert f"holds it {indexed[f'▁{expected}']:,}×" in answer.status and "123,456" in answer.status
    assert f"**{expected.upper()}**" in answer.status and "before 0 \\*" in answer.status  # training text escaped
    assert plain.result.get("expected") is None and "You expected" not in plain.status

    zh = fill_mask_view(TEXT, 5, MODEL, "zh", expected)
    assert f"你预期的是“{expected}”" in zh.status and "训练文本中出现" in zh.status


def test_picking_a_word_makes_it_the_expected_one(indexed: dict[str, int]) -> None:
    from app.tabs.masked.views import mask_word_view

    answer = mask_word_view("the old sailor walked along the river .", 6, 5, MODEL, "en")
    assert answer.text == "the old sailor walked along the [MASK] ."
    found = answer.result["expected"]
    assert found["expected"]["word"] == "river" and found["expected"]["training_count"] == indexed["▁river"]
    # a [MASK] already before the picked word: the expected word is compared at the second one
    second = mask_word_view("the [MASK] sailor walked along the river .", 6, 5, MODEL, "en")
    assert second.result["expected"]["mask"] == 1


def test_words_the_answer_cannot_hold_are_said_so(indexed: dict[str, int]) -> None:
    from app.tabs.masked.views import fill_mask_view

    split = fill_mask_view(TEXT, 5, MODEL, "en", "lanternsx")
    pieces = split.result["expected"]["expected"]["pieces"]
    assert len(pieces) > 1 and split.result["expected"]["expected"]["training_count"] is None
    assert f"spells it as {len(pieces)} pieces" in split.status
    two = fill_mask_view(TEXT, 5, MODEL, "en", "two words")
    assert "takes one word of up to 40 characters" in two.status and "expected" not in two.result
    assert two.result["masks"]  # the prediction itself is still answered
    for empty in ("", "   ", None):
        assert "expected" not in fill_mask_view(TEXT, 5, MODEL, "en", empty).result
    bare = fill_mask_view(TEXT, 5, "albert-lab-none", "en", "river")  # no count table, no index
    assert "ships no count of its training text" in bare.status
    assert bare.result["expected"]["expected"]["contexts"] == []
