"""`python -m albert.finetune`: fine-tune an ALBERT for classification, regression or tagging.

    python -m albert.finetune --model runs/pretrain/final --train-file glue/SST-2/train.tsv \\
        --dev-file glue/SST-2/dev.tsv --output-dir runs/sst2 --label-names negative positive
    python -m albert.finetune --eval-only --model runs/sst2/best --dev-file glue/SST-2/dev.tsv --quantize

Data: GLUE TSV (header row), CSV, JSONL, `hf:NAME[:CONFIG]` datasets, CoNLL files for tagging
(see `albert.data.tasks`). The best dev checkpoint is `output_dir/best`, a `from_pretrained`
directory with the tokenizer and the label names. One process on CPU or GPU, or
`torchrun --nproc_per_node K -m albert.finetune ...`. Every option is a field of `FinetuneConfig`.
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import torch
from tqdm import tqdm

from albert.checkpoint import CheckpointError, load_config, resolve_directory
from albert.cli import run_command
from albert.config import AlbertConfig, ConfigError
from albert.data.labels import check_labels
from albert.data.tasks import DataError, collate, encode, label_vocabulary, read_records, subsample
from albert.heads import AlbertForSequenceClassification, AlbertForTokenClassification
from albert.training.distributed import (
    all_reduce_sum,
    autocast,
    cleanup_distributed,
    epoch_order,
    setup_distributed,
    start_run,
)
from albert.training.evaluate import DEFAULT_METRIC, METRICS, evaluate, format_report, is_better, quantization_report
from albert.training.layerwise import freeze_below, layer_decay_scale, unfrozen_from
from albert.training.optim import OptimizerConfig, build_optimizer, build_scheduler
from albert.training.state import (
    DivergedError,
    MetricsLog,
    replace_directory,
    resume_training_state,
    rng_state,
    save_training_state,
)

logger = logging.getLogger("albert.finetune")
COLUMNS = ("step", "epoch", "split", "loss", "accuracy", "f1", "matthews", "pearson", "spearman", "mse", "lr",
           "examples_per_second", "trainable_tensors", "elapsed_seconds")


@dataclass
class FinetuneConfig:
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
    precision: Literal["fp32", "bf16"] = "fp32"
    """bf16 autocast (GPU, recent CPUs) or fp32."""
    device: str = "auto"
    """auto (CUDA when present), cpu or cuda."""
    seed: int = 0
    """Seed for the head's initialisation, data order, subsets and dropout."""
    threads: int = 0
    """CPU threads for torch (0: torch's default)."""
    log_every: int = 20
    """Training metrics row every N steps."""
    resume: bool = False
    """Continue from output_dir/checkpoint exactly (data order, RNG, optimizer, schedule, early stopping)."""
    stop_after_steps: int | None = None
    """Stop (checkpoint saved, resumable) after this step, keeping the planned schedule."""
    max_minutes: float | None = None
    """Stop (checkpoint saved, resumable) once this invocation has run this many minutes
    (a resumed run gets a fresh budget; its recorded wall time still adds up across runs)."""

    def __post_init__(self) -> None:
        if isinstance(self.optim, dict):
            self.optim = OptimizerConfig(**{**asdict(_default_optim()), **self.optim})
        if not self.eval_only and not self.train_file:
            raise ValueError("--train-file is needed to fine-tune (or pass --eval-only with --dev-file).")
        if self.eval_only and not self.dev_file:
            raise ValueError("--eval-only needs --dev-file, the labelled data to evaluate on.")
        for name in ("max_seq_length", "epochs", "batch_size", "eval_batch_size", "log_every", "latency_rounds"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}.")
        for name in ("max_train_examples", "max_dev_examples", "stop_after_steps"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1 when given, got {getattr(self, name)}.")
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
            raise ValueError(f"metric {self.metric!r} does not apply to {self.task}; use one of "
                             f"{', '.join(METRICS[self.task])}.")


def _default_optim() -> OptimizerConfig:
    return FinetuneConfig.__dataclass_fields__["optim"].default_factory()  # type: ignore[misc]


@dataclass
class FinetuneResult:
    model: torch.nn.Module
    """The model as trained to the last step (the best one is in output_dir/best)."""
    summary: dict[str, Any]
    """Task, best dev metrics, history, steps, wall time, quantization report (results.json)."""


def model_class(task: str) -> type:
    return AlbertForTokenClassification if task == "token" else AlbertForSequenceClassification


def task_of_config(config: AlbertConfig) -> str:
    """The task a fine-tuned checkpoint was trained for, from its config.json."""
    architecture = (config.extra.get("architectures") or [""])[0]
    if architecture == "AlbertForTokenClassification":
        return "token"
    return "regression" if config.num_labels == 1 else "classification"


def _label_maps(config: AlbertConfig) -> tuple[list[str], dict[str, int]]:
    """Label names of a checkpoint and the file values they stand for (label2id, plus values renamed
    with --label-names, which are kept as `task_label_values`)."""
    names = [str(config.extra.get("id2label", {}).get(str(i), i)) for i in range(config.num_labels)]
    values = config.extra.get("task_label_values") or names
    return names, {**{str(v): i for i, v in enumerate(values)}, **{n: i for i, n in enumerate(names)}}


def _load_data(cfg: FinetuneConfig, tokenizer: Any, known: AlbertConfig | None) -> dict[str, Any]:
    """Read, check and encode train/dev data; labels come from the training data (or `known`'s config)."""
    dev_split = "validation"
    train = read_records(cfg.train_file, cfg.task, cfg.text_column, cfg.text_pair_column, cfg.label_column) \
        if cfg.train_file else None
    dev = read_records(cfg.dev_file, cfg.task, cfg.text_column, cfg.text_pair_column, cfg.label_column,
                       split=dev_split) if cfg.dev_file else None
    if known is not None:
        task = cfg.task if cfg.task != "auto" else task_of_config(known)
    else:  # labels of one kind, no NaN, no stray class (albert.data.labels)
        task = check_labels(train or dev, cfg.task, cfg.label_names)
    names: list[str] = []
    values: list[str] = []
    label2id: dict[str, int] = {}
    if known is not None and task != "regression":
        names, label2id = _label_maps(known)
    elif known is None and task != "regression":
        values = label_vocabulary(train)
        if cfg.label_names and len(cfg.label_names) != len(values):
            raise DataError(f"--label-names gives {len(cfg.label_names)} names, but {cfg.train_file} has "
                            f"{len(values)} labels ({', '.join(values)}).")
        names, label2id = list(cfg.label_names) or values, {v: i for i, v in enumerate(values)}
    metric = cfg.metric if cfg.metric != "auto" else DEFAULT_METRIC[task]
    if metric not in METRICS[task]:
        raise ValueError(f"metric {metric!r} does not apply to {task}; use one of {', '.join(METRICS[task])}.")
    train = subsample(train, cfg.max_train_examples, cfg.seed) if train else None
    dev = subsample(dev, cfg.max_dev_examples, cfg.seed + 1) if dev else None
    encoded = {name: encode(records, tokenizer, task, cfg.max_seq_length, label2id) if records else None
               for name, records in (("train", train), ("dev", dev))}
    return {"task": task, "label_names": names, "label_values": values, "metric": metric, **encoded}


def _build_model(cfg: FinetuneConfig, directory: Path, data: dict[str, Any]) -> torch.nn.Module:
    base = load_config(directory)
    names = data["label_names"]
    extra = {k: v for k, v in base.extra.items() if k not in ("architectures", "task_label_values")}
    extra.update(id2label={str(i): n for i, n in enumerate(names or ["score"])},
                 label2id={n: i for i, n in enumerate(names or ["score"])},
                 problem_type="regression" if data["task"] == "regression" else "single_label_classification")
    if names and data["label_values"] != names:
        extra["task_label_values"] = data["label_values"]  # file values, when renamed by --label-names
    changes: dict[str, Any] = {"num_labels": max(1, len(names)), "extra": extra}
    if cfg.classifier_dropout is not None:
        changes["classifier_dropout_prob"] = cfg.classifier_dropout
    config = base.replace(**changes)
    if cfg.max_seq_length > config.max_position_embeddings:
        raise ConfigError(f"--max-seq-length {cfg.max_seq_length} exceeds the model's max_position_embeddings "
                          f"({config.max_position_embeddings}).")
    torch.manual_seed(cfg.seed)  # the new head's initialisation
    cls = model_class(data["task"])
    return cls(config) if cfg.from_scratch else cls.from_pretrained(directory, **changes)


def run(cfg: FinetuneConfig) -> FinetuneResult:
    """Fine-tune (or, with eval_only, evaluate); returns the model and the summary (results.json)."""
    from albert.tokenizer import load_tokenizer

    started = time.time()
    budget_started = started  # --max-minutes counts this invocation only; `started` also covers resumed time
    dist, out = start_run(cfg.device, cfg.threads, cfg.output_dir)
    device = dist.device
    directory = resolve_directory(cfg.model)
    tokenizer = load_tokenizer(cfg.tokenizer or directory)
    pad_id = tokenizer.pad_token_id
    if cfg.eval_only:
        return _evaluate_only(cfg, directory, tokenizer, out)
    data = _load_data(cfg, tokenizer, None)
    task, names, metric, train, dev = data["task"], data["label_names"], data["metric"], data["train"], data["dev"]
    model = _build_model(cfg, directory, data).to(device)
    logger.info("%s: %d training and %d dev examples, %s labels, %s parameters%s", task, len(train),
                len(dev or []), len(names) or "no", f"{sum(p.numel() for p in model.parameters()):,}",
                " (random initialisation)" if cfg.from_scratch else "")

    global_batch = cfg.batch_size * dist.world_size
    steps_per_epoch = math.ceil(len(train) / global_batch)
    total = cfg.epochs * steps_per_epoch
    optimizer = build_optimizer(model, cfg.optim, device,
                                layer_decay_scale(model.config, cfg.layer_decay) if cfg.layer_decay < 1 else None)
    scheduler = build_scheduler(optimizer, cfg.optim, total)
    unfreeze_steps = max(1, round(cfg.unfreeze_every * steps_per_epoch)) if cfg.unfreeze_every else 0
    step, bad_evals, history = 0, 0, []
    best: dict[str, Any] | None = None  # the dev row of the best checkpoint
    checkpoint_dir, best_dir = out / "checkpoint", out / "best"
    if cfg.resume:
        state = resume_training_state(checkpoint_dir, model, optimizer, scheduler)
        step, best, bad_evals, history = state["step"], state["best"], state["bad_evals"], state["history"]
        started -= state["elapsed_seconds"]
    metrics_log = MetricsLog(out, enabled=dist.is_main, truncate_after_step=step if cfg.resume else 0, columns=COLUMNS)

    lowest: int | None = None
    train_model: torch.nn.Module = model

    def wrap() -> torch.nn.Module:
        # DDP fixes the set of trainable parameters when it is built, so gradual unfreezing builds
        # a new wrapper each time that set changes (a handful of times per run).
        if dist.world_size == 1:
            return model
        return torch.nn.parallel.DistributedDataParallel(
            model, device_ids=[dist.local_rank] if device.type == "cuda" else None)

    def save_checkpoint() -> None:
        if dist.is_main:
            save_training_state(checkpoint_dir, model, {
                "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(), "rng": rng_state(),
                "step": step, "best": best, "bad_evals": bad_evals, "history": history,
                "elapsed_seconds": time.time() - started}, tokenizer=tokenizer)
        dist.barrier()

    def save_best(row: dict[str, Any]) -> None:
        def write(temp: Path) -> None:
            model.save_pretrained(temp, tokenizer=tokenizer)
            (temp / "eval_results.json").write_text(json.dumps(_jsonable(row), indent=2) + "\n")

        if dist.is_main:
            replace_directory(best_dir, write)

    progress = tqdm(total=total, initial=step, disable=not dist.is_main, desc=f"finetune {task}", unit="step")
    window = {"loss": 0.0, "steps": 0, "examples": 0, "start": time.time()}
    postfix: dict[str, str] = {}
    stop_reason = "finished"
    model.train()
    while step < total:
        epoch, index = divmod(step, steps_per_epoch)
        if unfreeze_steps and lowest != unfrozen_from(model.config, step, unfreeze_steps):
            lowest = unfrozen_from(model.config, step, unfreeze_steps)
            trainable = freeze_below(model, model.config, lowest)
            train_model = wrap()
            logger.info("step %d: training depth %d and up (%d tensors)", step, lowest, trainable)
        elif train_model is model and dist.world_size > 1:
            train_model = wrap()
        order = epoch_order(len(train), cfg.seed, epoch)
        chunk = order[index * global_batch:(index + 1) * global_batch]
        share = math.ceil(len(chunk) / dist.world_size)
        mine = [train[i] for i in (chunk + chunk)[dist.rank * share:(dist.rank + 1) * share]]  # pads the last
        batch = {k: v.to(device, non_blocking=True) for k, v in collate(mine, pad_id).items()}
        with autocast(device, cfg.precision):
            loss = train_model(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"],
                               labels=batch["labels"]).loss
        loss.backward()
        if cfg.optim.max_grad_norm > 0:
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.optim.max_grad_norm)
        else:
            grad_norm = torch.nn.utils.get_total_norm([p.grad for p in model.parameters() if p.grad is not None])
        # Checked before the step changes the weights: a diverged run keeps its last good checkpoints.
        diverged = torch.tensor([float(not (torch.isfinite(loss.detach()) and torch.isfinite(grad_norm)))])
        if all_reduce_sum(diverged, dist, device).item():
            raise DivergedError(f"the training loss became {loss.item():.4g} (gradient norm {grad_norm.item():.4g}) at "
                                f"step {step + 1} with learning rate {max(scheduler.get_last_lr()):.3g}, so the run "
                                f"stopped before that step changed the weights ({_kept(best_dir)}); fine-tune again "
                                "with a lower --optim.learning-rate (e.g. a tenth) or check the scale of the labels.")
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        progress.update(1)
        window["loss"] += loss.detach().item()
        window["steps"] += 1
        window["examples"] += len(chunk)
        if step % cfg.log_every == 0 or step == total:
            elapsed = time.time() - window["start"]
            row = {"step": step, "epoch": step / steps_per_epoch, "split": "train",
                   "loss": window["loss"] / window["steps"], "lr": max(scheduler.get_last_lr()),
                   "examples_per_second": window["examples"] / max(elapsed, 1e-9),
                   "trainable_tensors": sum(p.requires_grad for p in model.parameters()),
                   "elapsed_seconds": time.time() - started}
            metrics_log.write(row)
            postfix["loss"] = f"{row['loss']:.3f}"
            progress.set_postfix(postfix)
            window = {"loss": 0.0, "steps": 0, "examples": 0, "start": time.time()}
        at_eval = (step % cfg.eval_every == 0 if cfg.eval_every else step % steps_per_epoch == 0) or step == total
        if at_eval:
            if dev:
                # Every process evaluates the whole dev set (identical weights, identical result),
                # so all of them take the same early-stopping decision without communicating.
                row = {"step": step, "epoch": step / steps_per_epoch, "split": "dev", "elapsed_seconds":
                       time.time() - started, **evaluate(model, dev, task, names, cfg.eval_batch_size, device,
                                                         cfg.precision, pad_id)}
                history.append(row)
                metrics_log.write(row)
                postfix[f"dev_{metric}"] = f"{row[metric]:.4f}"
                progress.set_postfix(postfix)
                logger.info("dev step %d: %s", step, ", ".join(f"{k} {row[k]:.4f}" for k in METRICS[task]))
                if is_better(row[metric], best[metric] if best else None, metric):
                    best, bad_evals = row, 0
                    save_best(row)
                else:
                    bad_evals += 1
            save_checkpoint()
            if cfg.patience and bad_evals >= cfg.patience:
                stop_reason = f"early stopping: no better dev {metric} in {bad_evals} evaluations"
                logger.info("%s; stopping at step %d", stop_reason, step)
                break
        out_of_time = cfg.max_minutes is not None and time.time() - budget_started > cfg.max_minutes * 60
        if (cfg.stop_after_steps and step >= cfg.stop_after_steps) or out_of_time:
            if not at_eval:
                save_checkpoint()
            stop_reason = "stopped early (resumable with --resume)"
            break
    progress.close()
    if not dev and dist.is_main and stop_reason == "finished":
        logger.warning("no --dev-file: the last model is saved as %s, unselected", best_dir)
        save_best({"step": step})
    summary: dict[str, Any] = {
        "task": task, "metric": metric, "label_names": names, "train_examples": len(train),
        "dev_examples": len(dev or []), "steps": step, "planned_steps": total, "stop_reason": stop_reason,
        "from_scratch": cfg.from_scratch, "wall_seconds": round(time.time() - started, 1),
        "best": best, "history": history, "world_size": dist.world_size, "device": str(device),
        "config": _jsonable(asdict(cfg))}
    if cfg.quantize and dev and dist.is_main and best_dir.exists():
        best_model = type(model).from_pretrained(best_dir)
        summary["quantized"] = quantization_report(best_model, dev, task, names, summary["best"],
                                                   cfg.eval_batch_size, pad_id, cfg.latency_rounds)
    if dist.is_main:
        (out / "results.json").write_text(json.dumps(_jsonable(summary), indent=2) + "\n")
    cleanup_distributed()
    return FinetuneResult(model=model, summary=summary)


