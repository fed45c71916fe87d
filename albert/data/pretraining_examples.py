"""Pretraining data: SOP/NSP sentence pairs with n-gram masking, collation, held-out batches.

Reading and the tokenized cache live in `albert.data.corpus`, sentence splitting in
`albert.data.sentences`, the masking rules in `albert.data.masking`.

How an epoch is made (ALBERT's `create_pretraining_data.py`, made lazy):
1. `set_epoch` walks every document and cuts it into chunks of consecutive sentences, each
   filled up to a target length (max_seq_length - 3, or with probability short_seq_prob a
   random shorter one). This is cheap (one pass over sentence offsets) and gives `len()`.
2. `__getitem__(i)` turns chunk i into one example with a generator seeded by
   (seed, epoch, i): split the chunk at a random sentence boundary into A and B, swap them
   with probability 0.5 (SOP) or replace B by text from another document (NSP), truncate
   the pair to fit "[CLS] A [SEP] B [SEP]", mask it.
With `dynamic_masking` every epoch gets new chunks, splits, swaps and masks; without it the
epoch is ignored and each index gives the same example forever (BERT's static data).

Segments are whole sentences by default (`segments="sentences"`): a chunk holds the sentences
that fit its target (at least two), and only a two-sentence chunk that is too long is truncated,
A and B alike; a document of one sentence becomes a single-segment example without a
sentence-pair label (label IGNORE_INDEX, MLM only). With
`segments="reference"` chunks are cut as the reference script cuts them, and a chunk of a
single sentence is split inside that sentence. The reference script instead
takes B from a random document and labels it "not next", which in SOP mode mixes NSP
examples into SOP; we never take a segment from another document in SOP mode. In NSP mode
the chunk's sentences after A that a "random next" B replaces go unused this epoch (the
reference puts them back into the stream; with chunks planned up front we cannot, and
dynamic masking recuts the documents every epoch anyway).
"""

from __future__ import annotations

import dataclasses
import logging
import time
import typing
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import torch

from albert.core.config import IGNORE_INDEX, SENTENCE_OBJECTIVES, ConfigError, SentenceObjective
from albert.data.corpus import TokenizedCorpus
from albert.data.masking import SpecialIds, mask_tokens

logger = logging.getLogger(__name__)

Segments = Literal["sentences", "reference"]
BLOCK_SENTENCES = 64
"""`segments="sentences"` chunks each block of this many sentences of a document forward or backward."""

# Independent random streams: the chunk plan, each example, the choice of held-out examples.
_PLAN_STREAM, _EXAMPLE_STREAM, _EVAL_STREAM = 1, 2, 3


@dataclass
class PretrainingDataConfig:
    """How pretraining examples are built from a tokenized corpus (ALBERT's defaults)."""

    max_seq_length: int = 128
    """Tokens per example, [CLS] and two [SEP] included."""
    short_seq_prob: float = 0.1
    """Probability that a chunk aims at a random shorter length (2 .. max_seq_length - 3), so the
    model also sees short inputs, as at fine-tuning time."""
    objective: SentenceObjective = "sop"
    """Sentence-pair task: "sop" (ALBERT: two consecutive segments, swapped half of the time),
    "nsp" (BERT: the second segment from a random other document half of the time) or "none" (no
    sentence task: every example is one segment, "[CLS] text [SEP]"; the paper's Table 5 "None")."""
    segments: Segments = "sentences"
    """How a chunk is cut. "sentences": a chunk holds whole sentences up to its target length (at
    least two) and its segments are whole-sentence runs; only a chunk of two sentences too long to fit
    together is truncated, and then A and B alike (random tie-break, each cut at front or back at
    random), so neither a segment's length nor a cut edge tells which came first. A sentence left alone
    at a document's edge becomes a single-segment example with no sentence-pair label (MLM only).
    "reference": ALBERT's script — chunks run past the target, the pair is truncated to fit and a lone
    sentence is split inside; the truncated edges give the order away (README, "The SOP shortcut")."""
    masked_lm_prob: float = 0.15
    """Fraction of the (non-special) tokens chosen for masked-language-model prediction."""
    max_predictions_per_seq: int = 20
    """Upper limit on the tokens chosen per example."""
    max_ngram: int = 3
    """Longest masked n-gram; n is drawn with p(n) proportional to 1/n."""
    whole_word_masking: bool = False
    """Mask whole words instead of pieces: words as a word-segmented corpus gives them (Chinese
    BERT-wwm), else SentencePiece pieces starting with "▁" start a word."""
    dynamic_masking: bool = True
    """New chunks, segment splits and masks every epoch; False repeats epoch 0's examples."""
    seed: int = 0
    """Seed of every random choice; an example depends only on (seed, epoch, index)."""

    def __post_init__(self) -> None:
        if self.max_seq_length < 5:
            raise ConfigError(
                f"max_seq_length must be at least 5 ([CLS] A [SEP] B [SEP] with one token in each "
                f"segment), got {self.max_seq_length}."
            )
        if not 0.0 <= self.short_seq_prob <= 1.0:
            raise ConfigError(f"short_seq_prob must be between 0 and 1, got {self.short_seq_prob}.")
        if self.objective not in SENTENCE_OBJECTIVES:
            raise ConfigError(f"objective must be 'sop', 'nsp' or 'none' (MLM only), got {self.objective!r}.")
        if self.segments not in typing.get_args(Segments):
            raise ConfigError(f"segments must be 'sentences' or 'reference', got {self.segments!r}.")
        if not 0.0 < self.masked_lm_prob <= 1.0:
            raise ConfigError(f"masked_lm_prob must be in (0, 1], got {self.masked_lm_prob}.")
        if self.max_predictions_per_seq < 1:
            raise ConfigError(f"max_predictions_per_seq must be at least 1, got {self.max_predictions_per_seq}.")
        if self.max_ngram < 1:
            raise ConfigError(f"max_ngram must be at least 1, got {self.max_ngram}.")
        if self.seed < 0:
            raise ConfigError(f"seed must be a non-negative integer, got {self.seed}.")


