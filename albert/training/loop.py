"""The one training loop, run by both `albert.pretrain` and `albert.finetune` (as torchtitan's Trainer
and litgpt's `fit` serve every recipe).

A command says what is its own as a `Task`: the model and data it builds, one optimizer step's
forward and backward, its metrics rows, when it evaluates and checkpoints, and its summary. `fit`
does everything else, once: the process group and output directory, the optimizer and schedule,
exact resume (weights, optimizer, schedule, RNG and the task's position) with the wall time carried
over, DistributedDataParallel (re-wrapped when the trainable set changes) and torch.compile, gradient
clipping, the divergence check, training rows, checkpoints, `--stop-after-steps` and `--max-minutes`,
the summary file and cleanup.

    fit(cfg, PretrainingTask)  →  RunResult(model, summary)

One step of `fit`, after the task's `train_step` has run forward and backward:
    clip (or measure) the gradient norm → refuse a NaN/inf loss or norm (`DivergedError`, before the
    step changes the weights) → optimizer and schedule step → a training row every `log_every` steps →
    the task's evaluation (which may ask to stop) → a checkpoint when the task wants one or the run stops.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import torch
from torch import nn
from tqdm import tqdm

from albert.training.distributed import (
    Distributed,
    all_reduce_sum,
    check_workers,
    cleanup_distributed,
    start_run,
)
from albert.training.optim import OptimizerConfig, build_optimizer, build_scheduler
from albert.training.shared_noise import SharedNoise
from albert.training.state import (
    MetricsLog,
    check_output_folder,
    claim_output_dir,
    replace_earlier_work,
    resume_training_state,
    rng_state,
    save_training_state,
)

logger = logging.getLogger(__name__)


class DivergedError(ValueError):
    """Training whose loss (or gradient) became NaN or infinite; stopped before the weights took the step."""


@dataclass(kw_only=True)
class RunConfig:
    """The options every training command has; a command's config adds only its own fields."""

    output_dir: str = "runs/run"
    """Where the checkpoint, the metrics and the results go."""
    optim: OptimizerConfig = field(default_factory=OptimizerConfig)
    """Optimizer and schedule (--optim.*)."""
    precision: Literal["fp32", "bf16"] = "fp32"
    """bf16 autocast (GPU, recent CPUs) or fp32."""
    device: str = "auto"
    """auto (CUDA when present), cpu or cuda."""
    seed: int = 0
    """Seed of every random choice: initialisation, data order, masking or subsets, dropout."""
    threads: int = 0
    """CPU threads for torch (0: torch's default)."""
    data_workers: int = -1
    """Processes that make the batches beside the training step (DataLoader workers, prefetching; pinned memory
    on a GPU). 0: in the training process; -1: auto, the cores per training process less one, at most 8 (1 on a
    2-core machine). The batches are the same, in the same order, whatever the count."""
    log_every: int = 20
    """Training metrics row every N steps."""
    resume: bool = False
    """Continue from output_dir/checkpoint exactly: weights, optimizer, schedule, RNG and the run's own
    position (data order; best dev score and early-stopping count when fine-tuning). Refused when there
    is no complete checkpoint (see --resume-or-start)."""
    resume_or_start: bool = False
    """Resume when output_dir holds a complete checkpoint, else start a new run there (what a script that
    reruns one command after a kill wants; a checkpoint cut short while being written counts as none)."""
    overwrite: bool = False
    """Start a new run in an output_dir that holds an earlier run's checkpoint or final (best) model: they are
    removed (the log says which) once the model and data are ready. Without it such a folder is refused."""
    allow_unverified: bool = False
    """When resuming (--resume, --resume-or-start): accept a checkpoint that has no checksums.sha256 (written
    before ALBERT Lab recorded checksums, or with the manifest deleted). Its files are then loaded unchecked,
    so a damaged or altered byte in the weights or the optimizer state goes unnoticed."""
    stop_after_steps: int | None = None
    """Stop (checkpoint saved, resumable) after this step, keeping the planned schedule."""
    max_minutes: float | None = None
    """Stop (checkpoint saved, resumable) once this invocation has run this many minutes
    (a resumed run gets a fresh budget; its recorded wall time still adds up across runs)."""
    shared_noise_std: float = 0.0
    """While training only: add Gaussian noise of this std × each shared tensor's own RMS to the weights that
    several passes share, a fresh draw at every pass; never at evaluation, saved weights clean (0: off; see
    albert.training.shared_noise)."""

    def __post_init__(self) -> None:
        check_workers(self.data_workers)
        if self.log_every < 1:
            raise ValueError(f"log_every must be at least 1, got {self.log_every}.")
        if self.stop_after_steps is not None and self.stop_after_steps < 1:
            raise ValueError(f"stop_after_steps must be at least 1 when given, got {self.stop_after_steps}.")
        if self.overwrite and (self.resume or self.resume_or_start):
            raise ValueError("--overwrite starts a new run and --resume (-or-start) continues the old one; give one.")
        if self.resume and self.resume_or_start:
            raise ValueError(
                "give --resume (refused when there is no checkpoint) or --resume-or-start (starts then), not both."
            )
        if self.allow_unverified and not (self.resume or self.resume_or_start):
            raise ValueError("--allow-unverified only applies when resuming; add --resume or --resume-or-start.")
        if not 0 <= self.shared_noise_std <= 1:
            raise ValueError(
                f"shared_noise_std must be between 0 and 1 (a fraction of each RMS), got {self.shared_noise_std}."
            )
        check_output_folder(self.output_dir)  # a file there: refused with the other argument errors, before any work


