"""Writes a model folder's `training_counts.json`: how often each piece occurs in the text it was trained on.

    python -m scripts.count_training_pieces assets/models/albert-lab-none-s1 \
        --corpus ../shared/corpus/gutenberg-train.txt.xz

Run it for every model `scripts/package_model.py` ships (the table is part of the model folder).
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from albert.data.piece_counts import PieceCounts, count_pieces, save_piece_counts
from albert.data.tokenizer import load_tokenizer

logger = logging.getLogger(__name__)


def write_counts(model_dirs: list[Path], corpus: list[str]) -> None:
    """Counts once per distinct tokenizer and writes the table into every folder in `model_dirs`."""
    made: dict[bytes, PieceCounts] = {}
    for directory in model_dirs:
        vocabulary = directory / "spiece.model"  # folders with the same SentencePiece model share one count
        key = vocabulary.read_bytes() if vocabulary.is_file() else str(directory).encode()
        if key not in made:
            made[key] = count_pieces(load_tokenizer(directory), corpus)
        path = save_piece_counts(made[key], directory)
        logger.info("wrote %s", path)


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dirs", type=Path, nargs="+", help="model folders sharing one training text")
    parser.add_argument("--corpus", nargs="+", required=True, help="the text files the models were trained on")
    args = parser.parse_args()
    write_counts(args.model_dirs, args.corpus)


if __name__ == "__main__":
    main()
