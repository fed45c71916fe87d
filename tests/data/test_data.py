"""Pretraining data: reading, sentence splitting, SOP/NSP pairs and masking statistics.

Most tests use a synthetic corpus in which the token at flat position p has id FIRST_ID + p:
every id is unique, so an example's segments can be traced back to the exact document and
sentences they came from.
"""

from __future__ import annotations

import dataclasses
import gzip
import lzma
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from albert.core.config import IGNORE_INDEX, ConfigError
from albert.data.corpus import TokenizedCorpus, read_documents
from albert.data.masking import SpecialIds, choose_mask_spans, mask_tokens, ngram_probabilities
from albert.data.pretraining_examples import (
    PretrainingDataConfig,
    PretrainingDataset,
    collate_pretraining,
    make_eval_batches,
)
from albert.data.pretraining_examples import _truncated_lengths as truncated_lengths
from albert.data.sentences import split_sentences

FIRST_ID = 5
SPECIAL = SpecialIds(pad_id=0, unk_id=1, cls_id=2, sep_id=3, mask_id=4, vocab_size=65_000)


def synthetic_corpus(num_documents: int = 150, seed: int = 0, long_every: int = 10) -> TokenizedCorpus:
    """Documents of 1-20 sentences of 1-30 tokens (now and then one of 150, longer than an example)."""
    rng = random.Random(seed)
    next_id, documents = FIRST_ID, []
    for _ in range(num_documents):
        document = []
        for s in range(rng.randint(1, 20)):
            length = 150 if s % long_every == long_every - 1 else rng.randint(1, 30)
            document.append(list(range(next_id, next_id + length)))
            next_id += length
        documents.append(document)
    assert next_id < SPECIAL.vocab_size
    return TokenizedCorpus.from_documents(documents, SPECIAL)


@pytest.fixture(scope="module")
def corpus() -> TokenizedCorpus:
    return synthetic_corpus()


def _originals(example: dict[str, torch.Tensor]) -> np.ndarray:
    """The input before masking: labels hold the original id at every predicted position."""
    ids, labels = example["input_ids"].numpy(), example["mlm_labels"].numpy()
    return np.where(labels != IGNORE_INDEX, labels, ids)


def _segments(example: dict[str, torch.Tensor]) -> tuple[np.ndarray, np.ndarray]:
    ids = _originals(example)
    seps = np.flatnonzero(ids == SPECIAL.sep_id)
    assert ids[0] == SPECIAL.cls_id and len(seps) == 2 and seps[1] == len(ids) - 1
    types = example["token_type_ids"].numpy()
    assert (types[: seps[0] + 1] == 0).all() and (types[seps[0] + 1 :] == 1).all()
    return ids[1 : seps[0]], ids[seps[0] + 1 : -1]


def _document_of(corpus: TokenizedCorpus, position: int) -> int:
    token_starts = corpus.sentence_offsets[corpus.document_offsets]
    return int(np.searchsorted(token_starts, position, side="right")) - 1


def _all_examples(dataset: PretrainingDataset, epochs: range = range(3)) -> list[dict[str, torch.Tensor]]:
    examples = []
    for epoch in epochs:
        dataset.set_epoch(epoch)
        examples.extend(dataset[i] for i in range(len(dataset)))
    return examples


# --------------------------------------------------------------------------- reading


def test_reads_plain_xz_and_gz(tmp_path: Path) -> None:
    text = "First paragraph.\nSecond paragraph.\n\n\n  \nOther document.\r\n\nThird one\n"
    expected = [["First paragraph.", "Second paragraph."], ["Other document."], ["Third one"]]
    (tmp_path / "a.txt").write_text(text, encoding="utf-8")
    (tmp_path / "a.txt.xz").write_bytes(lzma.compress(text.encode("utf-8")))
    (tmp_path / "a.txt.gz").write_bytes(gzip.compress(text.encode("utf-8")))
    for name in ("a.txt", "a.txt.xz", "a.txt.gz"):
        assert list(read_documents([tmp_path / name])) == expected
    # Documents never span files.
    assert len(list(read_documents([tmp_path / "a.txt", str(tmp_path / "a.txt.gz")]))) == 6


