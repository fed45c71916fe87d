"""Fine-tuning practices beyond one task and every weight: LoRA adapters, several tasks on one backbone,
distillation. Their options are a part of `FinetuneConfig` (`python -m albert.finetune --help`); this module
holds the options, the compact training loop the three share, and the LoRA run.

These runs train for the planned epochs and then evaluate and save the final model once (no best-checkpoint
selection, no resuming): they are sized to minutes. Each writes `results.json` in --output-dir with the dev
metrics and their counts (for Wilson intervals), the trainable parameters and the mean step time.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
from torch import nn

from albert.data.tasks import collate
from albert.training.distributed import epoch_order, start_run
from albert.training.optim import build_optimizer, build_scheduler

logger = logging.getLogger("albert.finetune")


@dataclass(kw_only=True)
class PracticeOptions:
    """Options of `albert.finetune` for LoRA, multi-task training and distillation (mixed into FinetuneConfig)."""

    adapter: Literal["none", "lora"] = "none"
    """lora: freeze the model and train LoRA adapters (peft) plus the classifier; saves output_dir/adapter (the
    adapter alone, pointing at --model) and output_dir/merged (adapters merged in, a plain model)."""
    lora_rank: int = 8
    """LoRA rank r of each adapted Linear layer."""
    lora_alpha: float | None = None
    """LoRA scaling numerator (update scaled by alpha / r); default 2 × r."""
    lora_dropout: float = 0.0
    """Dropout on the adapters' input while training."""
    lora_targets: tuple[str, ...] = ("query", "key", "value", "output", "up", "down")
    """Linear layers that get adapters: query key value output (attention), up down (feed-forward)."""
    lora_per_pass: bool = False
    """With sharing 'all': one adapter per pass of the shared layer (a few parameters that un-share the passes)
    instead of one adapter that serves every pass."""
    multitask: tuple[str, ...] = ()
    """Several tasks on one backbone: NAME=TRAIN,DEV per task (e.g. sst2=train.tsv,dev.tsv
    casing=train.conll,dev.conll); each task gets its own head, batches are drawn across tasks in proportion
    to their sizes, each task's data once per epoch; one checkpoint (output_dir/best) with named heads."""
    teacher: str | None = None
    """Distillation: a fine-tuned sequence classifier whose soft labels the student learns; the student starts
    from --model's weights with --student-passes passes."""
    student_passes: int | None = None
    """Passes of the distilled student (default: half the teacher's). Without sharing, the student keeps
    evenly spaced layers of --model (6 → 3: layers 0, 2, 4); with 'all' the shared layer runs fewer times."""
    distill_temperature: float = 2.0
    """Softmax temperature T of teacher and student in the soft-label loss (scaled by T²)."""
    distill_alpha: float = 0.5
    """Weight of the hard-label loss: alpha · CE(labels) + (1 − alpha) · T² · KL(teacher ‖ student)."""

    def __post_init__(self) -> None:
        super().__post_init__()  # type: ignore[misc]
        chosen = [
            n
            for n, on in (
                ("--adapter lora", self.adapter != "none"),
                ("--multitask", bool(self.multitask)),
                ("--teacher", bool(self.teacher)),
            )
            if on
        ]
        if len(chosen) > 1:
            raise ValueError(f"{' and '.join(chosen)} cannot be combined in one run; choose one.")
        if self.lora_rank < 1:
            raise ValueError(f"--lora-rank must be at least 1, got {self.lora_rank}.")
        if self.distill_temperature <= 0 or not 0 <= self.distill_alpha <= 1:
            raise ValueError("--distill-temperature must be positive and --distill-alpha in [0, 1].")
        if self.student_passes is not None and self.student_passes < 1:
            raise ValueError(f"--student-passes must be at least 1, got {self.student_passes}.")
        for spec in self.multitask:
            parse_task_spec(spec)

    @property
    def practice(self) -> str | None:
        """Which practice this run uses (None: plain fine-tuning)."""
        if self.adapter != "none":
            return "lora"
        return "multitask" if self.multitask else "distill" if self.teacher else None


def parse_task_spec(spec: str) -> tuple[str, str, str]:
    """'NAME=TRAIN,DEV' → (name, train, dev), or one clear sentence."""
    name, _, files = spec.partition("=")
    train, _, dev = files.partition(",")
    if not name or not train or not dev or not name.replace("-", "").replace("_", "").isalnum():
        raise ValueError(
            f"--multitask takes NAME=TRAIN_FILE,DEV_FILE per task (e.g. sst2=train.tsv,dev.tsv), got {spec!r}."
        )
    return name, train, dev


@dataclass
class LoopStats:
    steps: int
    train_seconds: float
    mean_loss: float

    @property
    def step_seconds(self) -> float:
        return self.train_seconds / max(1, self.steps)


