"""Where a model's training text held each word: a few short contexts per vocabulary piece, sampled once.

exBERT answers "why did it guess that?" by searching the training corpus for the token. A shipped model here cannot
carry its corpus (110 MB of books), so the search is done once, when the model is packaged
(`scripts/index_training_contexts.py`), into `training_contexts.json.gz` (gzip-compressed JSON) beside
`training_counts.json`:

    {"corpus": ["gutenberg-train.txt.xz"], "per_piece": 3, "window": 40, "seed": 0,
     "occurrences": 3958104, "contexts": {"▁paris": [["…went up to ", "Paris", " in the spring…"], ...], ...}}

How it is built and sampled:
- One reading of the training text, tokenized by the model's own tokenizer (the same split `training_counts.json`
  counts). An occurrence is indexed when its piece is a whole word: a word-start piece (`▁paris`) whose next piece
  starts another word (or is punctuation, or ends the line), or a Han character (every Han character is its own
  piece in the Chinese vocabulary). Pieces inside words (`ed`, `s`) and punctuation get no contexts.
- Every indexed occurrence draws a uniform random key (numpy, fixed `seed`); each piece keeps the `per_piece`
  occurrences with the smallest keys: a uniform sample without replacement of all its occurrences in the text,
  reproducible from the same corpus, tokenizer and seed.
- A context is the paragraph's text around the occurrence, as printed (case and accents kept): up to `window`
  characters each side (half as many around a Han character), cut at a space, "…" where the paragraph goes on.
  When the JSON would pass `max_bytes`, the window shrinks until it fits (the size of every shipped index is
  bounded: 2 MB of JSON by default, about 0.75 MB once compressed).
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from albert.data.corpus import read_documents

logger = logging.getLogger(__name__)

CONTEXTS_FILE = "training_contexts.json.gz"
MAX_BYTES = 2_000_000
"""The bound on one model's index (its JSON, before compression: what a reader holds in memory)."""
_BATCH_LINES = 2000
_ELLIPSIS = "…"

Context = tuple[str, str, str]
"""(text before, the word as printed, text after)."""


@dataclass(frozen=True)
class PieceContexts:
    """A few contexts of each whole-word piece in a training text (pieces never seen as whole words are left out)."""

    corpus: tuple[str, ...]
    per_piece: int
    window: int
    seed: int
    occurrences: int
    """How many whole-word occurrences the sample was drawn from."""
    contexts: dict[str, list[Context]]

    def of(self, piece: str, limit: int = 3) -> list[Context]:
        """Up to `limit` contexts of `piece` ([] when the text never held it as a whole word)."""
        return list(self.contexts.get(piece, []))[:limit]


def _is_han(char: str) -> bool:
    return "CJK UNIFIED IDEOGRAPH" in unicodedata.name(char, "")


def _piece_kinds(tokenizer: Any) -> tuple[np.ndarray, np.ndarray]:
    """(indexed, starts_word) per vocabulary id: which pieces get contexts, and which begin a new word."""
    pieces = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
    special = set(getattr(tokenizer, "all_special_tokens", []))
    indexed = np.zeros(len(pieces), dtype=bool)
    starts_word = np.zeros(len(pieces), dtype=bool)
    for i, piece in enumerate(pieces):
        if piece in special:
            starts_word[i] = True
            continue
        body = piece.lstrip("▁")
        han = len(body) == 1 and _is_han(body)
        word_start = piece.startswith("▁") or han or not any(c.isalnum() for c in body)
        starts_word[i] = word_start
        indexed[i] = bool(body) and (han or (piece.startswith("▁") and any(c.isalpha() for c in body)))
    return indexed, starts_word


def _lines(paths: Sequence[str | os.PathLike]) -> Iterator[list[str]]:
    batch: list[str] = []
    for document in read_documents(paths):
        batch.extend(line for line in document if line.strip())
        if len(batch) >= _BATCH_LINES:
            yield batch
            batch = []
    if batch:
        yield batch


def _cut(line: str, start: int, end: int, window: int) -> Context:
    """The occurrence line[start:end] with up to `window` characters each side, cut at a space when there is one."""
    if _is_han(line[start]):
        window = max(4, window // 2)
    left_from, right_to = max(0, start - window), min(len(line), end + window)
    left, right = line[left_from:start], line[end:right_to]
    if left_from > 0:
        space = left.find(" ")
        left = _ELLIPSIS + (left[space + 1 :] if 0 <= space < len(left) - 1 else left)
    if right_to < len(line):
        space = right.rfind(" ")
        right = (right[:space] if space > 0 else right) + _ELLIPSIS
    return left, line[start:end], right


def _smallest_per_piece(pieces: np.ndarray, keys: np.ndarray, k: int) -> np.ndarray:
    """Indices of the `k` smallest keys of every piece."""
    order = np.lexsort((keys, pieces))
    sorted_pieces = pieces[order]
    first = np.r_[True, sorted_pieces[1:] != sorted_pieces[:-1]]
    group_start = np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))
    return order[np.arange(len(order)) - group_start < k]