@dataclass
class Run:
    """The running invocation: its processes, output directory and clocks."""

    dist: Distributed
    out: Path
    started: float
    """Start of the whole run: moved back by the time a resumed checkpoint had already run."""
    budget_started: float
    """Start of this invocation: `--max-minutes` counts from here."""
    metrics: MetricsLog | None = None
    """metrics.jsonl / metrics.csv (written by the main process), opened once the resume point is known."""

    @property
    def device(self) -> torch.device:
        return self.dist.device

    def elapsed(self) -> float:
        """Wall seconds of the whole run so far, resumed parts included."""
        return time.time() - self.started


@dataclass
class RunResult:
    model: nn.Module
    """The model as trained to the last step (this process's replica)."""
    summary: dict[str, Any]
    """Steps, wall time, devices, the task's results and the config (also written to the summary file)."""


class Task:
    """What a training command contributes to `fit`; the defaults are those of a task that needs nothing."""

    name = "train"
    """Label of the progress bar."""
    summary_name = "summary.json"
    """The run's summary file in output_dir."""
    metrics_columns: Sequence[str] = MetricsLog.COLUMNS
    """The columns of metrics.csv (metrics.jsonl keeps every key)."""
    compile = False
    """Wrap the model in torch.compile."""
    lr_scale: Callable[[str], float] | None = None
    """Learning-rate factor per parameter name (layer-wise decay), or None."""

    def __init__(self, run: Run, model: nn.Module, total_steps: int, tokenizer: Any) -> None:
        self.run, self.model, self.total_steps, self.tokenizer = run, model, total_steps, tokenizer
        self.postfix: dict[str, str] = {}
        """Shown after the loss on the progress bar."""

    def state(self) -> dict[str, Any]:
        """The task's part of a checkpoint (data position, best dev row, …)."""
        return {}

    def restore(self, state: dict[str, Any]) -> None:
        """Continue from a checkpoint's `state()`."""

    def before_step(self, step: int) -> bool:
        """Called before every step; True when the set of trainable parameters changed (DDP is rebuilt)."""
        return False

    def train_step(self, model: nn.Module, step: int) -> float | torch.Tensor:
        """Forward and backward for one optimizer step through `model` (the DDP/compiled wrapper); the loss, as a
        number or as a tensor still on the device (read once per step, with the gradient norm)."""
        raise NotImplementedError

    def train_row(self, step: int, lr: float, grad_norm: float, seconds: float) -> dict[str, Any]:
        """The task's columns of the training row after `step`, over the last `seconds` (since the previous row)."""
        raise NotImplementedError

    def evaluate(self, step: int) -> str | None:
        """Evaluate when due after `step`; a reason to stop the run (early stopping) or None."""
        return None

    def checkpoint_due(self, step: int) -> bool:
        """Whether to checkpoint after `step` (the loop also does whenever the run stops)."""
        return False

    def divergence_note(self, checkpoint_step: int | None) -> tuple[str, str]:
        """(what is kept, what to do) for the one-sentence message of a diverged run."""
        kept = (
            f"the last checkpoint, step {checkpoint_step}, is kept in {self.run.out / 'checkpoint'}"
            if checkpoint_step is not None
            else "no checkpoint had been saved yet"
        )
        return kept, "run again with a lower --optim.learning-rate (e.g. a tenth)"

    def finish(self, step: int, reason: str) -> dict[str, Any]:
        """After the last step (every process): the task's part of the summary."""
        return {}

    def complete(self, step: int, summary: dict[str, Any]) -> None:
        """Main process, once the summary is complete: the last files and reports (added to `summary`)."""


