"""Build the token-tagging tasks of the fine-tuning practices protocol (docs/protocols/finetuning-practices.md).

    python -m scripts.build_tagging_data --corpus ../shared/corpus --out runs/tagging

English truecasing from the Gutenberg books (train from gutenberg-train, dev from gutenberg-valid: other books),
Chinese word segmentation from People's Daily (train from the train articles, dev from the held-out ones). Writes
`casing-{train,dev}.conll`, `cws-{train,dev}.conll` and `baselines.json` (majority tag and a simple rule).
"""

from __future__ import annotations

import argparse
import json
import logging
import lzma
import random
from collections.abc import Iterator
from pathlib import Path

from albert.data.tagging import (
    casing_tags,
    chinese_sentences,
    english_sentences,
    majority_and_rule,
    sample,
    write_conll,
)

logger = logging.getLogger("scripts.build_tagging_data")


def paragraphs(path: Path, keep: float = 1.0, seed: int = 0) -> Iterator[str]:
    """Non-empty lines (paragraphs) of an .xz text file, each kept with probability `keep` (seeded)."""
    rng = random.Random(seed)
    with lzma.open(path, "rt", encoding="utf-8") as stream:
        for line in stream:
            line = line.strip()
            if line and (keep >= 1 or rng.random() < keep):
                yield line


def casing_rule(position: int, token: str) -> str:
    """Capital at the sentence start and for the word I, else lower case."""
    bare = token.strip("\"'“‘(")
    return "C" if position == 0 or bare in ("I", "i") or bare.startswith(("I'", "i'")) else "L"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=Path("../shared/corpus"))
    parser.add_argument("--out", type=Path, default=Path("runs/tagging"))
    parser.add_argument("--casing-train", type=int, default=5120)
    parser.add_argument("--cws-train", type=int, default=3200)
    parser.add_argument("--dev", type=int, default=1000)
    parser.add_argument("--english-keep", type=float, default=0.02, help="fraction of training paragraphs read")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    corpus, out, seed = args.corpus, args.out, args.seed
    baselines = {}
    english = {
        "train": sample(
            map(casing_tags, english_sentences(paragraphs(corpus / "gutenberg-train.txt.xz", args.english_keep, seed))),
            args.casing_train,
            seed,
        ),
        "dev": sample(
            map(casing_tags, english_sentences(paragraphs(corpus / "gutenberg-valid.txt.xz"))), args.dev, seed
        ),
    }
    chinese = {
        split: sample(
            chinese_sentences(paragraphs(corpus / "zh" / f"peoples-daily-199801-{name}.words.txt.xz")), n, seed
        )
        for split, name, n in (("train", "train", args.cws_train), ("dev", "valid", args.dev))
    }
    for task, data, rule in (
        ("casing", english, casing_rule),
        ("cws", chinese, lambda position, token: "B" if position == 0 else "I"),
    ):
        for split, sentences in data.items():
            count = write_conll(out / f"{task}-{split}.conll", sentences)
            logger.info("%s %s: %d sentences", task, split, count)
        baselines[task] = majority_and_rule(data["dev"], rule)
    (out / "baselines.json").write_text(json.dumps(baselines, indent=2) + "\n")
    print(json.dumps(baselines, indent=2))


if __name__ == "__main__":
    main()
