"""The sceptic's reference for the fresh-model recipe (docs/protocols/pretraining-recipe.md, amendment 13): what the
text's local statistics alone score on an arm's held-out blanks, learnt from exactly the tokens its run was shown.

A count model reads the training examples of the run's first `--steps` steps (the same stream, seed and masking
options, unmasked again) and predicts each held-out blank from its nearest visible left and right pieces (up to
`MAX_DISTANCE` away, with their distances): the most frequent centre after that left *and* right context, else after
the left alone, else after the right alone, else the most frequent piece. Scored on the arm's blanks with a 95%
Wilson interval.

    python -m experiments.context_counts runs/recipe/A0-default --steps 500
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from albert.core.config import IGNORE_INDEX
from albert.training.order_scoring import Proportion

logger = logging.getLogger("experiments.context_counts")
MAX_DISTANCE = 3
"""How far a blank looks for a visible neighbour: the held-out blanks are spans of up to three pieces."""


@dataclass
class ContextCounts:
    """The most frequent centre piece for each context seen in training, as sorted keys and their answers."""

    both: tuple[np.ndarray, np.ndarray]
    left: tuple[np.ndarray, np.ndarray]
    right: tuple[np.ndarray, np.ndarray]
    frequent: int
    vocab_size: int


def _most_frequent_centre(keys: np.ndarray, centres: np.ndarray, vocab_size: int) -> tuple[np.ndarray, np.ndarray]:
    pairs, counts = np.unique(keys * vocab_size + centres, return_counts=True)
    key, centre = pairs // vocab_size, pairs % vocab_size
    order = np.lexsort((-counts, key))  # by key, the most counted centre first
    key, centre = key[order], centre[order]
    first = np.ones(len(key), dtype=bool)
    first[1:] = key[1:] != key[:-1]
    return key[first], centre[first]


def _neighbour_key(pieces: np.ndarray, distance: np.ndarray) -> np.ndarray:
    return pieces.astype(np.int64) * (MAX_DISTANCE + 1) + distance


def _pair_key(left: np.ndarray | int, right: np.ndarray | int, vocab_size: int) -> np.ndarray | int:
    """One key for a context of a left and a right neighbour (each a `_neighbour_key`)."""
    return left * vocab_size * (MAX_DISTANCE + 1) + right


def learn(
    examples: Sequence[np.ndarray], vocab_size: int, pad_id: int, taught: Sequence[np.ndarray] | None = None
) -> ContextCounts:
    """Counts of every (left piece, distance, right piece, distance) → centre in the unmasked training examples;
    with `taught` (one boolean array per example), only the centres it marks count: the positions whose piece the
    MLM loss asked for."""
    both, left, right = [], [], []
    centres_all = []
    for index, tokens in enumerate(examples):
        kept = tokens != pad_id
        counted = np.ones(int(kept.sum()), dtype=bool) if taught is None else np.asarray(taught[index], bool)[kept]
        tokens = tokens[kept]
        centres_all.append(tokens[counted])
        n = len(tokens)
        for d_left in range(1, MAX_DISTANCE + 1):
            lk = _neighbour_key(tokens[: n - d_left], np.full(n - d_left, d_left))
            on = counted[d_left:]
            left.append((lk[on], tokens[d_left:][on]))
            for d_right in range(1, MAX_DISTANCE + 1):
                m = n - d_left - d_right
                if m <= 0:
                    continue
                rk = _neighbour_key(tokens[d_left + d_right :], np.full(m, d_right))
                on = counted[d_left : d_left + m]
                both.append((_pair_key(lk[:m], rk, vocab_size)[on], tokens[d_left : d_left + m][on]))
        for d_right in range(1, MAX_DISTANCE + 1):
            on = counted[: n - d_right]
            right.append(
                (_neighbour_key(tokens[d_right:], np.full(n - d_right, d_right))[on], tokens[: n - d_right][on])
            )

    def table(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
        return _most_frequent_centre(
            np.concatenate([k for k, _ in parts]), np.concatenate([c for _, c in parts]).astype(np.int64), vocab_size
        )

    frequent = int(np.bincount(np.concatenate(centres_all), minlength=vocab_size).argmax())
    return ContextCounts(table(both), table(left), table(right), frequent, vocab_size)


def _look_up(table: tuple[np.ndarray, np.ndarray], key: int) -> int | None:
    keys, centres = table
    at = int(np.searchsorted(keys, key))
    return int(centres[at]) if at < len(keys) and keys[at] == key else None


def predict(counts: ContextCounts, input_ids: np.ndarray, position: int, hidden: set[int]) -> int:
    """The count model's guess for the blank at `position` of one example, whose pieces in `hidden` are not seen."""

    def nearest(step: int) -> int | None:
        for distance in range(1, MAX_DISTANCE + 1):
            at = position + step * distance
            if not 0 <= at < len(input_ids):
                return None
            if int(input_ids[at]) not in hidden:
                return int(_neighbour_key(np.asarray(input_ids[at]), np.asarray(distance)))
        return None

    left, right = nearest(-1), nearest(+1)
    if left is not None and right is not None:
        guess = _look_up(counts.both, _pair_key(left, right, counts.vocab_size))
        if guess is not None:
            return guess
    for side, key in ((counts.left, left), (counts.right, right)):
        if key is not None and (guess := _look_up(side, key)) is not None:
            return guess
    return counts.frequent