def test_reading_errors_are_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        list(read_documents([tmp_path / "missing.txt"]))
    (tmp_path / "bad.txt.xz").write_bytes(b"not xz at all")
    with pytest.raises(ValueError, match="Could not read"):
        list(read_documents([tmp_path / "bad.txt.xz"]))


def test_dataset_names_need_datasets_package() -> None:
    try:
        import datasets  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="needs the `datasets` package"):
            list(read_documents(["hf:wikitext:wikitext-2-raw-v1"]))
    else:
        pytest.skip("datasets is installed; reading a hub dataset needs the network")


@pytest.mark.parametrize(
    "paragraph, sentences",
    [
        ("One. Two! Three? Four", ["One.", "Two!", "Three?", "Four"]),
        (
            "Mr. Smith met Dr. Jones at St. Paul's. They talked.",
            ["Mr. Smith met Dr. Jones at St. Paul's.", "They talked."],
        ),
        ("Use tools, e.g. Python or i.e. Rust. Fine.", ["Use tools, e.g. Python or i.e. Rust.", "Fine."]),
        ("J. R. R. Tolkien wrote it. Then he slept.", ["J. R. R. Tolkien wrote it.", "Then he slept."]),
        ("Pi is 3.14 roughly. It costs $2.50 now.", ["Pi is 3.14 roughly.", "It costs $2.50 now."]),
        ('He said, "Stop." Then he left.', ['He said, "Stop."', "Then he left."]),
        ("“Stop!” he cried. “Why?” She smiled.", ["“Stop!” he cried.", "“Why?”", "She smiled."]),
        ("Wait... Then go. Well . . . Maybe not.", ["Wait...", "Then go.", "Well . . .", "Maybe not."]),
        ("Hmm… and so on. Really?! Yes.", ["Hmm… and so on.", "Really?!", "Yes."]),
        ("The year was 1901. 1902 came next.", ["The year was 1901.", "1902 came next."]),
        ("He wrote (see above.) Next one.", ["He wrote (see above.)", "Next one."]),
        ("lower case. after a period stays.", ["lower case. after a period stays."]),
        ("Élan. Über alles.", ["Élan.", "Über alles."]),
        ("no terminal punctuation", ["no terminal punctuation"]),
        ("   ", []),
    ],
)
def test_split_sentences(paragraph: str, sentences: list[str]) -> None:
    assert split_sentences(paragraph) == sentences


# --------------------------------------------------------------------------- config


@pytest.mark.parametrize(
    "field, value",
    [
        ("max_seq_length", 4),
        ("short_seq_prob", 1.5),
        ("short_seq_prob", -0.1),
        ("objective", "mlm"),
        ("segments", "paragraphs"),
        ("masked_lm_prob", 0.0),
        ("masked_lm_prob", 1.2),
        ("max_predictions_per_seq", 0),
        ("max_ngram", 0),
        ("seed", -1),
    ],
)
def test_config_validation(field: str, value: object) -> None:
    with pytest.raises(ConfigError, match=field):
        PretrainingDataConfig(**{field: value})


# --------------------------------------------------------------------------- sentence pairs


def test_truncation_matches_the_reference_loop() -> None:
    rng = random.Random(0)
    for _ in range(2000):
        a, b, limit = rng.randint(1, 200), rng.randint(1, 200), rng.randint(2, 200)
        ref_a, ref_b = a, b
        while ref_a + ref_b > limit:
            if ref_a > ref_b:
                ref_a -= 1
            else:
                ref_b -= 1
        assert truncated_lengths(a, b, limit) == (ref_a, ref_b)


