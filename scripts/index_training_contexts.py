"""Writes a model folder's `training_contexts.json.gz`: a few short contexts of each word in the text it was trained on
(how it is built and sampled: `albert.data.piece_contexts`). Run at packaging time, beside
`scripts/count_training_pieces.py`, with the same corpus files that model's `training_counts.json` names:

    python -m scripts.index_training_contexts assets/models/albert-lab-base assets/models/albert-lab-e128-continued \
        assets/models/albert-lab-e128-gpu assets/models/albert-lab-none-s1 \
        --corpus ../shared/corpus/gutenberg-train.txt.xz
    python -m scripts.index_training_contexts assets/models/albert-lab-zh \
        --corpus ../shared/corpus/zh/peoples-daily-199801-train.txt.xz

Folders with the same SentencePiece model are indexed once and get the same file.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from albert.data.piece_contexts import MAX_BYTES, PieceContexts, build_piece_contexts, save_piece_contexts
from albert.data.tokenizer import load_tokenizer

logger = logging.getLogger(__name__)


def write_contexts(
    model_dirs: list[Path],
    corpus: list[str],
    per_piece: int = 3,
    window: int = 40,
    seed: int = 0,
    max_bytes: int = MAX_BYTES,
) -> dict[Path, PieceContexts]:
    """Indexes once per distinct tokenizer and writes the file into every folder in `model_dirs`."""
    made: dict[bytes, PieceContexts] = {}
    written: dict[Path, PieceContexts] = {}
    for directory in model_dirs:
        vocabulary = directory / "spiece.model"
        key = vocabulary.read_bytes() if vocabulary.is_file() else str(directory).encode()
        if key not in made:
            made[key] = build_piece_contexts(load_tokenizer(directory), corpus, per_piece, window, seed)
        path, made[key] = save_piece_contexts(made[key], directory, max_bytes)
        written[path] = made[key]
    return written


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dirs", type=Path, nargs="+", help="model folders sharing one training text")
    parser.add_argument("--corpus", nargs="+", required=True, help="the text files the models were trained on")
    parser.add_argument("--per-piece", type=int, default=3, help="contexts kept per word (default 3)")
    parser.add_argument("--window", type=int, default=40, help="characters each side of the word (default 40)")
    parser.add_argument("--seed", type=int, default=0, help="the sampling seed (default 0)")
    parser.add_argument("--max-bytes", type=int, default=MAX_BYTES, help="bound on each file (default 2,000,000)")
    args = parser.parse_args()
    write_contexts(args.model_dirs, args.corpus, args.per_piece, args.window, args.seed, args.max_bytes)


if __name__ == "__main__":
    main()
