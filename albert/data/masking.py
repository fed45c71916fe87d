"""Masked-language-model masking as ALBERT pretrains.

ALBERT (Lan et al., ICLR 2020, section 4.1) masks n-grams: a span of n units with n <= 3 and
p(n) proportional to 1/n, until 15% of the tokens are chosen (at most `max_predictions`).
Each chosen token becomes [MASK] 80% of the time, a random token 10% and stays itself 10%
(BERT's recipe, decided per token as the reference script does). A "unit" is one token, or
one whole word with whole-word masking (a word starts at a SentencePiece piece beginning
with "▁", at punctuation or at a special piece, the reference's `_is_start_piece`; or, for a
corpus built from word-segmented text such as Chinese, where the segmentation says: Chinese
BERT-wwm's rule, all characters of a word masked together).

Two deliberate departures from the reference script, both fixing flaws:
- p(n) is 1/n as the paper says; the reference's default `favor_shorter_ngram` reverses it.
- A span never crosses [SEP] (or any position that may not be masked).
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from albert.core.config import IGNORE_INDEX
from albert.data.chinese import BOUNDARY_PIECE, is_character_vocabulary

_PUNCTUATION = frozenset(string.punctuation)


@dataclass(frozen=True)
class SpecialIds:
    """The token ids the data pipeline needs; from a tokenizer, or written by hand in tests."""

    pad_id: int
    unk_id: int
    cls_id: int
    sep_id: int
    mask_id: int
    vocab_size: int
    word_start: np.ndarray | None = field(default=None, compare=False, repr=False)
    """Boolean per vocabulary id: the piece starts a word. Needed only for whole-word masking."""
    boundary_id: int | None = None
    """A character vocabulary's lone "▁" (albert.data.chinese.BOUNDARY_PIECE): never masked. It only marks a
    sentence start or a space, so predicting it is trivial and would inflate MLM accuracy (it is 2.7%
    of the tokens of People's Daily). None for other vocabularies, whose "▁" the protocol masks."""

    @classmethod
    def from_tokenizer(cls, tokenizer: Any) -> SpecialIds:
        """Read the ids from a transformers tokenizer (ALBERT's: <pad> <unk> [CLS] [SEP] [MASK])."""
        ids = {name: getattr(tokenizer, f"{name}_token_id", None) for name in ("pad", "unk", "cls", "sep", "mask")}
        missing = [name for name, value in ids.items() if value is None]
        if missing:
            raise ValueError(
                f"The tokenizer has no {', '.join(missing)} token; pretraining needs "
                "<pad>, <unk>, [CLS], [SEP] and [MASK] (train one with albert.tokenizer)."
            )
        vocab_size = len(tokenizer)
        pieces = tokenizer.convert_ids_to_tokens(list(range(vocab_size)))
        specials = set(getattr(tokenizer, "all_special_tokens", []))
        word_start = np.array([is_word_start(piece, specials) for piece in pieces], dtype=bool)
        boundary_id = (
            pieces.index(BOUNDARY_PIECE) if is_character_vocabulary(pieces) and BOUNDARY_PIECE in pieces else None
        )
        return cls(
            **{f"{name}_id": int(value) for name, value in ids.items()},
            vocab_size=vocab_size,
            word_start=word_start,
            boundary_id=boundary_id,
        )

    @property
    def special(self) -> tuple[int, ...]:
        return (self.pad_id, self.unk_id, self.cls_id, self.sep_id, self.mask_id)

    @cached_property
    def never_masked(self) -> np.ndarray:
        """Boolean per id: <pad>, [CLS], [SEP], [MASK] (and `boundary_id`) are never chosen, even inside
        the text."""
        lookup = np.zeros(max(self.vocab_size, *self.special) + 1, dtype=bool)
        lookup[[self.pad_id, self.cls_id, self.sep_id, self.mask_id]] = True
        if self.boundary_id is not None:
            lookup[self.boundary_id] = True
        return lookup

    @cached_property
    def replacement_ids(self) -> np.ndarray:
        """Ids the 10% "random token" replacement draws from: every id but the special ones."""
        return np.setdiff1d(np.arange(self.vocab_size, dtype=np.int64), np.array(self.special, dtype=np.int64))


def is_word_start(piece: str | None, specials: set[str] | frozenset[str] = frozenset()) -> bool:
    """The reference's `_is_start_piece`: "▁" pieces, punctuation, special pieces start a word."""
    if not piece:
        return True
    return piece.startswith("▁") or piece in _PUNCTUATION or piece in specials or piece.startswith("<")


def ngram_probabilities(max_ngram: int) -> np.ndarray:
    """p(n) for n = 1..max_ngram, proportional to 1/n (ALBERT section 4.1)."""
    weights = 1.0 / np.arange(1, max_ngram + 1)
    return weights / weights.sum()


def _units(maskable: np.ndarray, word_start: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split the maskable positions into units (tokens, or whole words).

    Returns unit start positions, unit end positions (exclusive) and a run id per unit: units
    of one run are adjacent, so an n-gram may take consecutive units of one run only.
    """
    positions = np.flatnonzero(maskable)
    if positions.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    # A new run starts after any gap (a [CLS]/[SEP] or other unmaskable position).
    run_start = np.ones(positions.size, dtype=bool)
    run_start[1:] = positions[1:] != positions[:-1] + 1
    unit_start = np.ones(positions.size, dtype=bool) if word_start is None else run_start | word_start[positions]
    starts = np.flatnonzero(unit_start)
    ends = np.append(starts[1:], positions.size)
    run_ids = np.cumsum(run_start)[starts]
    return positions[starts], positions[ends - 1] + 1, run_ids


def choose_mask_spans(
    maskable: np.ndarray,
    rng: np.random.Generator,
    *,
    num_to_predict: int,
    max_ngram: int,
    word_start: np.ndarray | None = None,
) -> list[tuple[int, int]]:
    """Pick non-overlapping n-gram spans covering at most `num_to_predict` positions.

    `maskable` is a boolean per position; `word_start`, if given, a boolean per position saying
    the token there starts a word (whole-word masking: a unit is then a whole word).
    As the reference: visit the units in random order; at each draw n from p(n) ∝ 1/n
    (limited to the units left in the run); if the span would pass the cap, try shorter n;
    skip a span that overlaps one already chosen. Returns (start, end) pairs.
    """
    starts, ends, runs = _units(maskable, word_start)
    num_units = starts.size
    if num_units == 0 or num_to_predict <= 0:
        return []
    cumulative = np.cumsum(ngram_probabilities(max_ngram)).tolist()
    # Units left in the same run from each unit on (itself included): how long an n-gram may be.
    run_end = np.searchsorted(runs, runs, side="right")
    available = np.minimum(run_end - np.arange(num_units), max_ngram).tolist()
    order, uniforms = rng.permutation(num_units).tolist(), rng.random(num_units).tolist()
    starts, ends = starts.tolist(), ends.tolist()  # plain lists: this loop runs per example
    covered = bytearray(ends[-1])
    spans: list[tuple[int, int]] = []
    count = 0
    for unit, u in zip(order, uniforms, strict=True):
        if count >= num_to_predict:
            break
        n_max = available[unit]
        # Inverse-CDF sampling of p(n) truncated to n <= n_max (renormalised, as the reference).
        threshold, n = u * cumulative[n_max - 1], 1
        while n < n_max and cumulative[n - 1] <= threshold:
            n += 1
        start = starts[unit]
        while n > 0 and count + ends[unit + n - 1] - start > num_to_predict:
            n -= 1  # the reference's fallback: a shorter n-gram that still fits under the cap
        if n == 0:
            continue
        end = ends[unit + n - 1]
        if any(covered[start:end]):
            continue
        covered[start:end] = b"\x01" * (end - start)
        spans.append((start, end))
        count += end - start
    return spans


def mask_tokens(
    input_ids: np.ndarray,
    maskable: np.ndarray,
    rng: np.random.Generator,
    special: SpecialIds,
    *,
    masked_lm_prob: float,
    max_predictions: int,
    max_ngram: int,
    whole_word: bool = False,
    mask_all: bool = False,
    word_start: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Mask one sequence. Returns (masked input ids, labels with IGNORE_INDEX where not predicted).

    `maskable` marks the positions that may be chosen ([CLS]/[SEP]/<pad> must be False).
    `mask_all` replaces every chosen position by [MASK] (held-out evaluation: no position is
    left unchanged, so accuracy cannot be inflated by copying the input).
    `word_start`, with `whole_word`: a boolean per position (the token there starts a word, from a
    word-segmented corpus) used instead of the vocabulary's "▁" rule.
    """
    maskable = maskable & ~special.never_masked[input_ids]
    num_maskable = int(maskable.sum())
    num_to_predict = min(max_predictions, max(1, int(round(num_maskable * masked_lm_prob))))
    if not whole_word:
        word_start = None
    elif word_start is not None:
        if word_start.shape != input_ids.shape:
            raise ValueError(
                f"word_start has shape {word_start.shape}, the input ids {input_ids.shape}; give one flag per position."
            )
        word_start = word_start.astype(bool, copy=False)
    else:
        if special.word_start is None:
            raise ValueError(
                "Whole-word masking needs the tokenizer's word starts; build SpecialIds with "
                "SpecialIds.from_tokenizer(tokenizer)."
            )
        word_start = special.word_start[input_ids]
    spans = choose_mask_spans(maskable, rng, num_to_predict=num_to_predict, max_ngram=max_ngram, word_start=word_start)
    labels = np.full(input_ids.shape, IGNORE_INDEX, dtype=np.int64)
    masked = input_ids.astype(np.int64, copy=True)
    if not spans:
        return masked, labels
    positions = np.concatenate([np.arange(start, end) for start, end in spans])
    labels[positions] = input_ids[positions]
    if mask_all:
        masked[positions] = special.mask_id
        return masked, labels
    draw = rng.random(positions.size)
    masked[positions[draw < 0.8]] = special.mask_id
    randomised = positions[(draw >= 0.8) & (draw < 0.9)]
    pool = special.replacement_ids
    masked[randomised] = pool[rng.integers(pool.size, size=randomised.size)]
    return masked, labels  # draw >= 0.9: left unchanged, still predicted