def fit(cfg: RunConfig, make_task: Callable[[Run], Task]) -> RunResult:
    """Train the task `make_task(run)` builds; returns the model and the summary (output_dir/summary file)."""
    started = time.time()
    # Decided before anything is written: a refused folder is left exactly as it was.
    resuming, replaced = claim_output_dir(Path(cfg.output_dir), cfg.resume, cfg.resume_or_start, cfg.overwrite)
    dist, out = start_run(cfg.device, cfg.threads, cfg.output_dir)
    run = Run(dist, out, started=started, budget_started=started)
    task = make_task(run)
    model, device = task.model, run.device
    if cfg.shared_noise_std and task.compile:
        raise ValueError(
            "--shared-noise-std swaps weights inside the forward pass, which torch.compile does not follow; "
            "drop --compile."
        )
    noise = SharedNoise(model, cfg.shared_noise_std)  # refuses a model without shared weights, before any write
    optimizer = build_optimizer(model, cfg.optim, device, task.lr_scale)
    scheduler = build_scheduler(optimizer, cfg.optim, task.total_steps)
    step, checkpoint_step = 0, None
    checkpoint_dir = out / "checkpoint"
    if resuming:
        state = resume_training_state(checkpoint_dir, model, optimizer, scheduler, cfg.allow_unverified)
        step = checkpoint_step = state["step"]
        task.restore(state)
        run.started -= state["elapsed_seconds"]
    else:  # only once the model and data are ready: a run that fails to start replaces nothing
        _start_fresh(cfg, run, replaced, task.summary_name)
    run.metrics = metrics = MetricsLog(
        out, enabled=dist.is_main, truncate_after_step=step if resuming else 0, columns=task.metrics_columns
    )

    def checkpoint() -> None:
        if dist.is_main:
            save_training_state(
                checkpoint_dir,
                model,
                {
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(),
                    "rng": rng_state(),
                    "step": step,
                    **task.state(),
                    "elapsed_seconds": run.elapsed(),
                },
                tokenizer=task.tokenizer,
            )
        dist.barrier()

    stop_at = min(task.total_steps, cfg.stop_after_steps or task.total_steps)
    progress = _Progress(task, step, enabled=dist.is_main)
    train_model: nn.Module | None = None
    window_start, reason = time.time(), "finished"
    model.train()
    with noise.active():  # the shared blocks see fresh noise at every training pass (no-op at std 0)
        while step < stop_at:
            if task.before_step(step) or train_model is None:  # the hook runs every step
                train_model = _wrap(model, dist, task.compile)
            loss = task.train_step(train_model, step)
            grad_norm = _refuse_divergence(
                loss,
                _gradient_norm(model, cfg.optim.max_grad_norm),
                step,
                max(scheduler.get_last_lr()),
                dist,
                task,
                checkpoint_step,
            )
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            if step % cfg.log_every == 0 or step == stop_at:
                row = task.train_row(
                    step, lr=max(scheduler.get_last_lr()), grad_norm=grad_norm, seconds=time.time() - window_start
                )
                metrics.write({"step": step, **row, "elapsed_seconds": run.elapsed()})
                window_start, progress.loss = time.time(), f"{row['loss']:.3f}"
            stop_reason = task.evaluate(step)
            progress.update()
            out_of_time = cfg.max_minutes is not None and time.time() - run.budget_started > cfg.max_minutes * 60
            stopping = bool(stop_reason) or out_of_time or step >= stop_at
            if stopping or task.checkpoint_due(step):
                checkpoint()
                checkpoint_step = step
            if stopping:
                reason = _stop_reason(stop_reason, step, task.total_steps, out_of_time, cfg.max_minutes)
                break
    progress.bar.close()
    summary = {
        "steps": step,
        "planned_steps": task.total_steps,
        **task.finish(step, reason),
        "wall_seconds": round(run.elapsed(), 1),
        "world_size": dist.world_size,
        "device": str(device),
        "config": jsonable(dataclasses.asdict(cfg)),
    }
    if dist.is_main:
        task.complete(step, summary)
        (out / task.summary_name).write_text(json.dumps(jsonable(summary), indent=2) + "\n")
    cleanup_distributed()
    return RunResult(model=model, summary=summary)