def train_steps(
    model: nn.Module, total: int, loss_of_step: Callable[[int], torch.Tensor], cfg: Any, device: torch.device
) -> LoopStats:
    """AdamW with the configured warm-up and decay over `total` steps; `loss_of_step(step)` gives each loss."""
    optimizer = build_optimizer(model, cfg.optim, device)
    scheduler = build_scheduler(optimizer, cfg.optim, total)
    trainable = [p for p in model.parameters() if p.requires_grad]
    model.train()
    started, window, losses = time.perf_counter(), [], []
    for step in range(total):
        loss = loss_of_step(step)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, cfg.optim.max_grad_norm)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        value = float(loss.detach())
        if not math.isfinite(value):
            raise ValueError(
                f"the loss became {value} at step {step + 1}; run again with a lower --optim.learning-rate."
            )
        window.append(value)
        losses.append(value)
        if (step + 1) % cfg.log_every == 0 or step + 1 == total:
            logger.info("step %d/%d: loss %.4f", step + 1, total, sum(window) / len(window))
            window = []
    seconds = time.perf_counter() - started
    model.eval()
    return LoopStats(total, seconds, float(np.mean(losses)) if losses else math.nan)


def batch_of(
    examples: list[dict[str, Any]], batch_size: int, seed: int, index: int, pad_id: int
) -> dict[str, torch.Tensor]:
    """The `index`-th batch of a seeded epoch-by-epoch shuffle of `examples`."""
    per_epoch = math.ceil(len(examples) / batch_size)
    epoch, position = divmod(index, per_epoch)
    order = epoch_order(len(examples), seed, epoch)
    return collate([examples[i] for i in order[position * batch_size : (position + 1) * batch_size]], pad_id)


def dev_report(
    model: nn.Module,
    examples: list[dict[str, Any]],
    task: str,
    label_names: list[str],
    cfg: Any,
    device: torch.device,
    pad_id: int,
) -> dict[str, Any]:
    """Dev metrics plus the counts behind accuracy (hits, n) and its Wilson 95% interval."""
    from albert.training.finetune_evaluation import predict, task_metrics
    from albert.training.order_scoring import Proportion

    predictions, labels, loss = predict(model, examples, task, cfg.eval_batch_size, device, cfg.precision, pad_id)
    metrics: dict[str, Any] = {**task_metrics(task, predictions, labels, label_names), "loss": loss}
    if task != "regression":
        proportion = Proportion(float((predictions == labels).sum()), len(labels))
        metrics.update(hits=int(proportion.hits), n=proportion.total, ci95=list(proportion.interval()))
    return metrics


def write_results(out: Path, results: dict[str, Any]) -> None:
    from albert.training.loop import jsonable

    (out / "results.json").write_text(json.dumps(jsonable(results), indent=2) + "\n")


def run_lora(cfg: Any, load_data: Callable[..., dict[str, Any]], build_model: Callable[..., nn.Module]) -> Any:
    """Fine-tune LoRA adapters (and the classifier) on a frozen --model; save the adapter and the merged model.

    `load_data` and `build_model` are `albert.finetune`'s (reading and encoding the data, the task model)."""
    from albert.core.adapters import LoraSettings, add_lora, count_trainable, merge_lora, save_adapter
    from albert.core.checkpoint import resolve_directory
    from albert.data.tokenizer import load_tokenizer
    from albert.training.loop import RunResult

    dist, out = start_run(cfg.device, cfg.threads, cfg.output_dir)
    directory = resolve_directory(cfg.model)
    tokenizer = load_tokenizer(cfg.tokenizer or directory)
    data = load_data(cfg, tokenizer, None)
    model = build_model(cfg, directory, data)
    total_parameters = sum(p.numel() for p in model.parameters())
    settings = LoraSettings(cfg.lora_rank, cfg.lora_alpha, cfg.lora_dropout, tuple(cfg.lora_targets), cfg.lora_per_pass)
    model = add_lora(model, settings).to(dist.device)
    trainable = count_trainable(model)
    train, pad = data["train"], tokenizer.pad_token_id
    steps = cfg.epochs * math.ceil(len(train) / cfg.batch_size)

    def loss_of_step(step: int) -> torch.Tensor:
        batch = {k: v.to(dist.device) for k, v in batch_of(train, cfg.batch_size, cfg.seed, step, pad).items()}
        return model(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"], labels=batch["labels"]).loss

    stats = train_steps(model, steps, loss_of_step, cfg, dist.device)
    dev = (
        dev_report(model, data["dev"], data["task"], data["label_names"], cfg, dist.device, pad)
        if data["dev"]
        else None
    )
    results = {
        "practice": "lora",
        "task": data["task"],
        "label_names": data["label_names"],
        "settings": asdict(settings),
        "trainable_parameters": trainable,
        "total_parameters": total_parameters,
        "trainable_fraction": trainable / total_parameters,
        "train_examples": len(train),
        "steps": stats.steps,
        "step_seconds": stats.step_seconds,
        "train_seconds": stats.train_seconds,
        "dev": dev,
        "model": str(cfg.model),
    }
    save_adapter(model.cpu(), out / "adapter", cfg.model, extra={"dev": dev, "step_seconds": stats.step_seconds})
    merged = merge_lora(model)
    merged.save_pretrained(out / "merged", tokenizer=tokenizer)
    results["adapter_bytes"] = (out / "adapter" / "adapter_model.safetensors").stat().st_size
    results["merged_bytes"] = (out / "merged" / "model.safetensors").stat().st_size
    write_results(out, results)
    return RunResult(model=merged, summary={"best": dev, "metric": data["metric"], **results})
