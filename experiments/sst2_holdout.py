"""A validation split carved out of SST-2's training file, for choosing settings without the dev set.

    python -m experiments.sst2_holdout --source ../shared/glue/SST-2/train.tsv --output-dir runs/sst2-holdout
    python -m scripts.finetune_sentiment --glue-dir runs/sst2-holdout ...   # its dev.tsv is the held-out split

GLUE's SST-2 `train.tsv` holds every phrase of the parse trees of about 8,500 sentences, so a
random slice of its rows is no validation set: nearly every held-out phrase has its parent
sentence, or its own sub-phrases, left in training. This split holds out whole sentences, as
the dev set does: it draws long phrases at random, takes the longest phrase that contains each
(its sentence), and removes from training every phrase that is a word-level part of a held-out
sentence. The held-out file is written as `dev.tsv` beside the remaining `train.tsv`, so any
tool that reads a GLUE folder can use it.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from pathlib import Path

from albert.cli import run_command
from albert.data.tasks import DataError, read_records
from albert.io import atomic_write_text

logger = logging.getLogger("experiments.sst2_holdout")


@dataclass
class HoldoutConfig:
    """Split SST-2's training phrases into training phrases and held-out whole sentences."""

    source: str = "../shared/glue/SST-2/train.tsv"
    """GLUE SST-2 train.tsv (columns sentence, label)."""
    output_dir: str = "runs/sst2-holdout"
    """Gets train.tsv (what is left) and dev.tsv (the held-out sentences)."""
    sentences: int = 872
    """Sentences to hold out (872: the size of the GLUE dev set)."""
    min_words: int = 8
    """Only phrases of at least this many words are drawn (sentence fragments are short)."""
    seed: int = 0
    """Seed of the draw."""

    def __post_init__(self) -> None:
        if self.sentences < 1 or self.min_words < 1:
            raise ValueError("--sentences and --min-words must be at least 1.")


@dataclass
class HoldoutSplit:
    """The two halves, as (text, label) rows in the source's order."""

    train: list[tuple[str, str]]
    heldout: list[tuple[str, str]]


def _spans(words: list[str]) -> set[str]:
    """Every contiguous run of words, joined by single spaces."""
    return {" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, len(words) + 1)}


def split_sentences(rows: list[tuple[str, str]], sentences: int, min_words: int = 8, seed: int = 0) -> HoldoutSplit:
    """Hold out whole sentences (the longest phrase containing a drawn phrase) and all their parts."""
    texts = {" ".join(text.split()): label for text, label in rows}  # distinct, whitespace-normalised
    long_first = sorted((t for t in texts if len(t.split()) >= min_words), key=lambda t: -len(t.split()))
    padded = [(f" {t} ", t) for t in long_first]
    draws = list(long_first)
    random.Random(seed).shuffle(draws)

    heldout: list[str] = []
    removed: set[str] = set()
    for drawn in draws:
        if len(heldout) == sentences:
            break
        if drawn in removed:
            continue
        needle = f" {drawn} "
        sentence = next(t for p, t in padded if needle in p)  # the longest phrase containing it (maybe itself)
        if sentence in removed:
            continue
        heldout.append(sentence)
        removed |= _spans(sentence.split())
    if len(heldout) < sentences:
        raise DataError(
            f"only {len(heldout)} sentences of at least {min_words} words could be held out "
            f"(asked for {sentences}); lower --sentences or --min-words."
        )
    held = set(heldout)
    train = [(t, label) for t, label in texts.items() if t not in removed]
    return HoldoutSplit(train=train, heldout=[(t, texts[t]) for t in texts if t in held])


def _tsv(rows: list[tuple[str, str]]) -> str:
    return "sentence\tlabel\n" + "".join(f"{text}\t{label}\n" for text, label in rows)


def write_split(settings: HoldoutConfig) -> HoldoutSplit:
    """Read the source, split it and write `train.tsv` and `dev.tsv` (atomically) to the output folder."""
    records = read_records(settings.source, task="classification")
    split = split_sentences([(r.text, r.label) for r in records], settings.sentences, settings.min_words, settings.seed)
    out = Path(settings.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "train.tsv", _tsv(split.train))
    atomic_write_text(out / "dev.tsv", _tsv(split.heldout))
    distinct = len({" ".join(r.text.split()) for r in records})  # as split_sentences counts them
    logger.info(
        "%s: %d distinct phrases → %d training phrases, %d held-out sentences (%d phrases removed)",
        settings.source,
        distinct,
        len(split.train),
        len(split.heldout),
        distinct - len(split.train) - len(split.heldout),
    )
    return split


def main(argv: list[str] | None = None) -> None:
    run_command("experiments.sst2_holdout", HoldoutConfig, write_split, (DataError, OSError), argv, description=__doc__)


if __name__ == "__main__":
    main()
