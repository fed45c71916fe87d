"""How often each vocabulary piece occurs in a model's training text: what a masked-word guess can know.

A model trained on 300 novels has read "▁paris" a few hundred times and "▁france" fewer; when it fills
"The capital of France is [MASK]." with "true", the count table says why better than any probability can.
The table is made once, when a model is packaged (`scripts/count_training_pieces.py`), from the same
text files it was trained on, and shipped beside its weights as `training_counts.json`:

    {"corpus": ["gutenberg-train.txt.xz"], "tokens": 25123456, "counts": {"▁the": 1234567, ...}}

Counts are of pieces in one reading of the text (the tokenizer's own split, no special tokens), not of how many
times training visited them: a run of 60M tokens over a 25M-token corpus read each piece about 2.4 times as often.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from albert.data.corpus import read_documents

logger = logging.getLogger(__name__)

COUNTS_FILE = "training_counts.json"
_BATCH_LINES = 2000


@dataclass(frozen=True)
class PieceCounts:
    """Occurrences of each piece in a training text (pieces that never occur are left out)."""

    corpus: tuple[str, ...]
    tokens: int
    counts: dict[str, int]

    def count(self, piece: str) -> int:
        """How many times `piece` occurs in the training text (0 when it never does)."""
        return self.counts.get(piece, 0)

    def per_million(self, piece: str) -> float:
        """Occurrences of `piece` per million pieces of training text."""
        return 1e6 * self.count(piece) / self.tokens if self.tokens else 0.0


def _line_batches(paths: Sequence[str | os.PathLike]) -> Iterator[list[str]]:
    batch: list[str] = []
    for document in read_documents(paths):
        batch.extend(line for line in document if line.strip())
        if len(batch) >= _BATCH_LINES:
            yield batch
            batch = []
    if batch:
        yield batch


def count_pieces(tokenizer: Any, paths: Sequence[str | os.PathLike]) -> PieceCounts:
    """Counts every piece of `tokenizer`'s vocabulary over the text of `paths` (one reading, no special tokens)."""
    if not paths:
        raise ValueError("count_pieces needs at least one text file to count; none was given.")
    totals = np.zeros(len(tokenizer), dtype=np.int64)
    for lines in _line_batches(paths):
        encoded = tokenizer(lines, add_special_tokens=False, verbose=False)["input_ids"]
        flat = np.fromiter((i for ids in encoded for i in ids), dtype=np.int64)
        totals += np.bincount(flat, minlength=len(totals))[: len(totals)]
    pieces = tokenizer.convert_ids_to_tokens(list(range(len(totals))))
    counts = {piece: int(n) for piece, n in zip(pieces, totals, strict=True) if n}
    logger.info("counted %s pieces (%s distinct) in %s", f"{int(totals.sum()):,}", len(counts), len(paths))
    return PieceCounts(corpus=tuple(Path(p).name for p in paths), tokens=int(totals.sum()), counts=counts)


def save_piece_counts(counts: PieceCounts, directory: str | os.PathLike) -> Path:
    """Writes `training_counts.json` into a model folder (complete or not at all)."""
    path = Path(directory) / COUNTS_FILE
    payload = {"corpus": list(counts.corpus), "tokens": counts.tokens, "counts": counts.counts}
    temporary = path.with_suffix(".json.tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(payload, handle, ensure_ascii=False, separators=(",", ":"))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    return path


def load_piece_counts(directory: str | os.PathLike) -> PieceCounts | None:
    """The count table shipped beside a model, or None when it has none (or it cannot be read)."""
    path = Path(directory) / COUNTS_FILE
    if not path.is_file():
        return None
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
        counts = {str(k): int(v) for k, v in payload["counts"].items()}
        return PieceCounts(corpus=tuple(payload["corpus"]), tokens=int(payload["tokens"]), counts=counts)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        logger.warning("ignoring unreadable %s: %s", path, error)
        return None