@pytest.mark.parametrize("objective", ["sop", "nsp"])
def test_reference_segments_are_contiguous_and_labels_balanced(corpus: TokenizedCorpus, objective: str) -> None:
    config = PretrainingDataConfig(max_seq_length=64, objective=objective, segments="reference")
    examples = _all_examples(PretrainingDataset(corpus, config))
    labels = np.array([int(e["sentence_order_label"]) for e in examples])
    assert len(examples) > 900
    assert abs(labels.mean() - 0.5) < 0.05
    sentence_starts = set(corpus.sentence_offsets.tolist())
    for example, label in zip(examples, labels, strict=True):
        first, second = _segments(example)
        assert len(first) >= 1 and len(second) >= 1 and len(first) + len(second) <= 61
        positions = [segment - FIRST_ID for segment in (first, second)]
        for p in positions:
            assert (np.diff(p) == 1).all(), "a segment is not one contiguous run of the document"
        if objective == "sop":
            a, b = (positions[1], positions[0]) if label else positions  # label 1: swapped
        else:
            a, b = positions
        doc_a, doc_b = _document_of(corpus, a[0]), _document_of(corpus, b[-1])
        assert doc_a == _document_of(corpus, a[-1]) and doc_b == _document_of(corpus, b[0])
        if objective == "nsp" and label:
            assert doc_a != doc_b, "NSP 'random next' must come from another document"
            continue
        assert doc_a == doc_b, "SOP / actual-next segments come from one document"
        assert a[-1] < b[0], "in document order, A precedes B"
        if len(first) + len(second) < 61:
            # Not truncated: B starts right after A, at a sentence boundary unless A and B
            # split a lone sentence (a chunk of one sentence is split inside it).
            assert b[0] == a[-1] + 1
            lone = np.searchsorted(corpus.sentence_offsets, a[0], side="right") == np.searchsorted(
                corpus.sentence_offsets, b[-1], side="right"
            )
            assert b[0] in sentence_starts or lone