def _special_ids_for(corpus: TokenizedCorpus, given: Any) -> SpecialIds:
    if given is None:
        return corpus.special_ids
    special = given if isinstance(given, SpecialIds) else SpecialIds.from_tokenizer(given)
    if special.word_start is None and corpus.special_ids.word_start is not None:
        special = dataclasses.replace(special, word_start=corpus.special_ids.word_start)
    ours = (special.pad_id, special.cls_id, special.sep_id, special.mask_id, special.vocab_size)
    theirs = (
        corpus.special_ids.pad_id,
        corpus.special_ids.cls_id,
        corpus.special_ids.sep_id,
        corpus.special_ids.mask_id,
        corpus.special_ids.vocab_size,
    )
    if ours != theirs:
        raise ValueError(
            f"The corpus was tokenized with another tokenizer (pad, cls, sep, mask ids and vocabulary "
            f"size {theirs}, given {ours}); build the corpus with this tokenizer."
        )
    return special


def _truncated_lengths(length_a: int, length_b: int, max_tokens: int, b_first: bool = True) -> tuple[int, int]:
    """Lengths after the reference's `truncate_seq_pair`: drop one token at a time from the
    longer segment (from B on a tie, or from A with `b_first=False`) until the pair fits;
    computed without the loop."""
    excess = length_a + length_b - max_tokens
    if excess <= 0:
        return length_a, length_b
    first = min(excess, abs(length_a - length_b))  # cut the longer down to the shorter
    if length_a > length_b:
        length_a -= first
    else:
        length_b -= first
    rest = excess - first  # then alternate, B first (or A first), since the lengths are now equal
    if not b_first:
        return length_a - (rest + 1) // 2, length_b - rest // 2
    return length_a - rest // 2, length_b - (rest + 1) // 2


def _chunk_end(offsets: np.ndarray, sentence: int, end: int, target: int, segments: str, min_sentences: int) -> int:
    """The sentence after the last of a chunk that starts at `sentence` and aims at `target` tokens.

    "reference": the first boundary at which the chunk holds >= target tokens (it runs past the
    target). "sentences": the last boundary at which it holds <= target tokens, but at least
    `min_sentences` (two for a sentence pair). Never past the document's `end`.
    """
    if segments == "reference":
        stop = int(np.searchsorted(offsets, offsets[sentence] + target, side="left"))
        min_sentences = 1
    else:
        stop = int(np.searchsorted(offsets, offsets[sentence] + target, side="right")) - 1
    return min(max(stop, sentence + min_sentences), end)