def training_examples(summary: dict, steps: int) -> tuple[list[np.ndarray], list[np.ndarray], int, int]:
    """The run's first `steps` batches, unmasked again (exactly the tokens its training showed), and which positions
    of each the MLM loss asked for."""
    from albert.commands.pretrain import PretrainConfig
    from albert.data.corpus import TokenizedCorpus
    from albert.data.pretraining_examples import PretrainingDataset
    from albert.data.tokenizer import load_tokenizer
    from albert.training.batch_stream import BatchStream
    from albert.training.distributed import Distributed

    config = summary["config"]
    cfg = PretrainConfig(corpus=tuple(config["corpus"]), output_dir="runs/recipe-scoring", data=config["data"])
    tokenizer = load_tokenizer(config["tokenizer"])
    corpus = TokenizedCorpus.build(list(cfg.corpus), tokenizer, Path(config["cache_dir"]) / "train")
    stream = BatchStream(
        PretrainingDataset(corpus, cfg.data, tokenizer),
        config["batch_size"],
        Distributed(0, 1, 0, torch.device("cpu")),
        config["seed"],
        tokenizer.pad_token_id,
    )
    examples, taught = [], []
    for _ in range(steps):
        batch = stream.next()
        labels = batch["mlm_labels"]
        unmasked = torch.where(labels != IGNORE_INDEX, labels, batch["input_ids"])
        examples.extend(unmasked.numpy())
        taught.extend((labels != IGNORE_INDEX).numpy())
    stream.close()
    return examples, taught, len(tokenizer), tokenizer.pad_token_id


def score(directory: Path, steps: int, taught_only: bool = False) -> tuple[Proportion, Proportion]:
    """The count model's and the most-frequent piece's score on the run's held-out blanks; `taught_only`: counts of
    the blanks the training loss asked for alone (the supervision the model got), else of every position."""
    from albert.data.tokenizer import load_tokenizer
    from experiments.pretraining_recipe import held_out_blanks

    summary = json.loads((directory / "summary.json").read_text())
    examples, taught, vocab_size, pad_id = training_examples(summary, steps)
    logger.info(
        "%s training examples, %s pieces, %s of them blanks the loss asked for",
        f"{len(examples):,}",
        f"{sum(len(e) for e in examples):,}",
        f"{sum(int(t.sum()) for t in taught):,}",
    )
    counts = learn(examples, vocab_size, pad_id, taught if taught_only else None)
    tokenizer = load_tokenizer(summary["config"]["tokenizer"])
    hidden = {tokenizer.mask_token_id, pad_id}
    batches, _, _ = held_out_blanks(summary)
    right = frequent = total = 0
    for batch in batches:
        for ids, labels in zip(batch["input_ids"].numpy(), batch["mlm_labels"].numpy(), strict=True):
            for position in np.flatnonzero(labels != IGNORE_INDEX):
                right += predict(counts, ids, int(position), hidden) == labels[position]
                frequent += counts.frequent == labels[position]
                total += 1
    return Proportion(int(right), total), Proportion(int(frequent), total)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="A recipe arm's folder (its summary.json names the data and blanks).")
    parser.add_argument("--steps", type=int, default=500, help="Training batches the counts read (default 500).")
    parser.add_argument(
        "--taught-only", action="store_true", help="Count only the centres the training loss asked for (its blanks)."
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    counts, frequent = score(args.run, args.steps, args.taught_only)
    for name, p in (("context counts", counts), ("most frequent piece", frequent)):
        low, high = p.interval()
        logger.info(
            "%s: %.2f%% [%.2f%%, %.2f%%] of %s blanks", name, 100 * p.rate, 100 * low, 100 * high, f"{p.total:,}"
        )


if __name__ == "__main__":
    main()
