"""Fine-tune a sentiment model (GLUE SST-2, or zh-reviews in SST-2's format): what pretraining buys, and what INT8
quantization costs. The shipped models under assets/sentiment/ were made by it (`scripts/ship_sentiment_model.py`).

    python -m scripts.finetune_sentiment --model assets/models/albert-lab-base \\
        --max-train-examples 20000 --max-seq-length 64 --epochs 1 --threads 2

Three measurements with one budget (training examples, sequence length, epochs, batch size,
learning rate and schedule), all scored on the full GLUE SST-2 dev set:
1. fine-tune the pretrained model on (a seeded subset of) `train.tsv`;
2. the same from random initialisation: same architecture, tokenizer and budget
   (`albert.finetune --from-scratch`), the baseline pretraining has to beat;
3. the best fine-tuned model of (1) quantized to INT8 (dynamic range, Linear layers) on
   CPU: accuracy change, size on disk, latency against fp32.
Writes `output_dir/sst2_results.json`; the fine-tuned model is `output_dir/pretrained/best`.
"""

from __future__ import annotations

import json
import logging
import platform
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

logger = logging.getLogger("scripts.finetune_sentiment")


@dataclass
class SST2Config:
    """Settings of the SST-2 measurement."""

    model: str
    """The pretrained model: a from_pretrained directory (with its tokenizer) or a hub id."""
    glue_dir: str = "../shared/glue/SST-2"
    """Folder holding GLUE SST-2's train.tsv and dev.tsv."""
    output_dir: str = "runs/sst2"
    """Both runs (pretrained/, from_scratch/) and sst2_results.json go here."""
    max_train_examples: int = 20000
    """Seeded random subset of train.tsv (67,349 sentences in all); 0 uses everything."""
    max_seq_length: int = 64
    """Tokens per sentence after truncation (SST-2 sentences average about 13 words)."""
    epochs: int = 1
    """Passes over the training subset."""
    batch_size: int = 32
    """Sentences per optimizer step."""
    learning_rate: float = 1e-4
    """Peak learning rate of the pretrained run (linear warm-up, then linear decay to zero)."""
    scratch_learning_rate: float | None = None
    """Peak learning rate of the from-scratch run; default: the same as the pretrained run."""
    warmup_fraction: float = 0.1
    """Warm-up as a fraction of the planned steps."""
    layer_decay: float = 1.0
    """Layer-wise learning-rate decay of the pretrained run (1: off)."""
    eval_every: int = 0
    """Dev evaluation (best-checkpoint selection) every N steps; 0: at the end of each epoch."""
    skip_scratch: bool = False
    """Only fine-tune the pretrained model (no random-initialisation baseline)."""
    skip_pretrained: bool = False
    """Only run the random-initialisation baseline (joined with --skip-scratch runs of the same budget and
    seed by `scripts.ship_sentiment_model --scratch-runs`, so the two arms can run side by side)."""
    latency_rounds: int = 20
    """Timed forward passes per model for the fp32/INT8 latency."""
    threads: int = 0
    """CPU threads for torch (0: torch's default)."""
    device: str = "auto"
    """auto (CUDA when present), cpu or cuda; quantized evaluation always runs on CPU."""
    seed: int = 0
    """Seed of the subset, data order and head initialisation (the same for both runs)."""

    def __post_init__(self) -> None:
        if not (Path(self.glue_dir) / "train.tsv").is_file() or not (Path(self.glue_dir) / "dev.tsv").is_file():
            raise ValueError(f"{self.glue_dir} must hold GLUE SST-2's train.tsv and dev.tsv (use --glue-dir).")
        if self.learning_rate <= 0 or (self.scratch_learning_rate is not None and self.scratch_learning_rate <= 0):
            raise ValueError("learning rates must be positive.")
        if self.skip_scratch and self.skip_pretrained:
            raise ValueError("--skip-scratch and --skip-pretrained together leave nothing to run; choose one.")
        if self.max_train_examples < 0:
            raise ValueError(f"max_train_examples must be 0 (all) or more, got {self.max_train_examples}.")


def _finetune_config(settings: SST2Config, from_scratch: bool):
    from albert.commands.finetune import FinetuneConfig
    from albert.training.optim import OptimizerConfig

    lr = settings.scratch_learning_rate if from_scratch and settings.scratch_learning_rate else settings.learning_rate
    glue = Path(settings.glue_dir)
    return FinetuneConfig(
        model=settings.model,
        train_file=str(glue / "train.tsv"),
        dev_file=str(glue / "dev.tsv"),
        task="classification",
        label_names=("negative", "positive"),
        output_dir=str(Path(settings.output_dir) / ("from_scratch" if from_scratch else "pretrained")),
        max_seq_length=settings.max_seq_length,
        max_train_examples=settings.max_train_examples or None,
        epochs=settings.epochs,
        batch_size=settings.batch_size,
        eval_every=settings.eval_every,
        optim=OptimizerConfig(learning_rate=lr, warmup_fraction=settings.warmup_fraction),
        layer_decay=1.0 if from_scratch else settings.layer_decay,
        from_scratch=from_scratch,
        quantize=not from_scratch,
        latency_rounds=settings.latency_rounds,
        device=settings.device,
        threads=settings.threads,
        seed=settings.seed,
    )