def test_single_sentence_documents_never_borrow_another_document() -> None:
    documents = [[list(range(FIRST_ID + 100 * d, FIRST_ID + 100 * d + 2 + d % 50))] for d in range(100)]
    corpus = TokenizedCorpus.from_documents(documents, SPECIAL)
    config = PretrainingDataConfig(max_seq_length=32, segments="reference")
    examples = _all_examples(PretrainingDataset(corpus, config), range(4))
    assert len(examples) == 400
    for example in examples:
        first, second = _segments(example)
        documents_used = set(((np.concatenate([first, second]) - FIRST_ID) // 100).tolist())
        assert len(documents_used) == 1
    assert abs(np.mean([int(e["sentence_order_label"]) for e in examples]) - 0.5) < 0.06


def test_short_seq_prob_makes_short_examples(corpus: TokenizedCorpus) -> None:
    def lengths(prob: float) -> np.ndarray:
        config = PretrainingDataConfig(max_seq_length=64, short_seq_prob=prob, segments="reference")
        dataset = PretrainingDataset(corpus, config)
        return np.array([len(dataset[i]["input_ids"]) for i in range(len(dataset))])

    full, short = lengths(0.0), lengths(1.0)
    assert np.median(full) == 64 and np.median(short) < 45 and len(short) > len(full)


def _pair_features(examples: list[dict[str, torch.Tensor]], corpus: TokenizedCorpus) -> dict[str, np.ndarray]:
    """Per example: label, segment lengths, and whether each segment starts / ends at a sentence edge."""
    starts = set(corpus.sentence_offsets[:-1].tolist())
    ends = set(corpus.sentence_offsets[1:].tolist())
    rows = []
    for example in examples:
        first, second = (segment - FIRST_ID for segment in _segments(example))
        rows.append(
            (
                int(example["sentence_order_label"]),
                len(first),
                len(second),
                first[0] in starts,
                first[-1] + 1 in ends,
                second[0] in starts,
                second[-1] + 1 in ends,
            )
        )
    names = ("label", "length_1", "length_2", "start_1", "end_1", "start_2", "end_2")
    return {name: np.array(column) for name, column in zip(names, zip(*rows, strict=True), strict=True)}


def _shortcut_accuracy(features: dict[str, np.ndarray]) -> float:
    """Held-out SOP accuracy of a decision tree that sees only the segments' lengths and whether each
    starts and ends at a sentence edge, never the text: how much the pipeline gives the order away."""
    from sklearn.tree import DecisionTreeClassifier

    names = ("length_1", "length_2", "start_1", "end_1", "start_2", "end_2")
    x = np.stack([features[k] for k in names], axis=1).astype(float)
    y, half = features["label"], len(features["label"]) // 2
    tree = DecisionTreeClassifier(max_depth=5, random_state=0).fit(x[:half], y[:half])
    return float(tree.score(x[half:], y[half:]))


def test_whole_sentence_pairs_give_no_shortcut_and_reference_pairs_do() -> None:
    # Sentences of 5-50 tokens, as in books: many chunks are two sentences too long to fit together.
    rng, next_id, documents = random.Random(1), FIRST_ID, []
    for _ in range(1000):
        lengths = [rng.randint(5, 50) for _ in range(rng.randint(2, 14))]
        documents.append(
            [list(range(next_id + sum(lengths[:i]), next_id + sum(lengths[: i + 1]))) for i in range(len(lengths))]
        )
        next_id += sum(lengths)
    corpus = TokenizedCorpus.from_documents(documents, dataclasses.replace(SPECIAL, vocab_size=next_id))
    accuracy = {}
    for segments in ("reference", "sentences"):
        dataset = PretrainingDataset(corpus, PretrainingDataConfig(max_seq_length=64, segments=segments))
        examples = _all_examples(dataset, range(4))
        features = _pair_features([e for e in examples if int(e["sentence_order_label"]) != IGNORE_INDEX], corpus)
        accuracy[segments] = _shortcut_accuracy(features)
        if segments == "sentences":
            for label in (0, 1):  # a segment's length or cut edge is independent of its place in the pair
                chosen = features["label"] == label
                assert abs(features["length_1"][chosen].mean() - features["length_2"][chosen].mean()) < 1.2  # SE 0.25
                for edge in ("start", "end"):
                    assert abs(features[f"{edge}_1"][chosen].mean() - features[f"{edge}_2"][chosen].mean()) < 0.03
            assert len(features["label"]) > 10000 and abs(features["label"].mean() - 0.5) < 0.02
    # measured: reference 0.62, sentences 0.53 (the reference truncates B, the one holding the sentence
    # that overran the chunk's target, far more often than A)
    assert accuracy["reference"] > 0.58 and accuracy["sentences"] < 0.55, accuracy


def test_whole_sentence_segments_fit_and_are_runs_of_sentences(corpus: TokenizedCorpus) -> None:
    config = PretrainingDataConfig(max_seq_length=64)
    dataset = PretrainingDataset(corpus, config)
    starts = set(corpus.sentence_offsets[:-1].tolist())
    examples = _all_examples(dataset)
    single = 0
    for example in examples:
        label = int(example["sentence_order_label"])
        if label == IGNORE_INDEX:  # one sentence left at a document's edge: "[CLS] text [SEP]", no pair task
            ids = _originals(example)
            assert ids[0] == SPECIAL.cls_id and list(ids[1:]).count(SPECIAL.sep_id) == 1 and len(ids) <= 64
            assert not example["token_type_ids"].any()
            sentence = int(np.searchsorted(corpus.sentence_offsets, ids[1] - FIRST_ID, side="right")) - 1
            document = _document_of(corpus, ids[1] - FIRST_ID)
            assert sentence in (corpus.document_offsets[document], corpus.document_offsets[document + 1] - 1)
            single += 1
            continue
        first, second = (segment - FIRST_ID for segment in _segments(example))
        a, b = (second, first) if label else (first, second)
        assert len(a) + len(b) <= 61
        if a[0] in starts and b[0] in starts and a[-1] + 1 == b[0]:
            continue  # whole sentences, B right after A
        # otherwise a chunk of two sentences too long to fit together, both truncated at random edges
        assert _document_of(corpus, a[0]) == _document_of(corpus, b[-1]) and a[-1] < b[0]
    assert single < 0.1 * len(examples)  # measured on the Gutenberg books: 0.13%


def test_mlm_only_examples_are_one_segment_of_the_same_chunks(corpus: TokenizedCorpus) -> None:
    sop = PretrainingDataset(corpus, PretrainingDataConfig(max_seq_length=64))
    mlm_only = PretrainingDataset(corpus, PretrainingDataConfig(max_seq_length=64, objective="none"))
    assert np.array_equal(sop.chunks, mlm_only.chunks)  # the same text, only the sentence task differs
    for index in range(len(mlm_only)):
        example = mlm_only[index]
        ids = _originals(example)
        assert int(example["sentence_order_label"]) == IGNORE_INDEX and not example["token_type_ids"].any()
        assert ids[0] == SPECIAL.cls_id and ids[-1] == SPECIAL.sep_id and (ids[1:-1] != SPECIAL.sep_id).all()
        assert (np.diff(ids[1:-1]) == 1).all() and len(ids) <= 64  # one contiguous run of the document


# --------------------------------------------------------------------------- masking


def test_mask_rate_80_10_10_and_specials(corpus: TokenizedCorpus) -> None:
    config = PretrainingDataConfig(max_seq_length=64, max_predictions_per_seq=20)
    examples = _all_examples(PretrainingDataset(corpus, config))
    predicted = maskable = as_mask = unchanged = randomised = 0
    for example in examples:
        ids, labels, original = example["input_ids"].numpy(), example["mlm_labels"].numpy(), _originals(example)
        special_position = np.isin(original, (SPECIAL.cls_id, SPECIAL.sep_id))
        assert (labels[special_position] == IGNORE_INDEX).all(), "a [CLS]/[SEP] was chosen"
        assert (ids[special_position] == original[special_position]).all()
        assert not np.isin(ids, (SPECIAL.pad_id, SPECIAL.unk_id)).any()
        chosen = labels != IGNORE_INDEX
        assert chosen.sum() <= config.max_predictions_per_seq
        predicted += chosen.sum()
        maskable += (~special_position).sum()
        as_mask += (ids[chosen] == SPECIAL.mask_id).sum()
        unchanged += (ids[chosen] == labels[chosen]).sum()
        replaced = ids[chosen & (ids != SPECIAL.mask_id) & (ids != labels)]
        assert (replaced >= FIRST_ID).all() and (replaced < SPECIAL.vocab_size).all()
        randomised += replaced.size
    assert abs(predicted / maskable - 0.15) < 0.01
    assert abs(as_mask / predicted - 0.8) < 0.015
    assert abs(unchanged / predicted - 0.1) < 0.015
    assert abs(randomised / predicted - 0.1) < 0.015


def test_prediction_cap() -> None:
    ids = np.arange(FIRST_ID, FIRST_ID + 300)
    _, labels = mask_tokens(
        ids, np.ones(300, bool), np.random.default_rng(0), SPECIAL, masked_lm_prob=0.15, max_predictions=7, max_ngram=3
    )
    assert (labels != IGNORE_INDEX).sum() == 7


def test_ngram_lengths_follow_one_over_n() -> None:
    lengths = []
    for seed in range(300):
        spans = choose_mask_spans(np.ones(400, bool), np.random.default_rng(seed), num_to_predict=60, max_ngram=3)
        lengths.extend(end - start for start, end in spans)
    observed = np.bincount(lengths, minlength=4)[1:] / len(lengths)
    assert np.allclose(ngram_probabilities(3), [6 / 11, 3 / 11, 2 / 11])
    assert np.abs(observed - ngram_probabilities(3)).max() < 0.03, observed
    one = choose_mask_spans(np.ones(100, bool), np.random.default_rng(0), num_to_predict=30, max_ngram=1)
    assert {end - start for start, end in one} == {1}


def test_spans_never_cross_unmaskable_positions() -> None:
    maskable = np.ones(60, bool)
    maskable[::4] = False  # runs of three maskable tokens between fixed ones
    for seed in range(50):
        spans = choose_mask_spans(maskable, np.random.default_rng(seed), num_to_predict=40, max_ngram=3)
        covered = np.concatenate([np.arange(s, e) for s, e in spans])
        assert maskable[covered].all() and len(covered) == len(set(covered.tolist()))


def test_special_ids_inside_text_are_never_masked() -> None:
    ids = np.array([2, 7, 4, 8, 3, 9, 0, 10, 3])
    for seed in range(50):
        masked, labels = mask_tokens(
            ids,
            np.ones(9, bool),
            np.random.default_rng(seed),
            SPECIAL,
            masked_lm_prob=1.0,
            max_predictions=9,
            max_ngram=2,
        )
        assert set(np.flatnonzero(labels != IGNORE_INDEX).tolist()) <= {1, 3, 5, 7}


def test_whole_word_masking_masks_whole_words() -> None:
    rng = np.random.default_rng(0)
    word_start = rng.random(SPECIAL.vocab_size) < 0.4
    word_start[:FIRST_ID] = True
    special = SpecialIds(0, 1, 2, 3, 4, SPECIAL.vocab_size, word_start=word_start)
    inside_words = 0
    for seed in range(100):
        ids = np.concatenate([[2], rng.integers(FIRST_ID, SPECIAL.vocab_size, 40), [3]])
        maskable = np.ones(ids.size, bool)
        maskable[[0, -1]] = False
        _, labels = mask_tokens(
            ids,
            maskable,
            np.random.default_rng(seed),
            special,
            masked_lm_prob=0.3,
            max_predictions=20,
            max_ngram=3,
            whole_word=True,
        )
        chosen = labels != IGNORE_INDEX
        starts = word_start[ids] | ~maskable
        for position in range(2, ids.size - 1):  # a word's pieces are all chosen or none is
            if not starts[position]:
                assert chosen[position] == chosen[position - 1]
                inside_words += chosen[position]
    assert inside_words > 100  # multi-piece words were chosen, whole


# --------------------------------------------------------------------------- determinism, collation


def test_determinism_dynamic_and_static(corpus: TokenizedCorpus) -> None:
    def items(dataset: PretrainingDataset, count: int = 50) -> list[list[int]]:
        return [torch.cat([v.reshape(-1) for v in dataset[i].values()]).tolist() for i in range(count)]

    config = PretrainingDataConfig(max_seq_length=64, seed=3)
    dynamic = PretrainingDataset(corpus, config)
    first = items(dynamic)
    assert items(dynamic) == first and items(PretrainingDataset(corpus, config)) == first
    dynamic.set_epoch(1)
    assert sum(a != b for a, b in zip(items(dynamic), first, strict=True)) > 45
    dynamic.set_epoch(0)
    assert items(dynamic) == first
    assert items(PretrainingDataset(corpus, PretrainingDataConfig(max_seq_length=64, seed=4))) != first
    static = PretrainingDataset(corpus, PretrainingDataConfig(max_seq_length=64, seed=3, dynamic_masking=False))
    before = items(static)
    static.set_epoch(5)
    assert items(static) == before


def test_collate_pads_to_longest(corpus: TokenizedCorpus) -> None:
    dataset = PretrainingDataset(corpus, PretrainingDataConfig(max_seq_length=64, short_seq_prob=1.0))
    examples = [dataset[i] for i in range(8)]
    batch = collate_pretraining(examples, pad_id=0)
    longest = max(len(e["input_ids"]) for e in examples)
    assert batch["input_ids"].shape == (8, longest) and batch["sentence_order_label"].shape == (8,)
    assert all(v.dtype == torch.long for v in batch.values())
    for row, example in enumerate(examples):
        n = len(example["input_ids"])
        assert batch["attention_mask"][row].tolist() == [1] * n + [0] * (longest - n)
        assert (batch["input_ids"][row, n:] == 0).all() and (batch["mlm_labels"][row, n:] == IGNORE_INDEX).all()
        assert torch.equal(batch["token_type_ids"][row, :n], example["token_type_ids"])
    assert collate_pretraining(examples, pad_id=0, pad_to=64)["input_ids"].shape == (8, 64)


def test_eval_batches_are_fixed_and_fully_masked(corpus: TokenizedCorpus) -> None:
    config = PretrainingDataConfig(max_seq_length=64)
    batches = make_eval_batches(corpus, config, pad_id=0, num_examples=50, batch_size=16)
    again = make_eval_batches(corpus, config, pad_id=0, num_examples=50, batch_size=16)
    assert [len(b["input_ids"]) for b in batches] == [16, 16, 16, 2]
    for batch, same in zip(batches, again, strict=True):
        assert all(torch.equal(batch[k], same[k]) for k in batch)
        chosen = batch["mlm_labels"] != IGNORE_INDEX
        assert chosen.any() and (batch["input_ids"][chosen] == SPECIAL.mask_id).all()


def test_special_ids_must_match_the_corpus(corpus: TokenizedCorpus) -> None:
    other = SpecialIds(0, 1, 2, 3, 4, vocab_size=1000)
    with pytest.raises(ValueError, match="another tokenizer"):
        PretrainingDataset(corpus, PretrainingDataConfig(), other)
    with pytest.raises(ValueError, match="word starts"):
        PretrainingDataset(corpus, PretrainingDataConfig(whole_word_masking=True))