def _start_fresh(cfg: RunConfig, run: Run, replaced: list[Path], summary_name: str) -> None:
    """A new run's start: say so when --resume-or-start found nothing to resume, and remove the earlier run's
    products it replaces (with --overwrite, or what --resume-or-start starts over from), its summary file too."""
    if run.dist.is_main:
        if cfg.resume_or_start:
            logger.info("--resume-or-start: no complete checkpoint in %s, so a new run starts there", run.out)
        if replaced:
            reason = "--overwrite" if cfg.overwrite else "--resume-or-start"
            replace_earlier_work(run.out, [*replaced, run.out / summary_name], reason)
    run.dist.barrier()


class _Progress:
    """The progress bar: steps, then the last logged training loss and the task's own values (`Task.postfix`)."""

    def __init__(self, task: Task, initial: int, enabled: bool) -> None:
        self.task, self.loss = task, ""
        self.bar = tqdm(total=task.total_steps, initial=initial, disable=not enabled, desc=task.name, unit="step")
        self.shown: dict[str, str] = {}

    def update(self) -> None:
        self.bar.update(1)
        wanted = {"loss": self.loss, **self.task.postfix} if self.loss else dict(self.task.postfix)
        if wanted != self.shown:
            self.shown = wanted
            self.bar.set_postfix(wanted)


def _wrap(model: nn.Module, dist: Distributed, compile_model: bool) -> nn.Module:
    """DistributedDataParallel over several processes (it fixes the trainable set when built, hence a new
    wrapper whenever that set changes), then torch.compile when asked."""
    wrapped = model
    if dist.world_size > 1:
        wrapped = torch.nn.parallel.DistributedDataParallel(
            model, device_ids=[dist.local_rank] if dist.device.type == "cuda" else None
        )
    return torch.compile(wrapped) if compile_model else wrapped


def _gradient_norm(model: nn.Module, max_norm: float) -> torch.Tensor:
    """The global gradient norm (on the device: no host sync), clipped to `max_norm` when it is positive."""
    if max_norm > 0:
        return torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    return torch.nn.utils.get_total_norm([p.grad for p in model.parameters() if p.grad is not None])


def _refuse_divergence(
    loss: float | torch.Tensor,
    grad_norm: torch.Tensor,
    step: int,
    lr: float,
    dist: Distributed,
    task: Task,
    checkpoint_step: int | None,
) -> float:
    """Stop with one sentence when any process's loss or gradient norm is NaN or infinite: checked before
    the optimizer step, so the weights (and every checkpoint) keep their last finite values. The step's one
    read from the device: both values at once. Returns the gradient norm."""
    both = torch.stack([torch.as_tensor(loss, device=grad_norm.device).double(), grad_norm.double()])
    loss, grad_norm = both.tolist()
    diverged = torch.tensor([float(not (math.isfinite(loss) and math.isfinite(grad_norm)))])
    if all_reduce_sum(diverged, dist, dist.device).item():
        kept, advice = task.divergence_note(checkpoint_step)
        raise DivergedError(
            f"the training loss became {loss:.4g} (gradient norm {grad_norm:.4g}) at step {step + 1} "
            f"with learning rate {lr:.3g}, so the run stopped before that step changed the weights "
            f"({kept}); {advice}."
        )
    return grad_norm


def _stop_reason(task_reason: str | None, step: int, total: int, out_of_time: bool, max_minutes: float | None) -> str:
    if task_reason:
        return task_reason
    if step >= total:
        return "finished"
    if out_of_time:
        logger.info("time budget of %.1f minutes reached at step %d; resume with --resume", max_minutes, step)
    return "stopped early (resumable with --resume)"


def jsonable(value: Any) -> Any:
    """A JSON-safe copy: NaN (an undefined correlation) becomes null, tuples lists, paths and other objects strings."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    return value if isinstance(value, (int, float, str, bool, type(None))) else str(value)
