"""How often a model's training text held each masked-word guess: the count table shipped beside the model
(`training_counts.json`, made by `albert.data.piece_counts` when the model is packaged). What a model can know is
what its data holds: a guess it saw 6,783 times beats a word it saw 12 times."""

from __future__ import annotations

import functools
import logging
from pathlib import Path

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
