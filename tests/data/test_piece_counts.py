"""The training-text count table (`training_counts.json`): what a masked-word guess can know."""

from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest

from albert.data.piece_counts import COUNTS_FILE, count_pieces, load_piece_counts, save_piece_counts
from albert.data.tokenizer import load_tokenizer, train_tokenizer

WORDS = ["the", "sailor", "walked", "to", "harbour", "paris", "ship", "sea", "old", "night"]


@pytest.fixture(scope="module")
def corpus_and_tokenizer(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("counts")
    lines = [" ".join(WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(8)) for i in range(300)]
    corpus = root / "train.txt.xz"
    with lzma.open(corpus, "wt", encoding="utf-8") as handle:
        handle.write("\n".join(lines[:150]) + "\n\n" + "\n".join(lines[150:]) + "\n")
    train_tokenizer([corpus], root / "tok", vocab_size=30)
    return corpus, root / "tok"


def test_counts_equal_the_pieces_of_one_reading(corpus_and_tokenizer: tuple[Path, Path]) -> None:
    corpus, tokenizer_dir = corpus_and_tokenizer
    tokenizer = load_tokenizer(tokenizer_dir)
    counts = count_pieces(tokenizer, [corpus])
    text = lzma.open(corpus, "rt", encoding="utf-8").read().split()
    assert counts.corpus == ("train.txt.xz",)
    expected = sum(len(tokenizer(word, add_special_tokens=False)["input_ids"]) for word in text)
    assert counts.tokens == expected
    assert sum(counts.counts.values()) == counts.tokens
    paris = tokenizer.tokenize("paris")
    assert paris == ["▁paris"]  # a whole-word piece: counted once per occurrence of the word
    assert counts.count("▁paris") == text.count("paris") > 0
    spelled = sum(text.count(word) for word in ("sailor", "walked", "harbour"))  # each spelled with one "a"
    assert counts.count("a") == spelled
    assert counts.count("[MASK]") == 0 and "[CLS]" not in counts.counts
    assert counts.per_million(paris[0]) == pytest.approx(1e6 * counts.count(paris[0]) / counts.tokens)


def test_saved_table_loads_back_and_bad_files_are_ignored(corpus_and_tokenizer, tmp_path: Path) -> None:
    corpus, tokenizer_dir = corpus_and_tokenizer
    counts = count_pieces(load_tokenizer(tokenizer_dir), [corpus])
    path = save_piece_counts(counts, tmp_path)
    assert path.name == COUNTS_FILE and not list(tmp_path.glob("*.tmp"))
    assert load_piece_counts(tmp_path) == counts
    assert load_piece_counts(tmp_path / "missing") is None
    path.write_text(json.dumps({"corpus": [], "counts": {}}), encoding="utf-8")  # no "tokens"
    assert load_piece_counts(tmp_path) is None
    path.write_text("{not json", encoding="utf-8")
    assert load_piece_counts(tmp_path) is None


def test_counting_nothing_is_refused(corpus_and_tokenizer) -> None:
    with pytest.raises(ValueError, match="at least one text file"):
        count_pieces(load_tokenizer(corpus_and_tokenizer[1]), [])