def build_piece_contexts(
    tokenizer: Any,
    paths: Sequence[str | os.PathLike],
    per_piece: int = 3,
    window: int = 40,
    seed: int = 0,
) -> PieceContexts:
    """Samples `per_piece` contexts of every whole-word piece of `tokenizer` over the text of `paths` (see the
    module's docstring for the rule)."""
    if not paths:
        raise ValueError("build_piece_contexts needs at least one text file to read; none was given.")
    if per_piece < 1 or window < 1:
        raise ValueError(f"per_piece and window must be at least 1 (got {per_piece} and {window}).")
    indexed, starts_word = _piece_kinds(tokenizer)
    rng = np.random.default_rng(seed)
    kept_pieces = np.zeros(0, dtype=np.int64)
    kept_keys = np.zeros(0, dtype=np.float64)
    kept_contexts: list[Context] = []
    occurrences = 0
    for lines in _lines(paths):
        encoded = tokenizer(lines, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
        rows = encoded["input_ids"]
        lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
        ids = np.fromiter((i for r in rows for i in r), dtype=np.int64, count=int(lengths.sum()))
        spans = np.array([s for r in encoded["offset_mapping"] for s in r], dtype=np.int64).reshape(-1, 2)
        line_of = np.repeat(np.arange(len(rows)), lengths)
        ends = np.cumsum(lengths) - 1  # each line's last token
        following = np.ones(len(ids), dtype=bool)
        following[:-1] = starts_word[ids[1:]]
        following[ends] = True
        chosen = np.flatnonzero(indexed[ids] & following & (spans[:, 1] > spans[:, 0]))
        occurrences += len(chosen)
        keys = rng.random(len(chosen))
        best = chosen[_smallest_per_piece(ids[chosen], keys, per_piece)]
        best_keys = keys[np.searchsorted(chosen, best)]
        contexts = [_cut(lines[line_of[j]], int(spans[j, 0]), int(spans[j, 1]), 2 * window) for j in best]
        all_pieces = np.concatenate([kept_pieces, ids[best]])
        all_keys = np.concatenate([kept_keys, best_keys])
        keep = _smallest_per_piece(all_pieces, all_keys, per_piece)
        pool = kept_contexts + contexts
        kept_pieces, kept_keys, kept_contexts = all_pieces[keep], all_keys[keep], [pool[i] for i in keep]
    names = tokenizer.convert_ids_to_tokens(kept_pieces.tolist())
    found: dict[str, list[tuple[float, Context]]] = {}
    for name, key, context in zip(names, kept_keys.tolist(), kept_contexts, strict=True):
        found.setdefault(name, []).append((key, context))
    table = {name: [c for _, c in sorted(items)] for name, items in found.items()}
    logger.info("sampled contexts of %s pieces from %s whole-word occurrences", len(table), f"{occurrences:,}")
    raw = PieceContexts(tuple(Path(p).name for p in paths), per_piece, 2 * window, seed, occurrences, table)
    return narrowed(raw, window)


def narrowed(contexts: PieceContexts, window: int) -> PieceContexts:
    """`contexts` with every context cut to `window` characters each side (it never widens one)."""
    window = min(window, contexts.window)

    def cut(context: Context) -> Context:
        left, word, right = (s.strip(_ELLIPSIS) for s in context)
        line = left + word + right
        start = len(left)
        cut_left, text, cut_right = _cut(line, start, start + len(word), window)
        return (
            (_ELLIPSIS if context[0].startswith(_ELLIPSIS) and not cut_left.startswith(_ELLIPSIS) else "") + cut_left,
            text,
            cut_right + (_ELLIPSIS if context[2].endswith(_ELLIPSIS) and not cut_right.endswith(_ELLIPSIS) else ""),
        )

    table = {piece: [cut(c) for c in items] for piece, items in contexts.contexts.items()}
    return PieceContexts(contexts.corpus, contexts.per_piece, window, contexts.seed, contexts.occurrences, table)


def _payload(contexts: PieceContexts) -> bytes:
    data = {
        "corpus": list(contexts.corpus),
        "per_piece": contexts.per_piece,
        "window": contexts.window,
        "seed": contexts.seed,
        "occurrences": contexts.occurrences,
        "contexts": {piece: [list(c) for c in items] for piece, items in contexts.contexts.items()},
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def save_piece_contexts(
    contexts: PieceContexts, directory: str | os.PathLike, max_bytes: int = MAX_BYTES
) -> tuple[Path, PieceContexts]:
    """Writes `training_contexts.json.gz` into a model folder (complete or not at all), narrowing the window until
    its JSON fits in `max_bytes`; returns the path and the contexts as written. The gzip stream carries no time
    stamp, so the same contexts always give the same bytes."""
    payload = _payload(contexts)
    while len(payload) > max_bytes:
        if contexts.window <= 8:
            raise ValueError(f"the contexts do not fit in {max_bytes:,} bytes even 8 characters wide")
        contexts = narrowed(contexts, contexts.window - 4)
        payload = _payload(contexts)
    path = Path(directory) / CONTEXTS_FILE
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "wb") as handle:
        handle.write(gzip.compress(payload, compresslevel=9, mtime=0))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    logger.info("wrote %s (%s bytes, window %s)", path, f"{len(payload):,}", contexts.window)
    return path, contexts


def load_piece_contexts(directory: str | os.PathLike) -> PieceContexts | None:
    """The context index shipped beside a model, or None when it has none (or it cannot be read)."""
    path = Path(directory) / CONTEXTS_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))
        table = {
            str(piece): [(str(a), str(b), str(c)) for a, b, c in items] for piece, items in data["contexts"].items()
        }
        return PieceContexts(
            corpus=tuple(str(c) for c in data["corpus"]),
            per_piece=int(data["per_piece"]),
            window=int(data["window"]),
            seed=int(data["seed"]),
            occurrences=int(data["occurrences"]),
            contexts=table,
        )
    except (OSError, EOFError, ValueError, KeyError, TypeError, AttributeError) as error:
        logger.warning("ignoring unreadable %s: %s", path, error)
        return None
