"""`python -m albert.finetune`: fine-tune an ALBERT for classification, regression or tagging.

    python -m albert.finetune --model runs/pretrain/final --train-file glue/SST-2/train.tsv \\
        --dev-file glue/SST-2/dev.tsv --output-dir runs/sst2 --label-names negative positive
    python -m albert.finetune --eval-only --model runs/sst2/best --dev-file glue/SST-2/dev.tsv --quantize

Data: GLUE TSV (header row), CSV, JSONL, `hf:NAME[:CONFIG]` datasets, CoNLL files for tagging
(see `albert.data.tasks`). The best dev checkpoint is `output_dir/best`, a `from_pretrained`
directory with the tokenizer and the label names. One process on CPU or GPU, or
`torchrun --nproc_per_node K -m albert.finetune ...`. Every option is a field of `FinetuneConfig`.

Practices (one process; the final model is evaluated and saved): LoRA adapters (peft) with --adapter lora
--lora-rank R [--lora-per-pass]; several tasks on one backbone with --multitask NAME=TRAIN,DEV ...; distillation
with --teacher DIR --student-passes K --distill-temperature T --distill-alpha A (see those options below).
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import torch

from albert.cli import run_command
from albert.commands.finetune_setup import build_model, load_data, model_class, task_of_config
from albert.commands.practices import PracticeOptions, run_lora
from albert.core.checkpoint import CheckpointError, load_config, resolve_directory
from albert.core.config import ConfigError
from albert.data.tasks import DataError
from albert.training.batch_stream import PlannedLoader, TaskBatches, resolve_workers
from albert.training.distributed import autocast, setup_distributed, start_run
from albert.training.finetune_evaluation import METRICS, evaluate, format_report, is_better, quantization_report
from albert.training.layerwise import freeze_below, layer_decay_scale, unfrozen_from
from albert.training.loop import Run, RunConfig, RunResult, Task, fit, jsonable
from albert.training.optim import OptimizerConfig
from albert.training.state import replace_directory

logger = logging.getLogger("albert.finetune")
COLUMNS = (
    "step",
    "epoch",
    "split",
    "loss",
    "accuracy",
    "f1",
    "matthews",
    "pearson",
    "spearman",
    "mse",
    "lr",
    "examples_per_second",
    "trainable_tensors",
    "elapsed_seconds",
)


@dataclass(kw_only=True)
class FinetuneConfig(PracticeOptions, RunConfig):
    """Fine-tune an ALBERT on sequence classification, regression or token classification."""

    model: str
    """Starting point: a from_pretrained directory (ALBERT Lab's or transformers') or a hub id."""
    train_file: str | None = None
    """Training data: .tsv (GLUE, header row), .csv, .jsonl, a CoNLL file (.conll/.bio/.iob) or hf:NAME[:CONFIG]."""
    dev_file: str | None = None
    """Development data, same format (hf: sources read their validation split); picks the best checkpoint."""
    task: Literal["auto", "classification", "regression", "token"] = "auto"
    """auto: token for CoNLL files, regression when labels are all written as decimals (3.800) and some are not
    whole, else classification; a mix of kinds (0/1 with one 0.5 or pos), NaN or a one-example class is refused."""
    text_column: str | None = None
    """Column of the (first) text; default: GLUE's names (sentence, sentence1, question1, premise, text …)."""
    text_pair_column: str | None = None
    """Column of the second text of a pair; default: detected with the text column (sentence2 …)."""
    label_column: str | None = None
    """Column of the label (default: label, labels, score …); for CoNLL files a column number (default -1)."""
    label_names: tuple[str, ...] = ()
    """Names for the labels in sorted label order (e.g. negative positive), written to config.json."""
    tokenizer: str | None = None
    """Tokenizer directory; default: the one saved with --model."""
    output_dir: str = "runs/finetune"
    """Checkpoint, metrics, best model (output_dir/best) and results.json go here."""
    max_seq_length: int = 128
    """Tokens per example after truncation ([CLS] and [SEP] included)."""
    max_train_examples: int | None = None
    """Train on a seeded random subset of this many examples (for a fixed budget)."""
    max_dev_examples: int | None = None
    """Evaluate on a seeded random subset of this many dev examples."""
    epochs: int = 3
    """Passes over the training data; the schedule decays to zero at the end of the last one."""
    batch_size: int = 32
    """Examples per optimizer step per process."""
    eval_batch_size: int = 64
    """Examples per forward pass in evaluation."""
    optim: OptimizerConfig = field(default_factory=lambda: OptimizerConfig(learning_rate=5e-5, warmup_fraction=0.1))
    """Optimizer and schedule (--optim.*): linear warm-up (10%) then decay to zero."""
    layer_decay: float = 1.0
    """Layer-wise learning-rate decay: each depth below the head learns at this factor of the one above (1: off)."""
    unfreeze_every: float = 0.0
    """Gradual unfreezing: train the head alone first, then unfreeze one more depth every N epochs (0: off)."""
    classifier_dropout: float | None = None
    """Dropout before the classifier; default: the checkpoint's classifier_dropout_prob."""
    metric: Literal["auto", "accuracy", "f1", "matthews", "pearson", "spearman", "mse"] = "auto"
    """Dev metric for the best checkpoint and early stopping; auto: accuracy, pearson (regression), f1 (token)."""
    patience: int = 0
    """Early stopping: stop after this many evaluations without a better dev metric (0: never)."""
    eval_every: int = 0
    """Evaluate (and checkpoint) every N steps; 0: at the end of every epoch."""
    from_scratch: bool = False
    """Random weights with --model's architecture and tokenizer: the baseline that pretraining must beat."""
    eval_only: bool = False
    """Evaluate --model on --dev-file without training."""
    quantize: bool = False
    """Also evaluate an INT8 dynamic-quantized copy on CPU: metric change, size on disk, latency."""
    latency_rounds: int = 20
    """Timed forward passes per model when measuring latency for --quantize."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.optim, dict):
            self.optim = OptimizerConfig(**{**asdict(_default_optim()), **self.optim})
        if not self.eval_only and not self.train_file and not self.multitask:
            raise ValueError("--train-file is needed to fine-tune (or pass --eval-only with --dev-file).")
        if self.eval_only and not self.dev_file:
            raise ValueError("--eval-only needs --dev-file, the labelled data to evaluate on.")
        for name in ("max_seq_length", "epochs", "batch_size", "eval_batch_size", "latency_rounds"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}.")
        for name in ("max_train_examples", "max_dev_examples"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1 when given, got {getattr(self, name)}.")
        if self.shared_noise_std and self.practice:  # the practices train in their own short loop, without it
            raise ValueError(
                "--shared-noise-std applies to plain fine-tuning; drop --adapter, --multitask or --teacher."
            )
        self._check_schedule()

    def _check_schedule(self) -> None:
        """Layer decay, unfreezing, dropout, early stopping and the dev metric."""
        if not 0 < self.layer_decay <= 1:
            raise ValueError(f"layer_decay must be in (0, 1], got {self.layer_decay}.")
        if self.unfreeze_every < 0 or self.patience < 0 or self.eval_every < 0:
            raise ValueError("unfreeze_every, patience and eval_every must not be negative.")
        if self.classifier_dropout is not None and not 0 <= self.classifier_dropout < 1:
            raise ValueError(f"classifier_dropout must be in [0, 1), got {self.classifier_dropout}.")
        if self.quantize and not self.dev_file:
            raise ValueError("--quantize reports the metric change on --dev-file; give one.")
        if self.patience and not self.dev_file:
            raise ValueError("--patience (early stopping) needs --dev-file to measure improvement on.")
        if self.metric != "auto" and self.task != "auto" and self.metric not in METRICS[self.task]:
            raise ValueError(
                f"metric {self.metric!r} does not apply to {self.task}; use one of {', '.join(METRICS[self.task])}."
            )


def _default_optim() -> OptimizerConfig:
    return FinetuneConfig.__dataclass_fields__["optim"].default_factory()  # type: ignore[misc]


class FineTuningTask(Task):
    """Sequence classification, regression or token tagging on a labelled task: what `fit` needs from fine-tuning."""

    summary_name = "results.json"
    metrics_columns = COLUMNS

    def __init__(self, cfg: FinetuneConfig, run: Run, directory: Path, tokenizer: Any) -> None:
        data = load_data(cfg, tokenizer, None)
        self.task, self.label_names, self.metric = data["task"], data["label_names"], data["metric"]
        self.train, self.dev = data["train"], data["dev"]
        model = build_model(cfg, directory, data).to(run.device)
        logger.info(
            "%s: %d training and %d dev examples, %s labels, %s parameters%s",
            self.task,
            len(self.train),
            len(self.dev or []),
            len(self.label_names) or "no",
            f"{sum(p.numel() for p in model.parameters()):,}",
            " (random initialisation)" if cfg.from_scratch else "",
        )
        self.global_batch = cfg.batch_size * run.dist.world_size
        self.steps_per_epoch = math.ceil(len(self.train) / self.global_batch)
        super().__init__(run, model, cfg.epochs * self.steps_per_epoch, tokenizer)
        self.cfg, self.name, self.best_dir = cfg, f"finetune {self.task}", run.out / "best"
        self.lr_scale = layer_decay_scale(model.config, cfg.layer_decay) if cfg.layer_decay < 1 else None
        self.unfreeze_steps = max(1, round(cfg.unfreeze_every * self.steps_per_epoch)) if cfg.unfreeze_every else 0
        self.lowest: int | None = None  # the lowest depth being trained (gradual unfreezing)
        self.best: dict[str, Any] | None = None  # the dev row of the best checkpoint
        self.bad_evals, self.history, self.evaluated_at = 0, [], -1
        self.window = {"loss": 0.0, "steps": 0, "examples": 0}
        self.loader: PlannedLoader | None = None
        self.loader_step = 0

    def _close_loader(self) -> None:
        if self.loader is not None:
            self.loader.close()
            self.loader = None

    def state(self) -> dict[str, Any]:
        return {"best": self.best, "bad_evals": self.bad_evals, "history": self.history}

    def restore(self, state: dict[str, Any]) -> None:
        self.best, self.bad_evals, self.history = state["best"], state["bad_evals"], state["history"]

    def before_step(self, step: int) -> bool:
        if not self.unfreeze_steps or self.lowest == unfrozen_from(self.model.config, step, self.unfreeze_steps):
            return False
        self.lowest = unfrozen_from(self.model.config, step, self.unfreeze_steps)
        trainable = freeze_below(self.model, self.model.config, self.lowest)
        logger.info("step %d: training depth %d and up (%d tensors)", step, self.lowest, trainable)
        return True

    def train_step(self, model: torch.nn.Module, step: int) -> float:
        device = self.run.device
        if self.loader is None or self.loader_step != step:  # the first step, or the first after a resume
            self._close_loader()
            self.loader = PlannedLoader(
                TaskBatches(self.train, self.tokenizer.pad_token_id, self.cfg.seed, self.run.dist, self.cfg.batch_size),
                itertools.count(step),
                resolve_workers(self.cfg.data_workers, self.run.dist.world_size),
                pin_memory=device.type == "cuda",
            )
        examples, cpu_batch = self.loader.next()
        self.loader_step = step + 1
        batch = {k: v.to(device, non_blocking=True) for k, v in cpu_batch.items()}
        with autocast(device, self.cfg.precision):
            loss = model(
                batch["input_ids"], batch["attention_mask"], batch["token_type_ids"], labels=batch["labels"]
            ).loss
        loss.backward()
        value = loss.detach().item()
        self.window["loss"] += value
        self.window["steps"] += 1
        self.window["examples"] += examples
        return value

    def train_row(self, step: int, lr: float, grad_norm: float, seconds: float) -> dict[str, Any]:
        row = {
            "epoch": step / self.steps_per_epoch,
            "split": "train",
            "loss": self.window["loss"] / self.window["steps"],
            "lr": lr,
            "examples_per_second": self.window["examples"] / max(seconds, 1e-9),
            "trainable_tensors": sum(p.requires_grad for p in self.model.parameters()),
        }
        self.window = {"loss": 0.0, "steps": 0, "examples": 0}
        return row

    def evaluate(self, step: int) -> str | None:
        cfg = self.cfg
        if not (
            (step % cfg.eval_every == 0 if cfg.eval_every else step % self.steps_per_epoch == 0)
            or step == self.total_steps
        ):
            return None
        self.evaluated_at = step
        if self.dev:
            self._evaluate_dev(step)
        if cfg.patience and self.bad_evals >= cfg.patience:
            reason = f"early stopping: no better dev {self.metric} in {self.bad_evals} evaluations"
            logger.info("%s; stopping at step %d", reason, step)
            return reason
        return None

    def _evaluate_dev(self, step: int) -> None:
        """One dev row; a better one replaces output_dir/best.

        Every process evaluates the whole dev set (identical weights, identical result), so all of them
        take the same early-stopping decision without communicating."""
        cfg, metric = self.cfg, self.metric
        row = {
            "step": step,
            "epoch": step / self.steps_per_epoch,
            "split": "dev",
            "elapsed_seconds": self.run.elapsed(),
            **evaluate(
                self.model,
                self.dev,
                self.task,
                self.label_names,
                cfg.eval_batch_size,
                self.run.device,
                cfg.precision,
                self.tokenizer.pad_token_id,
            ),
        }
        self.history.append(row)
        self.run.metrics.write(row)
        self.postfix[f"dev_{metric}"] = f"{row[metric]:.4f}"
        logger.info("dev step %d: %s", step, ", ".join(f"{k} {row[k]:.4f}" for k in METRICS[self.task]))
        if is_better(row[metric], self.best[metric] if self.best else None, metric):
            self.best, self.bad_evals = row, 0
            self._save_best(row)
        else:
            self.bad_evals += 1

    def _save_best(self, row: dict[str, Any]) -> None:
        def write(temp: Path) -> None:
            self.model.save_pretrained(temp, tokenizer=self.tokenizer)
            (temp / "eval_results.json").write_text(json.dumps(jsonable(row), indent=2) + "\n")

        if self.run.dist.is_main:
            replace_directory(self.best_dir, write)

    def checkpoint_due(self, step: int) -> bool:
        return step == self.evaluated_at

    def divergence_note(self, checkpoint_step: int | None) -> tuple[str, str]:
        return _kept(self.best_dir), (
            "fine-tune again with a lower --optim.learning-rate (e.g. a tenth) or check the scale of the labels"
        )

    def finish(self, step: int, reason: str) -> dict[str, Any]:
        self._close_loader()
        if not self.dev and self.run.dist.is_main and reason == "finished":
            logger.warning("no --dev-file: the last model is saved as %s, unselected", self.best_dir)
            self._save_best({"step": step})
        return {
            "task": self.task,
            "metric": self.metric,
            "label_names": self.label_names,
            "train_examples": len(self.train),
            "dev_examples": len(self.dev or []),
            "stop_reason": reason,
            "from_scratch": self.cfg.from_scratch,
            "best": self.best,
            "history": self.history,
        }

    def complete(self, step: int, summary: dict[str, Any]) -> None:
        cfg = self.cfg
        if cfg.quantize and self.dev and self.best_dir.exists():
            best_model = type(self.model).from_pretrained(self.best_dir)
            summary["quantized"] = quantization_report(
                best_model,
                self.dev,
                self.task,
                self.label_names,
                summary["best"],
                cfg.eval_batch_size,
                self.tokenizer.pad_token_id,
                cfg.latency_rounds,
            )


def run(cfg: FinetuneConfig) -> RunResult:
    """Fine-tune (or, with eval_only, evaluate); returns the model and the summary (results.json)."""
    from albert.data.tokenizer import load_tokenizer

    def make_task(run_: Run) -> FineTuningTask:
        directory = resolve_directory(cfg.model)
        return FineTuningTask(cfg, run_, directory, load_tokenizer(cfg.tokenizer or directory))

    if cfg.practice and not cfg.eval_only:
        return _run_practice(cfg)
    if not cfg.eval_only:
        return fit(cfg, make_task)
    _, out = start_run(cfg.device, cfg.threads, cfg.output_dir)
    directory = resolve_directory(cfg.model)
    return _evaluate_only(cfg, directory, load_tokenizer(cfg.tokenizer or directory), out)


def _run_practice(cfg: FinetuneConfig) -> RunResult:
    """LoRA, multi-task or distillation (albert.commands: `practices`, `multitask`, `distill`)."""
    from albert.commands.distill import run_distillation
    from albert.commands.multitask import run_multitask

    if cfg.practice == "multitask":
        return run_multitask(cfg, load_data)
    lora = cfg.practice == "lora"
    return run_lora(cfg, load_data, build_model) if lora else run_distillation(cfg, load_data, task_of_config)


def _evaluate_only(cfg: FinetuneConfig, directory: Path, tokenizer: Any, out: Path) -> RunResult:
    config = load_config(directory)
    task = cfg.task if cfg.task != "auto" else task_of_config(config)
    if cfg.task != "auto" and cfg.task != task_of_config(config):
        raise ConfigError(f"{directory} holds a {task_of_config(config)} model, not {cfg.task}.")
    data = load_data(cfg, tokenizer, config)
    model = model_class(task).from_pretrained(directory)
    device = torch.device("cpu") if cfg.quantize else setup_distributed(cfg.device).device
    started = time.time()
    metrics = evaluate(
        model.to(device),
        data["dev"],
        task,
        data["label_names"],
        cfg.eval_batch_size,
        device,
        cfg.precision,
        tokenizer.pad_token_id,
    )
    summary: dict[str, Any] = {
        "task": task,
        "metric": data["metric"],
        "label_names": data["label_names"],
        "dev_examples": len(data["dev"]),
        "best": metrics,
        "wall_seconds": round(time.time() - started, 1),
        "model": str(directory),
    }
    if cfg.quantize:
        summary["quantized"] = quantization_report(
            model,
            data["dev"],
            task,
            data["label_names"],
            metrics,
            cfg.eval_batch_size,
            tokenizer.pad_token_id,
            cfg.latency_rounds,
        )
    (out / "eval_results.json").write_text(json.dumps(jsonable(summary), indent=2) + "\n")
    return RunResult(model=model, summary=summary)


def _kept(best_dir: Path) -> str:
    if (best_dir / "eval_results.json").is_file():
        step = json.loads((best_dir / "eval_results.json").read_text()).get("step")
        return f"the best model so far, step {step}, is kept in {best_dir}"
    return "no best model had been saved yet"


def main(argv: list[str] | None = None) -> None:
    errors = (ConfigError, CheckpointError, DataError, ValueError, FileNotFoundError)
    summary = run_command("albert.finetune", FinetuneConfig, run, errors, argv, description=__doc__).summary
    if int(os.environ.get("RANK", "0")) == 0:  # one report, not one per torchrun process
        for line in (summary.get("report") or format_report(summary)).splitlines():
            logger.info("%s", line)


if __name__ == "__main__":
    main()