class PretrainingDataset(torch.utils.data.Dataset):
    """SOP or NSP pretraining examples over a TokenizedCorpus; deterministic per (seed, epoch, index).

    Call `set_epoch(epoch)` before each epoch (in the main process, before creating the
    DataLoader iterator; persistent workers keep their own copy and would not see it).
    `len()` may change from epoch to epoch with dynamic masking, since chunking is redrawn.
    """

    def __init__(
        self,
        corpus: TokenizedCorpus,
        config: PretrainingDataConfig,
        tokenizer_special_ids: SpecialIds | Any | None = None,
        *,
        mask_all: bool = False,
    ) -> None:
        self.corpus = corpus
        self.config = config
        self.special = _special_ids_for(corpus, tokenizer_special_ids)
        self.mask_all = mask_all
        if config.whole_word_masking and self.special.word_start is None and corpus.token_word_start is None:
            raise ValueError(
                "whole_word_masking needs the tokenizer's word starts: pass the tokenizer, or "
                "SpecialIds.from_tokenizer(tokenizer)."
            )
        if config.objective == "nsp" and corpus.num_documents < 2:
            raise ValueError(
                f"The NSP objective needs at least two documents in the corpus, this one has {corpus.num_documents}."
            )
        self.epoch = -1
        self.chunks = np.zeros((0, 4), dtype=np.int64)
        self.set_epoch(0)
        if len(self.chunks) == 0:
            raise ValueError(
                f"The corpus yields no example (it has {corpus.num_tokens} tokens); "
                "it needs at least one sentence of two tokens or two sentences."
            )

    def __len__(self) -> int:
        return len(self.chunks)

    @property
    def _effective_epoch(self) -> int:
        return self.epoch if self.config.dynamic_masking else 0

    def set_epoch(self, epoch: int) -> None:
        """Recut the documents into chunks for `epoch` (deterministic; about a second per 100M tokens)."""
        if epoch < 0:
            raise ValueError(f"epoch must be a non-negative integer, got {epoch}.")
        previous = self._effective_epoch if self.epoch >= 0 else None
        self.epoch = int(epoch)
        if previous == self._effective_epoch:
            return
        start = time.perf_counter()
        rng = np.random.default_rng([_PLAN_STREAM, self.config.seed, self._effective_epoch, 0])
        self.chunks = self._plan_chunks(rng)
        logger.debug("Epoch %d: %d examples planned in %.2f s", epoch, len(self.chunks), time.perf_counter() - start)

    def _plan_chunks(self, rng: np.random.Generator) -> np.ndarray:
        """Rows (document, first sentence, end sentence, target length): the reference's chunking."""
        offsets = np.asarray(self.corpus.sentence_offsets)
        documents = np.asarray(self.corpus.document_offsets)
        max_tokens = self.config.max_seq_length - 3
        # At most one chunk per sentence: draw every random number up front (fast, reproducible).
        num_sentences = self.corpus.num_sentences
        short = rng.random(num_sentences) < self.config.short_seq_prob
        targets = np.where(short, rng.integers(2, max_tokens + 1, size=num_sentences), max_tokens)
        rows: list[tuple[int, int, int, int]] = []
        chunk = 0
        if self.config.segments == "reference":
            for document in range(self.corpus.num_documents):
                sentence, end = int(documents[document]), int(documents[document + 1])
                while sentence < end:
                    target = int(targets[chunk])
                    chunk += 1
                    stop = _chunk_end(offsets, sentence, end, target, "reference", 1)
                    if stop - sentence > 1 or offsets[stop] - offsets[sentence] >= 2:
                        rows.append((document, sentence, stop, target))
                    sentence = stop
            return np.array(rows, dtype=np.int64).reshape(-1, 4)
        # A chunk that ends because the next sentence does not fit makes that next sentence the first of
        # the following chunk: first sentences are longer than others, and A would be longer than B. So
        # each block of BLOCK_SENTENCES sentences is chunked forward or backward at random (backward, the
        # last sentence of a chunk is the long one): a segment's length no longer tells its place.
        backward = rng.random(num_sentences) < 0.5
        block = 0
        for document in range(self.corpus.num_documents):
            first, end = int(documents[document]), int(documents[document + 1])
            for block_start in range(first, end, BLOCK_SENTENCES):
                block_end = min(block_start + BLOCK_SENTENCES, end)
                block_rows: list[tuple[int, int, int, int]] = []
                reverse = bool(backward[block])
                block += 1
                sentence = block_end if reverse else block_start
                while (sentence > block_start) if reverse else (sentence < block_end):
                    target = int(targets[chunk])
                    chunk += 1
                    if reverse:
                        begin = int(np.searchsorted(offsets, offsets[sentence] - target, side="left"))
                        begin, stop = max(min(begin, sentence - 2), block_start), sentence
                    else:
                        begin, stop = sentence, _chunk_end(offsets, sentence, block_end, target, "sentences", 2)
                    block_rows.append((document, begin, stop, target))
                    sentence = begin if reverse else stop
                rows.extend(reversed(block_rows) if reverse else block_rows)
        return np.array(rows, dtype=np.int64).reshape(-1, 4)

    def _random_segment(self, rng: np.random.Generator, document: int, target: int) -> tuple[int, int]:
        """NSP's "random next": text from a uniformly drawn other document, from a random sentence on."""
        other = int(rng.integers(self.corpus.num_documents - 1))
        other += other >= document  # uniform over the other documents, no retry loop
        first, end = int(self.corpus.document_offsets[other]), int(self.corpus.document_offsets[other + 1])
        sentence = int(rng.integers(first, end))
        offsets = self.corpus.sentence_offsets
        stop = _chunk_end(offsets, sentence, end, max(target, 1), self.config.segments, 1)
        return int(offsets[sentence]), int(offsets[stop])

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        if not 0 <= index < len(self.chunks):
            raise IndexError(f"example {index} out of range (0..{len(self.chunks) - 1})")
        config, offsets = self.config, self.corpus.sentence_offsets
        document, first, end, target = (int(v) for v in self.chunks[index])
        rng = np.random.default_rng([_EXAMPLE_STREAM, config.seed, self._effective_epoch, int(index)])
        start, stop = int(offsets[first]), int(offsets[end])
        if config.objective == "none" or (config.segments == "sentences" and end - first < 2):
            return self._single_segment(rng, start, stop)  # no pair task, or a document of one sentence
        if end - first >= 2:
            split = int(offsets[rng.integers(first + 1, end)])  # a random sentence boundary
        else:
            split = start + int(rng.integers(1, stop - start))  # one sentence: split inside it
        a, b = (start, split), (split, stop)
        label = int(rng.random() < 0.5)
        if label and config.objective == "sop":
            a, b = b, a  # label 1 = swapped
        elif label:
            b = self._random_segment(rng, document, target - (split - start))  # label 1 = random next
        # "sentences": on an odd excess, A or B at random loses the last token (the reference always
        # takes it from B, so a pair one token shorter after the [SEP] would hint "not swapped").
        b_first = config.segments == "reference" or bool(rng.random() < 0.5)
        length_a, length_b = _truncated_lengths(a[1] - a[0], b[1] - b[0], config.max_seq_length - 3, b_first)
        # Each dropped token comes from the front or the back with probability 1/2, as the reference.
        front_a = int(rng.binomial(a[1] - a[0] - length_a, 0.5))
        front_b = int(rng.binomial(b[1] - b[0] - length_b, 0.5))
        tokens = self.corpus.tokens
        span_a = slice(a[0] + front_a, a[0] + front_a + length_a)
        span_b = slice(b[0] + front_b, b[0] + front_b + length_b)
        segment_a, segment_b = tokens[span_a], tokens[span_b]
        special = self.special
        input_ids = np.concatenate([[special.cls_id], segment_a, [special.sep_id], segment_b, [special.sep_id]])
        input_ids = input_ids.astype(np.int64)
        token_type_ids = np.zeros(input_ids.size, dtype=np.int64)
        token_type_ids[length_a + 2 :] = 1
        maskable = np.ones(input_ids.size, dtype=bool)
        maskable[[0, length_a + 1, input_ids.size - 1]] = False
        return self._example(rng, input_ids, token_type_ids, maskable, label, self._word_starts(span_a, span_b))

    def _single_segment(self, rng: np.random.Generator, start: int, stop: int) -> dict[str, torch.Tensor]:
        """ "[CLS] text [SEP]" with no sentence-pair label: MLM-only data, or a chunk of one sentence."""
        length = min(stop - start, self.config.max_seq_length - 2)
        front = int(rng.binomial(stop - start - length, 0.5))
        segment = self.corpus.tokens[start + front : start + front + length]
        input_ids = np.concatenate([[self.special.cls_id], segment, [self.special.sep_id]]).astype(np.int64)
        maskable = np.ones(input_ids.size, dtype=bool)
        maskable[[0, input_ids.size - 1]] = False
        word_start = self._word_starts(slice(start + front, start + front + length))
        return self._example(
            rng, input_ids, np.zeros(input_ids.size, dtype=np.int64), maskable, IGNORE_INDEX, word_start
        )

    def _word_starts(self, *spans: slice) -> np.ndarray | None:
        """Per position of "[CLS] span [SEP] span [SEP]": the corpus's word starts (None without them)."""
        if not self.config.whole_word_masking or self.corpus.token_word_start is None:
            return None
        parts: list[np.ndarray] = [np.ones(1, dtype=bool)]
        for span in spans:
            parts.extend([np.asarray(self.corpus.token_word_start[span], dtype=bool), np.ones(1, dtype=bool)])
        return np.concatenate(parts)

    def _example(
        self,
        rng: np.random.Generator,
        input_ids: np.ndarray,
        token_type_ids: np.ndarray,
        maskable: np.ndarray,
        label: int,
        word_start: np.ndarray | None = None,
    ) -> dict[str, torch.Tensor]:
        config = self.config
        masked, labels = mask_tokens(
            input_ids,
            maskable,
            rng,
            self.special,
            masked_lm_prob=config.masked_lm_prob,
            max_predictions=config.max_predictions_per_seq,
            max_ngram=config.max_ngram,
            whole_word=config.whole_word_masking,
            mask_all=self.mask_all,
            word_start=word_start,
        )
        return {
            "input_ids": torch.from_numpy(masked),
            "token_type_ids": torch.from_numpy(token_type_ids),
            "mlm_labels": torch.from_numpy(labels),
            "sentence_order_label": torch.tensor(label, dtype=torch.long),  # IGNORE_INDEX: no pair task
        }


