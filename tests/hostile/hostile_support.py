"""Helpers of the hostile-input tests: tiny task tables and fine-tuning command lines."""

from __future__ import annotations

import random
from pathlib import Path

WORDS = "the a of film story plot was is and very great superb awful dull".split()


def write_table(path: Path, labels: list[str], header: str = "sentence\tlabel") -> Path:
    """A TSV with one short sentence per label (the sentence says nothing; the labels are what is tested)."""
    rng = random.Random(len(labels))
    rows = [f"{' '.join(rng.choice(WORDS) for _ in range(5))}\t{label}\n" for label in labels]
    path.write_text(header + "\n" + "".join(rows), encoding="utf-8")
    return path


def finetune_argv(models: dict[str, Path], out: Path, *extra: str, model: str = "narrow") -> list[str]:
    return ["--model", str(models[model]), "--train-file", str(models["train"]), "--dev-file", str(models["dev"]),
            "--output-dir", str(out), "--max-seq-length", "16", "--batch-size", "8", "--epochs", "2",
            "--eval-every", "2", "--threads", "1", "--log-every", "2", *extra]