def _scores(summary: dict[str, Any]) -> dict[str, Any]:
    best = summary["best"]
    return {
        "accuracy": best["accuracy"],
        "f1": best["f1"],
        "matthews": best["matthews"],
        "best_step": best["step"],
        "steps": summary["steps"],
        "train_examples": summary["train_examples"],
        "dev_examples": summary["dev_examples"],
        "wall_seconds": summary["wall_seconds"],
    }


def quantized_scores(report: dict[str, Any]) -> dict[str, Any]:
    """The INT8 part of the results from `albert.training.finetune_evaluation.quantization_report`'s report."""
    return {
        "accuracy": report["metrics"]["accuracy"],
        "accuracy_change": report["change"]["accuracy"],
        "fp32_bytes": report["fp32_bytes"],
        "int8_bytes": report["int8_bytes"],
        "quantized_linear_layers": report["quantized_linear_layers"],
        "threads": report["torch_threads"],
        **{k: v for k, v in report.items() if k.startswith("latency_batch_")},
    }


def run_benchmark(settings: SST2Config) -> dict[str, Any]:
    """Run the fine-tunes and the INT8 evaluation; returns (and writes) the results."""
    from albert.commands.finetune import run

    results: dict[str, Any] = {
        "model": settings.model,
        "budget": asdict(settings),
        "torch": torch.__version__,
        "machine": platform.processor() or platform.machine(),
    }
    if not settings.skip_pretrained:
        pretrained = run(_finetune_config(settings, from_scratch=False)).summary
        results["pretrained"] = _scores(pretrained)
        results["fine_tuned_model"] = str(Path(settings.output_dir) / "pretrained" / "best")
        results["quantized"] = quantized_scores(pretrained["quantized"])
    if not settings.skip_scratch:
        results["from_scratch"] = _scores(run(_finetune_config(settings, from_scratch=True)).summary)
    if "pretrained" in results and "from_scratch" in results:
        results["pretraining_gain_points"] = 100 * (
            results["pretrained"]["accuracy"] - results["from_scratch"]["accuracy"]
        )
    path = Path(settings.output_dir) / "sst2_results.json"
    path.write_text(json.dumps(results, indent=2) + "\n")
    logger.info("results written to %s", path)
    return results


def format_report(results: dict[str, Any]) -> str:
    budget = results["budget"]
    arms = [("pretrained", "pretrained  "), ("from_scratch", "from scratch")]
    examples = next(results[arm]["train_examples"] for arm, _ in arms if arm in results)
    lines = [
        f"SST-2 dev accuracy, {examples:,} training sentences, "
        f"seq {budget['max_seq_length']}, {budget['epochs']} epoch(s), batch {budget['batch_size']}:"
    ]
    for arm, name in arms:
        if arm in results:
            lines.append(f"  {name} {results[arm]['accuracy']:.2%}  ({results[arm]['wall_seconds']:.0f} s)")
    if "pretraining_gain_points" in results:
        lines[-1] += f"; pretraining adds {results['pretraining_gain_points']:+.1f} points"
    if "quantized" in results:
        q = results["quantized"]
        lines.append(
            f"  INT8 dynamic {q['accuracy']:.2%}  ({100 * q['accuracy_change']:+.1f} points); "
            f"{q['fp32_bytes'] / 2**20:.2f} MiB → {q['int8_bytes'] / 2**20:.2f} MiB"
        )
        for key in (k for k in q if k.startswith("latency_batch_")):
            t = q[key]
            lines.append(
                f"  latency batch {key.rsplit('_', 1)[1]}: fp32 {t['fp32_ms']:.1f} ms, "
                f"INT8 {t['int8_ms']:.1f} ms ({t['speedup']:.2f}× on {q['threads']} CPU threads)"
            )
        lines.append(f"  fine-tuned model: {results['fine_tuned_model']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from albert.cli import parse_config

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    settings = parse_config(SST2Config, argv, description=__doc__.split("\n\n")[0])
    print(format_report(run_benchmark(settings)))  # the command's final report
    return 0


if __name__ == "__main__":
    if __package__ in (None, ""):  # `python scripts/finetune_sentiment.py`: make `albert` importable
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main())
