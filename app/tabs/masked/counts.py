"""How often a model's training text held each masked-word guess: the count table shipped beside the model
(`training_counts.json`, made by `albert.data.piece_counts` when the model is packaged). What a model can know is
what its data holds: a guess it saw 6,783 times beats a word it saw 12 times.

Beside the guesses, the word the student expected: its count, and a few contexts where the training text held it
and the top guess (`training_contexts.json.gz`, sampled when the model is packaged: `albert.data.piece_contexts`)."""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from albert.data.piece_contexts import CONTEXTS_FILE, Context, PieceContexts, load_piece_contexts
from albert.data.piece_counts import COUNTS_FILE, PieceCounts, load_piece_counts
from app.inference import FillMaskResult
from app.models import LoadedModel

logger = logging.getLogger(__name__)
COUNTED_KINDS = frozenset({"shipped", "local"})
"""Models whose folder may hold a count table; a hub model's never does (its training text is not ours)."""


@functools.lru_cache(maxsize=8)
def _cached(path: str, stamp: float) -> PieceCounts | None:
    """The table at `path` (as of modification time `stamp`: a replaced file is read again)."""
    return load_piece_counts(Path(path).parent)


def training_counts(lm: LoadedModel) -> PieceCounts | None:
    """The count table shipped beside `lm`, None for a hub model or a folder without one."""
    if lm.kind not in COUNTED_KINDS:
        return None
    path = Path(lm.directory) / COUNTS_FILE
    try:
        stamp = path.stat().st_mtime
    except OSError:
        return None
    return _cached(str(path), stamp)


def guess_counts(result: FillMaskResult, counts: PieceCounts | None) -> list[list[int | None]]:
    """Per [MASK], each guess's count in the training text (None for every guess when there is no table)."""
    return [
        [counts.count(piece) if counts is not None else None for piece in prediction.pieces]
        for prediction in result.predictions
    ]


def with_counts(raw: dict, counts: list[list[int | None]]) -> dict:
    """The JSON result with `training_count` on every guess (null when the model has no count table)."""
    for mask, numbers in zip(raw.get("masks", []), counts, strict=False):
        for guess, number in zip(mask.get("top", []), numbers, strict=False):
            guess["training_count"] = number
    return raw


@functools.lru_cache(maxsize=4)
def _cached_contexts(path: str, stamp: float) -> PieceContexts | None:
    """The index at `path` (as of modification time `stamp`)."""
    return load_piece_contexts(Path(path).parent)


def training_contexts(lm: LoadedModel) -> PieceContexts | None:
    """The context index shipped beside `lm` (`training_contexts.json.gz`), None for a hub model or a folder without."""
    if lm.kind not in COUNTED_KINDS:
        return None
    path = Path(lm.directory) / CONTEXTS_FILE
    try:
        stamp = path.stat().st_mtime
    except OSError:
        return None
    return _cached_contexts(str(path), stamp)


@dataclass(frozen=True)
class WordInTraining:
    """One word as the training text held it: its pieces, the count of its piece, a few contexts."""

    word: str
    pieces: tuple[str, ...]
    """The tokenizer's pieces for the word (a lone word-start mark '▁' left out)."""
    count: int | None
    """Occurrences of its piece in the training text (None: no count table, or more than one piece)."""
    contexts: tuple[Context, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "word": self.word,
            "pieces": list(self.pieces),
            "training_count": self.count,
            "contexts": [{"before": a, "word": b, "after": c} for a, b, c in self.contexts],
        }


MAX_CONTEXTS = 3
"""Contexts shown per word."""
MAX_EXPECTED_CHARS = 40
"""The longest "expected word" read (a word, not a text)."""


def word_in_training(
    word: str, pieces: list[str], counts: PieceCounts | None, contexts: PieceContexts | None
) -> WordInTraining:
    """`word` (spelled by the tokenizer as `pieces`) as the training text held it."""
    pieces = [p for p in pieces if p != "▁"]
    single = pieces[0] if len(pieces) == 1 else None
    count = counts.count(single) if counts is not None and single is not None else None
    found = tuple(contexts.of(single, MAX_CONTEXTS)) if contexts is not None and single is not None else ()
    return WordInTraining(word, tuple(pieces), count, found)


@dataclass(frozen=True)
class Expected:
    """The word the student expected at one [MASK], beside the model's top guess there."""

    mask: int
    """Which [MASK] (0: the first)."""
    expected: WordInTraining
    top_guess: WordInTraining

    def as_dict(self) -> dict[str, Any]:
        return {"mask": self.mask, "expected": self.expected.as_dict(), "top_guess": self.top_guess.as_dict()}


def expected_word(
    tokenizer: Any,
    result: FillMaskResult,
    word: str,
    mask: int,
    counts: PieceCounts | None,
    contexts: PieceContexts | None,
) -> Expected | None:
    """The expected `word` at the `mask`-th [MASK] and the top guess there (None when there is no such [MASK])."""
    if not 0 <= mask < len(result.predictions) or not result.predictions[mask].pieces:
        return None
    prediction = result.predictions[mask]
    guess = word_in_training(prediction.candidates[0][0], prediction.pieces[:1], counts, contexts)
    return Expected(mask, word_in_training(word, tokenizer.tokenize(word), counts, contexts), guess)