def collate_pretraining(
    examples: list[dict[str, torch.Tensor]], pad_id: int, pad_to: int | None = None
) -> dict[str, torch.Tensor]:
    """Stack examples, padding to the longest (or to `pad_to`, for fixed shapes under torch.compile)."""
    if not examples:
        raise ValueError("collate_pretraining needs at least one example.")
    length = max(int(e["input_ids"].numel()) for e in examples)
    if pad_to is not None:
        if pad_to < length:
            raise ValueError(f"pad_to={pad_to} is shorter than the longest example ({length} tokens).")
        length = pad_to
    # One vectorised fill per field: positions before each example's length, row by row, take its values in order.
    lengths = torch.tensor([int(e["input_ids"].numel()) for e in examples])
    filled = torch.arange(length) < lengths[:, None]  # (B, T)

    def padded(key: str, fill: int) -> torch.Tensor:
        out = torch.full(filled.shape, fill, dtype=torch.long)
        out[filled] = torch.cat([e[key] for e in examples]).long()
        return out

    return {
        "input_ids": padded("input_ids", pad_id),
        "attention_mask": filled.long(),
        "token_type_ids": padded("token_type_ids", 0),
        "mlm_labels": padded("mlm_labels", IGNORE_INDEX),
        "sentence_order_label": torch.stack([e["sentence_order_label"].reshape(()) for e in examples]).long(),
    }


