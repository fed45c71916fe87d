"""Re-score pretrained models on held-out text, with 95% intervals, and check the numbers their cards state.

    python experiments/score_models.py --valid-corpus ../shared/corpus/gutenberg-valid.txt.xz \\
        assets/models/albert-lab-base assets/models/albert-lab-none
    python experiments/score_models.py --valid-corpus ... --check-cards assets/models/*   # exit 1 on a mismatch

The measures (`mlm`, `order`, `topic`, each with its Wilson 95% interval) are those of
`albert.training.pretraining_evaluation.score_model`, the library code the release scripts use too.
Results print as a table and go to `--output` as JSON.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from albert.data.sentence_order import OrderPair  # noqa: E402
from albert.training.pretraining_evaluation import PAIR_SEED, card_mismatches, score_model  # noqa: E402

logger = logging.getLogger("experiments.score_models")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="+", type=Path, help="model folders (config.json, model.safetensors)")
    parser.add_argument(
        "--valid-corpus",
        action="append",
        required=True,
        help="held-out text (never trained on); repeat for several files",
    )
    parser.add_argument(
        "--examples", type=int, default=3000, help="pipeline examples per task (≥ 20,000 MLM positions at 64 tokens)"
    )
    parser.add_argument("--pairs", type=int, default=3000, help="held-out order pairs (each asked in both orders)")
    parser.add_argument(
        "--max-tokens", type=int, help="pieces in A and B together (default: the model's positions − 3 specials)"
    )
    parser.add_argument("--pair-seed", type=int, default=PAIR_SEED, help="which held-out pairs (cards use 0)")
    parser.add_argument(
        "--avoid-pair-seed",
        type=int,
        action="append",
        default=[],
        help="leave out every sentence of this seed's pairs (a replication on text the cards' pairs did not use)",
    )
    parser.add_argument("--cache-dir", type=Path, default=Path("runs/cache/valid"))
    parser.add_argument("--output", type=Path, help="write every score as JSON here")
    parser.add_argument("--check-cards", action="store_true", help="exit 1 if a metrics.json disagrees")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    torch.set_num_threads(args.threads)
    results: dict[str, dict[str, Any]] = {}
    pairs_by_tokenizer: dict[str, list[OrderPair]] = {}
    problems: list[str] = []
    for directory in args.models:
        scores = score_model(
            directory,
            args.valid_corpus,
            args.examples,
            args.pairs,
            args.cache_dir,
            args.max_tokens,
            pairs_by_tokenizer,
            pair_seed=args.pair_seed,
            avoid_seeds=tuple(args.avoid_pair_seed),
        )
        results[directory.name] = {name: score.as_dict() for name, score in scores.items()}
        line = "  ".join(
            f"{name} {s.rate:6.1%} [{s.interval()[0]:.1%}, {s.interval()[1]:.1%}] n={s.total}"
            for name, s in scores.items()
        )
        logger.info("%-28s %s", directory.name, line)
        if args.check_cards:
            problems += card_mismatches(directory, scores)
    if args.output:
        args.output.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    for problem in problems:
        logger.error(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
