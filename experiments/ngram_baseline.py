"""A bag-of-n-grams baseline for a GLUE-format classification task: the yardstick a fine-tuned ALBERT must beat.

    python -m experiments.ngram_baseline ../shared/glue/zh-reviews            # characters, 1- to 3-grams
    python -m experiments.ngram_baseline ../shared/glue/SST-2 --analyzer word --ngram-max 2

TF-IDF features (sublinear term frequency) of character (or word) n-grams of `train.tsv`, a logistic
regression (scikit-learn, L2, C chosen by 5-fold cross-validation on the training file only), scored on
`dev.tsv`. Logs the accuracy; `--output` also writes it as JSON.
"""

from __future__ import annotations

import argparse
import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path

from albert.data.tasks import read_records

logger = logging.getLogger("experiments.ngram_baseline")
C_GRID = (0.25, 1.0, 4.0, 16.0, 64.0)
"""Inverse regularisation strengths tried by 5-fold cross-validation on the training file."""


@dataclass(frozen=True)
class NgramBaseline:
    """What the baseline scored, and how it was built."""

    task_dir: str
    analyzer: str
    ngram_range: tuple[int, int]
    chosen_c: float
    train_examples: int
    dev_examples: int
    dev_accuracy: float


def ngram_baseline(task_dir: Path, analyzer: str = "char", ngram_max: int = 3, seed: int = 0) -> NgramBaseline:
    """Fit the TF-IDF + logistic-regression baseline on `task_dir/train.tsv`, score it on `dev.tsv`."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline

    train = read_records(str(task_dir / "train.tsv"), "classification")
    dev = read_records(str(task_dir / "dev.tsv"), "classification")
    pipeline = make_pipeline(
        TfidfVectorizer(analyzer=analyzer, ngram_range=(1, ngram_max), sublinear_tf=True),
        LogisticRegression(max_iter=2000, random_state=seed),
    )
    search = GridSearchCV(pipeline, {"logisticregression__C": list(C_GRID)}, cv=5, scoring="accuracy")
    search.fit([r.text for r in train], [r.label for r in train])
    predicted = search.predict([r.text for r in dev])
    accuracy = sum(p == r.label for p, r in zip(predicted, dev, strict=True)) / len(dev)
    chosen = float(search.best_params_["logisticregression__C"])
    return NgramBaseline(str(task_dir), analyzer, (1, ngram_max), chosen, len(train), len(dev), accuracy)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("task_dir", type=Path, help="a folder with GLUE-format train.tsv and dev.tsv")
    parser.add_argument("--analyzer", choices=("char", "word"), default="char")
    parser.add_argument("--ngram-max", type=int, default=3)
    parser.add_argument("--output", type=Path, default=None, help="write the result as JSON here")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        result = ngram_baseline(args.task_dir, args.analyzer, args.ngram_max)
    except (OSError, ValueError) as error:
        raise SystemExit(f"ngram_baseline: {error}") from None
    logger.info(
        "%s-%d-gram TF-IDF + logistic regression (C %.2f): dev accuracy %.2f%% (%d dev, %d train)",
        result.analyzer,
        args.ngram_max,
        result.chosen_c,
        100 * result.dev_accuracy,
        result.dev_examples,
        result.train_examples,
    )
    if args.output:
        args.output.write_text(json.dumps(asdict(result), indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