def _evaluate_only(cfg: FinetuneConfig, directory: Path, tokenizer: Any, out: Path) -> FinetuneResult:
    config = load_config(directory)
    task = cfg.task if cfg.task != "auto" else task_of_config(config)
    if cfg.task != "auto" and cfg.task != task_of_config(config):
        raise ConfigError(f"{directory} holds a {task_of_config(config)} model, not {cfg.task}.")
    data = _load_data(cfg, tokenizer, config)
    model = model_class(task).from_pretrained(directory)
    device = torch.device("cpu") if cfg.quantize else setup_distributed(cfg.device).device
    started = time.time()
    metrics = evaluate(model.to(device), data["dev"], task, data["label_names"], cfg.eval_batch_size, device,
                       cfg.precision, tokenizer.pad_token_id)
    summary: dict[str, Any] = {"task": task, "metric": data["metric"], "label_names": data["label_names"],
                               "dev_examples": len(data["dev"]), "best": metrics,
                               "wall_seconds": round(time.time() - started, 1), "model": str(directory)}
    if cfg.quantize:
        summary["quantized"] = quantization_report(model, data["dev"], task, data["label_names"], metrics,
                                                   cfg.eval_batch_size, tokenizer.pad_token_id, cfg.latency_rounds)
    (out / "eval_results.json").write_text(json.dumps(_jsonable(summary), indent=2) + "\n")
    return FinetuneResult(model=model, summary=summary)


def _kept(best_dir: Path) -> str:
    if (best_dir / "eval_results.json").is_file():
        step = json.loads((best_dir / "eval_results.json").read_text()).get("step")
        return f"the best model so far, step {step}, is kept in {best_dir}"
    return "no best model had been saved yet"


def _jsonable(value: Any) -> Any:
    """JSON-safe copy: NaN (an undefined correlation) becomes null, paths become strings."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    return value if isinstance(value, (int, float, str, bool, type(None))) else str(value)


def main(argv: list[str] | None = None) -> None:
    errors = (ConfigError, CheckpointError, DataError, ValueError, FileNotFoundError)
    summary = run_command("albert.finetune", FinetuneConfig, run, errors, argv, description=__doc__).summary
    if int(os.environ.get("RANK", "0")) == 0:  # one report, not one per torchrun process
        print(format_report(summary))


if __name__ == "__main__":
    main()