def make_eval_batches(
    corpus: TokenizedCorpus,
    config: PretrainingDataConfig,
    pad_id: int,
    num_examples: int,
    batch_size: int,
    mask_all: bool = True,
    special_ids: SpecialIds | Any | None = None,
) -> list[dict[str, torch.Tensor]]:
    """Fixed held-out batches: the same examples and masks on every call for the same inputs.

    With `mask_all` every chosen position is [MASK] (no 10% random, no 10% unchanged), so MLM
    accuracy measures prediction from context alone; on training-style masks the unchanged
    10% are copied from the input and inflate accuracy. Use a corpus held out from training.
    """
    if num_examples < 1 or batch_size < 1:
        raise ValueError(f"num_examples and batch_size must be at least 1, got {num_examples} and {batch_size}.")
    dataset = PretrainingDataset(
        corpus, dataclasses.replace(config, dynamic_masking=False), special_ids, mask_all=mask_all
    )
    count = min(num_examples, len(dataset))
    if count < num_examples:
        logger.warning("The evaluation corpus yields %d examples, fewer than the %d asked for.", count, num_examples)
    rng = np.random.default_rng([_EVAL_STREAM, config.seed, 0, 0])
    indices = np.sort(rng.choice(len(dataset), size=count, replace=False))
    return [
        collate_pretraining([dataset[int(i)] for i in indices[j : j + batch_size]], pad_id)
        for j in range(0, count, batch_size)
    ]
