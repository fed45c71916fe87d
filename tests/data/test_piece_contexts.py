"""The training-text context index (`training_contexts.json.gz`): where a model's training text held each word."""

from __future__ import annotations

import gzip
import json
import lzma
from pathlib import Path

import pytest

from albert.data import piece_contexts
from albert.data.piece_contexts import (
    CONTEXTS_FILE,
    build_piece_contexts,
    load_piece_contexts,
    narrowed,
    save_piece_contexts,
)
from albert.data.tokenizer import load_tokenizer, train_tokenizer

WORDS = ["the", "sailor", "walked", "to", "harbour", "paris", "ship", "sea", "old", "night"]


@pytest.fixture(scope="module")
def corpus_and_tokenizer(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("contexts")
    lines = [f"Line {i}: " + " ".join(WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(8)) for i in range(300)]
    corpus = root / "train.txt.xz"
    with lzma.open(corpus, "wt", encoding="utf-8") as handle:
        handle.write("\n".join(lines[:150]) + "\n\n" + "\n".join(lines[150:]) + "\n")
    train_tokenizer([corpus], root / "tok", vocab_size=40)
    return corpus, root / "tok"


def test_every_context_holds_its_word_as_printed(corpus_and_tokenizer) -> None:
    corpus, tokenizer_dir = corpus_and_tokenizer
    tokenizer = load_tokenizer(tokenizer_dir)
    found = build_piece_contexts(tokenizer, [corpus], per_piece=3, window=20, seed=0)
    text = lzma.open(corpus, "rt", encoding="utf-8").read()
    assert tokenizer.tokenize("paris") == ["▁paris"]
    assert found.corpus == ("train.txt.xz",) and found.per_piece == 3 and found.window == 20
    assert found.occurrences > 1000
    paris = found.of("▁paris")
    assert len(paris) == 3 and found.of("▁paris", limit=1) == paris[:1]
    for before, word, after in paris:
        assert word == "paris"
        assert len(before.lstrip("…")) <= 20 and len(after.rstrip("…")) <= 20
        assert (before.lstrip("…") + word + after.rstrip("…")) in text  # a piece of one printed line
    # only whole-word pieces: no contexts for a piece inside a word, punctuation or a special token
    inner = [p for p in tokenizer.convert_ids_to_tokens(list(range(len(tokenizer)))) if not p.startswith("▁")]
    assert not set(inner) & set(found.contexts)
    assert found.of("[MASK]") == [] and found.of("▁nowhere") == []


def test_the_sample_does_not_depend_on_how_the_text_is_batched(corpus_and_tokenizer, monkeypatch) -> None:
    """One key per occurrence, the smallest kept: merging batch by batch keeps what one pass over all would."""
    corpus, tokenizer_dir = corpus_and_tokenizer
    tokenizer = load_tokenizer(tokenizer_dir)
    whole = build_piece_contexts(tokenizer, [corpus], per_piece=2, seed=3)
    monkeypatch.setattr(piece_contexts, "_BATCH_LINES", 7)
    batched = build_piece_contexts(tokenizer, [corpus], per_piece=2, seed=3)
    assert batched == whole
    other = build_piece_contexts(tokenizer, [corpus], per_piece=2, seed=4)
    assert other.contexts != whole.contexts and other.contexts.keys() == whole.contexts.keys()


def test_a_uniform_sample_of_the_occurrences(tmp_path: Path, corpus_and_tokenizer) -> None:
    """'paris' on 40 numbered lines, one context kept: over 200 seeds each line is kept about 5 times."""
    _, tokenizer_dir = corpus_and_tokenizer
    tokenizer = load_tokenizer(tokenizer_dir)
    corpus = tmp_path / "paris.txt"
    corpus.write_text("\n".join(f"line {i} the old paris" for i in range(40)) + "\n", encoding="utf-8")
    kept = [
        build_piece_contexts(tokenizer, [corpus], per_piece=1, window=12, seed=s).of("▁paris")[0][0] for s in range(200)
    ]
    tally = {line: kept.count(line) for line in set(kept)}
    assert len(tally) >= 30 and max(tally.values()) <= 16, tally


def test_saved_index_fits_its_bound_and_loads_back(corpus_and_tokenizer, tmp_path: Path) -> None:
    corpus, tokenizer_dir = corpus_and_tokenizer
    found = build_piece_contexts(load_tokenizer(tokenizer_dir), [corpus], per_piece=3, window=30)
    path, written = save_piece_contexts(found, tmp_path)
    assert path.name == CONTEXTS_FILE and not list(tmp_path.glob("*.tmp"))
    assert written == found and load_piece_contexts(tmp_path) == found
    first = path.read_bytes()
    assert save_piece_contexts(found, tmp_path)[0].read_bytes() == first  # no time stamp: the same bytes again
    size = len(gzip.decompress(first))  # the bound is on the JSON a reader holds, the file is smaller
    assert path.stat().st_size < size
    bound = size * 2 // 3
    path, smaller = save_piece_contexts(found, tmp_path, max_bytes=bound)
    assert len(gzip.decompress(path.read_bytes())) <= bound and smaller.window < found.window
    assert load_piece_contexts(tmp_path) == smaller
    for (before, word, after), (wide_before, _, wide_after) in zip(
        smaller.of("▁paris"), found.of("▁paris"), strict=True
    ):
        assert word == "paris" and wide_before.endswith(before.lstrip("…")) and wide_after.startswith(after.rstrip("…"))
    assert narrowed(found, 100) == found  # narrowing never widens
    with pytest.raises(ValueError, match="do not fit"):
        save_piece_contexts(found, tmp_path, max_bytes=100)


def test_unreadable_or_missing_index_is_ignored(tmp_path: Path) -> None:
    assert load_piece_contexts(tmp_path) is None
    path = tmp_path / CONTEXTS_FILE
    for payload in (json.dumps({"corpus": [], "contexts": {}}), "{not json"):
        path.write_bytes(gzip.compress(payload.encode()))
        assert load_piece_contexts(tmp_path) is None
    path.write_text(json.dumps({"corpus": [], "contexts": {}}), encoding="utf-8")  # not compressed
    assert load_piece_contexts(tmp_path) is None
    path.write_bytes(gzip.compress(b'{"corpus": []}')[:-9])  # cut short
    assert load_piece_contexts(tmp_path) is None


def test_building_from_nothing_is_refused(corpus_and_tokenizer) -> None:
    _, tokenizer_dir = corpus_and_tokenizer
    with pytest.raises(ValueError, match="at least one text file"):
        build_piece_contexts(load_tokenizer(tokenizer_dir), [])
