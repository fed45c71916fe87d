"""Helpers of the hostile-input tests: tiny task tables and fine-tuning / pre-training command lines. The `models`
fixture they run on (a tiny tokenizer and two tiny 'pretrained' ALBERTs of different widths, made here, never from
../shared) is in this folder's conftest.py."""

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
    return [
        "--model",
        str(models[model]),
        "--train-file",
        str(models["train"]),
        "--dev-file",
        str(models["dev"]),
        "--output-dir",
        str(out),
        "--max-seq-length",
        "16",
        "--batch-size",
        "8",
        "--epochs",
        "2",
        "--eval-every",
        "2",
        "--threads",
        "1",
        "--log-every",
        "2",
        *extra,
    ]


def pretrain_argv(
    models: dict[str, Path], out: Path, *extra: str, hidden_size: int = 32, init_from: Path | None = None
) -> list[str]:
    """A seconds-long `albert.pretrain` command line: 4 steps of a tiny model (or of `init_from`'s model, with its
    tokenizer) on a tiny corpus kept in models["root"]."""
    corpus = models["root"] / "pretrain_corpus.txt"
    if not corpus.exists():
        rng = random.Random(0)
        words = "alpha beta gamma delta film story plot music scene actor".split()
        lines = [" ".join(rng.choice(words) for _ in range(12)) + "." for _ in range(48)]
        corpus.write_text("\n\n".join("\n".join(lines[i : i + 8]) for i in range(0, 48, 8)) + "\n")
    tiny = dict(
        hidden_size=hidden_size,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        embedding_size=16,
        max_position_embeddings=64,
    )
    model = (
        ["--init-from", str(init_from)]
        if init_from
        else [
            *("--tokenizer", str(models["root"] / "tokenizer")),
            *(item for key, value in tiny.items() for item in (f"--model.{key.replace('_', '-')}", str(value))),
        ]
    )
    return [
        *("--corpus", str(corpus), "--output-dir", str(out), "--cache-dir", str(models["root"] / "pretrain_cache")),
        *("--data.max-seq-length", "32", "--batch-size", "4", "--max-steps", "4", "--eval-every", "100"),
        *("--threads", "1", *model, *extra),
    ]
