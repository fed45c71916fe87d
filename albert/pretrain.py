"""`python -m albert.pretrain`: pretrain ALBERT (MLM + SOP or NSP) on plain text.

    python -m albert.pretrain --corpus my_books.txt --output-dir runs/mine \\
        --model albert-base --model.hidden-size 256 --model.num-hidden-layers 6 --max-steps 2000

One process on a CPU or GPU, or `torchrun --nproc_per_node K -m albert.pretrain ...` with
DistributedDataParallel. Every option is a field of `PretrainConfig` (or of the nested
data / optimizer / model configs, as `--data.*`, `--optim.*`, `--model.*`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import torch
from tqdm import tqdm

from albert.cli import run_command
from albert.config import IGNORE_INDEX, PRESETS, AlbertConfig, ConfigError
from albert.data.corpus import TokenizedCorpus
from albert.data.pretraining import PretrainingDataConfig, PretrainingDataset, collate_pretraining, make_eval_batches
from albert.heads import AlbertForPreTraining
from albert.training.distributed import (
    Distributed,
    all_reduce_mean,
    all_reduce_sum,
    autocast,
    cleanup_distributed,
    epoch_order,
    start_run,
    unwrap,
)
from albert.training.optim import OptimizerConfig, build_optimizer, build_scheduler
from albert.training.state import MetricsLog, resume_training_state, rng_state, save_training_state

logger = logging.getLogger("albert.pretrain")


@dataclass
class PretrainConfig:
    """Pretrain an ALBERT with masked-LM and sentence-order (or next-sentence) prediction."""

    corpus: tuple[str, ...]
    """Training text: files (.txt, .xz, .gz; blank line between documents) or a `datasets` name."""
    output_dir: str = "runs/pretrain"
    """Where checkpoints, metrics and the final model go."""
    valid_corpus: tuple[str, ...] = ()
    """Held-out text for evaluation (other documents than training!); empty skips evaluation."""
    word_segmented: bool = False
    """The corpus files (--corpus and --valid-corpus) separate words by single spaces (as the .words.txt
    twins do): the spaces mark word boundaries for --data.whole-word-masking and are removed before
    tokenizing. Give --tokenizer too (one trained on the unsegmented text)."""
    model: str | None = None
    """A preset name (albert-base, bert-base, …) or a config.json path; `--model.*` flags override it
    (default albert-base; not with --init-from)."""
    model_overrides: dict[str, Any] = field(default_factory=dict,
                                            metadata={"overrides": AlbertConfig, "flag_prefix": "model"})
    """Fields of the model config to change, e.g. --model.hidden-size 256 --model.sharing none."""
    init_from: str | None = None
    """Continue pretraining a trained model: a from_pretrained directory (ALBERT Lab's or
    transformers') or hub id whose config, weights and tokenizer start the run — e.g. task-adaptive
    pretraining on a task's unlabelled text (`python -m albert.task_text`). A fresh optimizer and
    schedule; --model, --model.* and --tokenizer come from it and cannot be given."""
    tokenizer: str | None = None
    """Directory of an existing tokenizer; default: train a SentencePiece model on the corpus."""
    vocab_size: int = 16000
    """Vocabulary of the tokenizer trained when --tokenizer is not given."""
    cache_dir: str | None = None
    """Where tokenized corpora are cached (memory-mapped); default output_dir/cache. Share it between runs."""
    data: PretrainingDataConfig = field(default_factory=PretrainingDataConfig)
    """Example construction and masking (--data.*)."""
    optim: OptimizerConfig = field(default_factory=OptimizerConfig)
    """Optimizer and schedule (--optim.*)."""
    batch_size: int = 32
    """Sequences per step per process (before gradient accumulation)."""
    gradient_accumulation: int = 1
    """Micro-batches summed into each optimizer step."""
    max_steps: int = 1000
    """Optimizer steps planned; the schedule decays to zero here."""
    stop_after_steps: int | None = None
    """Stop early (checkpoint saved, resumable) after this step, keeping the planned schedule."""
    max_minutes: float | None = None
    """Stop (checkpoint saved, resumable) once this invocation has run this many minutes
    (a resumed run gets a fresh budget; its recorded wall time still adds up across runs)."""
    precision: Literal["fp32", "bf16"] = "fp32"
    """bf16 autocast (GPU, recent CPUs) or fp32."""
    compile: bool = False
    """Wrap the model in torch.compile."""
    device: str = "auto"
    """auto (CUDA when present), cpu or cuda."""
    seed: int = 0
    """Seed for initialisation, data order and masking."""
    log_every: int = 20
    """Training metrics row every N steps."""
    eval_every: int = 200
    """Held-out evaluation every N steps (and at the end)."""
    eval_examples: int = 512
    """Held-out examples per evaluation."""
    checkpoint_every: int = 500
    """Resumable checkpoint every N steps (and at the end)."""
    resume: bool = False
    """Continue from output_dir/checkpoint exactly (data order, RNG, optimizer, schedule)."""
    threads: int = 0
    """CPU threads for torch (0: torch's default)."""

    def __post_init__(self) -> None:
        if not self.corpus:
            raise ValueError("--corpus needs at least one text file (or a datasets name).")
        for name in ("batch_size", "gradient_accumulation", "max_steps", "log_every", "eval_every",
                     "checkpoint_every", "eval_examples"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}.")
        if self.init_from and (self.model or self.model_overrides or self.tokenizer):
            raise ValueError("--init-from takes the model and tokenizer from that directory; drop --model, "
                             "--model.* and --tokenizer.")
        if isinstance(self.data, dict):
            self.data = PretrainingDataConfig(**self.data)
        if isinstance(self.optim, dict):
            self.optim = OptimizerConfig(**self.optim)


def resolve_model_config(name: str, overrides: dict[str, Any], vocab_size: int, objective: str) -> AlbertConfig:
    """Preset or config.json, then overrides; vocabulary from the tokenizer."""
    if name in PRESETS:
        base = PRESETS[name]
    elif Path(name).exists():
        base = AlbertConfig.load(name)
    else:
        raise ConfigError(f"--model {name!r} is neither a preset ({', '.join(PRESETS)}) nor a config.json path.")
    return base.replace(**{**overrides, "vocab_size": vocab_size, "sentence_objective": objective})


class BatchStream:
    """Global batches in a seeded order per epoch, split across processes; its position is
    two integers (epoch, offset), so a resumed run continues with exactly the next batch."""

    def __init__(self, dataset: PretrainingDataset, batch_size: int, dist: Distributed, seed: int,
                 pad_id: int, epoch: int = 0, offset: int = 0):
        self.dataset, self.batch_size, self.dist, self.seed, self.pad_id = dataset, batch_size, dist, seed, pad_id
        self.epoch, self.offset = epoch, offset
        self._start_epoch(epoch)

    def _start_epoch(self, epoch: int) -> None:
        self.epoch = epoch
        self.dataset.set_epoch(epoch)
        self.order = epoch_order(len(self.dataset), self.seed, epoch)
        if len(self.order) < self.batch_size * self.dist.world_size:
            raise ValueError(f"The corpus gives only {len(self.order)} examples, fewer than one global batch "
                             f"({self.batch_size * self.dist.world_size}); use more text or a smaller batch.")

    def next(self) -> dict[str, torch.Tensor]:
        global_batch = self.batch_size * self.dist.world_size
        if self.offset + global_batch > len(self.order):
            self._start_epoch(self.epoch + 1)
            self.offset = 0
        start = self.offset + self.dist.rank * self.batch_size
        indices = self.order[start:start + self.batch_size]
        self.offset += global_batch
        return collate_pretraining([self.dataset[i] for i in indices], self.pad_id)


@torch.no_grad()
def evaluate(model: torch.nn.Module, batches: list[dict[str, torch.Tensor]], device: torch.device,
             precision: str) -> dict[str, float]:
    """Held-out MLM accuracy (every selected position is [MASK]) and sentence-pair accuracy."""
    model.eval()
    correct = total = pair_correct = pair_total = 0
    loss_sum = 0.0
    for batch in batches:
        batch = {k: v.to(device) for k, v in batch.items()}
        with autocast(device, precision):
            out = unwrap(model)(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"],
                                mlm_labels=batch["mlm_labels"], sentence_order_label=batch["sentence_order_label"])
        targets = batch["mlm_labels"][batch["mlm_labels"] != IGNORE_INDEX]
        correct += int((out.mlm_logits.argmax(-1) == targets).sum())
        total += targets.numel()
        if out.sop_logits is not None:
            pair_correct, pair_total = (a + b for a, b in zip(
                (pair_correct, pair_total), pair_counts(out.sop_logits, batch["sentence_order_label"]), strict=True))
        loss_sum += float(out.mlm_loss) * targets.numel()
    model.train()
    return {"mlm_accuracy": correct / max(1, total), "pair_accuracy": pair_correct / max(1, pair_total),
            "mlm_loss": loss_sum / max(1, total), "masked_positions": total, "pairs": pair_total}


def pair_counts(logits: torch.Tensor, labels: torch.Tensor) -> tuple[int, int]:
    """(correct, scored) sentence-pair predictions; examples without a pair label (IGNORE_INDEX) not scored."""
    scored = labels != IGNORE_INDEX
    return int((logits.argmax(-1)[scored] == labels[scored]).sum()), int(scored.sum())


def _load_or_train_tokenizer(cfg: PretrainConfig, out: Path, dist: Distributed):
    from albert.tokenizer import load_tokenizer, train_tokenizer

    if cfg.tokenizer:
        return load_tokenizer(cfg.tokenizer)
    directory = out / "tokenizer"
    if dist.is_main and not (directory / "spiece.model").exists():
        logger.info("training a %d-piece SentencePiece tokenizer on %s", cfg.vocab_size, ", ".join(cfg.corpus))
        train_tokenizer(list(cfg.corpus), directory, vocab_size=cfg.vocab_size, seed=cfg.seed)
    dist.barrier()
    return load_tokenizer(directory)


def _initial_model_and_tokenizer(cfg: PretrainConfig, out: Path, dist: Distributed):
    """A new model from --model (and a tokenizer, trained if needed), or a trained one from --init-from."""
    if cfg.init_from:
        from albert.checkpoint import resolve_directory
        from albert.tokenizer import load_tokenizer

        directory = resolve_directory(cfg.init_from)
        tokenizer = load_tokenizer(directory)
        model = AlbertForPreTraining.from_pretrained(directory, sentence_objective=cfg.data.objective)
        if len(tokenizer) > model.config.vocab_size:
            raise ConfigError(f"--init-from {cfg.init_from}: its tokenizer has {len(tokenizer)} pieces but the "
                              f"model only {model.config.vocab_size} token embeddings.")
        logger.info("continuing from the weights in %s", directory)
    else:
        tokenizer = _load_or_train_tokenizer(cfg, out, dist)
        model = AlbertForPreTraining(resolve_model_config(cfg.model or "albert-base", cfg.model_overrides,
                                                          len(tokenizer), cfg.data.objective))
    if model.config.max_position_embeddings < cfg.data.max_seq_length:
        source = f"--init-from {cfg.init_from}" if cfg.init_from else "the model"
        raise ConfigError(f"--data.max-seq-length {cfg.data.max_seq_length} exceeds the max_position_embeddings "
                          f"({model.config.max_position_embeddings}) of {source}.")
    return model, tokenizer  # run() switches it to training mode


def _build_corpus(paths: tuple[str, ...], tokenizer, cache_dir: Path, dist: Distributed,
                  word_segmented: bool = False) -> TokenizedCorpus:
    if dist.is_main:
        corpus = TokenizedCorpus.build(list(paths), tokenizer, cache_dir, word_segmented=word_segmented)
    dist.barrier()
    return corpus if dist.is_main else TokenizedCorpus.build(list(paths), tokenizer, cache_dir,
                                                              word_segmented=word_segmented)


@dataclass
class PretrainResult:
    model: AlbertForPreTraining
    """The trained model (this process's replica)."""
    summary: dict[str, Any]
    """Steps, tokens, wall time, hardware, last held-out metrics, the config (summary.json)."""


def run(cfg: PretrainConfig) -> PretrainResult:
    """Train; returns the model and the summary (also written to output_dir/summary.json)."""
    started = time.time()
    budget_started = started  # --max-minutes counts this invocation only; `started` also covers resumed time
    dist, out = start_run(cfg.device, cfg.threads, cfg.output_dir)
    device = dist.device
    torch.manual_seed(cfg.seed)
    model, tokenizer = _initial_model_and_tokenizer(cfg, out, dist)
    model = model.to(device)
    logger.info("model: %s parameters, %s", f"{sum(p.numel() for p in model.parameters()):,}", model.config)
    cache = Path(cfg.cache_dir) if cfg.cache_dir else out / "cache"
    corpus = _build_corpus(cfg.corpus, tokenizer, cache / "train", dist, cfg.word_segmented)

    eval_sets: dict[str, list[dict[str, torch.Tensor]]] = {}
    if cfg.valid_corpus:
        valid = _build_corpus(cfg.valid_corpus, tokenizer, cache / "valid", dist, cfg.word_segmented)
        # both, so an NSP model is also scored on SOP (Table 5); an MLM-only model needs only the SOP set,
        # whose masked positions every objective is scored on
        for objective in ("sop",) if cfg.data.objective == "none" else ("sop", "nsp"):
            # Held-out masks are piece (character) level whatever the run trains with, so that runs with
            # and without whole-word masking are scored on the same kind of blank.
            data_config = dataclasses.replace(cfg.data, objective=objective, seed=cfg.seed + 1,
                                              whole_word_masking=False)
            try:
                eval_sets[objective] = make_eval_batches(valid, data_config, tokenizer.pad_token_id,
                                                         cfg.eval_examples, batch_size=64)
            except ValueError as error:
                if objective in (cfg.data.objective, "sop"):
                    raise
                logger.warning("held-out %s evaluation skipped: %s", objective.upper(), error)

    dataset = PretrainingDataset(corpus, cfg.data, tokenizer)
    optimizer = build_optimizer(model, cfg.optim, device)
    scheduler = build_scheduler(optimizer, cfg.optim, cfg.max_steps)
    step, tokens_seen, epoch, offset = 0, 0, 0, 0
    checkpoint_dir = out / "checkpoint"
    if cfg.resume:
        state = resume_training_state(checkpoint_dir, model, optimizer, scheduler)
        step, tokens_seen, epoch, offset = state["step"], state["tokens"], state["epoch"], state["offset"]
        started -= state["elapsed_seconds"]
    stream = BatchStream(dataset, cfg.batch_size, dist, cfg.seed, tokenizer.pad_token_id, epoch, offset)
    metrics = MetricsLog(out, enabled=dist.is_main, truncate_after_step=step if cfg.resume else 0)

    train_model: torch.nn.Module = model
    if dist.world_size > 1:
        train_model = torch.nn.parallel.DistributedDataParallel(
            model, device_ids=[dist.local_rank] if device.type == "cuda" else None)
    if cfg.compile:
        train_model = torch.compile(train_model)
    train_model.train()

    def checkpoint() -> None:
        if dist.is_main:
            save_training_state(checkpoint_dir, model, {
                "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(), "rng": rng_state(),
                "step": step, "tokens": tokens_seen, "epoch": stream.epoch, "offset": stream.offset,
                "elapsed_seconds": time.time() - started}, tokenizer=tokenizer)
        dist.barrier()

    last_eval: dict[str, float] = {}

    def run_eval() -> None:
        nonlocal last_eval
        if not eval_sets or not dist.is_main:
            return
        row: dict[str, Any] = {"step": step, "tokens": tokens_seen, "split": "eval",
                               "elapsed_seconds": time.time() - started}
        for objective, batches in eval_sets.items():
            result = evaluate(model, batches, device, cfg.precision)
            if result["pairs"]:  # a model without a sentence head (objective "none") scores no pairs
                row[f"{objective}_accuracy"] = result["pair_accuracy"]
            if objective == "sop":  # one MLM set for every objective: the same held-out positions
                row.update(mlm_accuracy=result["mlm_accuracy"], mlm_loss=result["mlm_loss"])
        metrics.write(row)
        last_eval = row
        logger.info("eval step %d: MLM %.3f  SOP %.3f  NSP %.3f", step, row["mlm_accuracy"],
                    row.get("sop_accuracy", float("nan")), row.get("nsp_accuracy", float("nan")))

    stop_at = min(cfg.max_steps, cfg.stop_after_steps or cfg.max_steps)
    progress = tqdm(total=stop_at, initial=step, disable=not dist.is_main, desc="pretrain", unit="step")
    window_tokens, window_start = 0, time.time()
    while step < stop_at:
        sums = {"loss": 0.0, "mlm_loss": 0.0, "sop_loss": 0.0, "mlm_correct": 0.0, "mlm_total": 0.0,
                "sop_correct": 0.0, "sop_total": 0.0}
        micro_batches = [{k: v.to(device, non_blocking=True) for k, v in stream.next().items()}
                         for _ in range(cfg.gradient_accumulation)]
        # Normalise the MLM loss by the masked tokens of the whole global step (all micro-batches,
        # all processes), so accumulation and DDP give exactly the gradient of one big batch.
        counts = torch.tensor([sum(int((b["mlm_labels"] != IGNORE_INDEX).sum()) for b in micro_batches),
                               sum(int(b["attention_mask"].sum()) for b in micro_batches)], dtype=torch.float64)
        masked_global, tokens_global = all_reduce_sum(counts, dist, device).tolist()
        for micro, batch in enumerate(micro_batches):
            # DDP: all-reduce gradients only on the last micro-batch of the step
            skip_sync = micro < cfg.gradient_accumulation - 1 and hasattr(train_model, "no_sync")
            context = train_model.no_sync() if skip_sync else contextlib.nullcontext()
            targets = batch["mlm_labels"][batch["mlm_labels"] != IGNORE_INDEX]
            with context, autocast(device, cfg.precision):
                out_ = train_model(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"],
                                   mlm_labels=batch["mlm_labels"], sentence_order_label=batch["sentence_order_label"])
                # DDP averages gradients over processes, hence the world_size factor.
                mlm_part = out_.mlm_loss * targets.numel() * dist.world_size / max(masked_global, 1.0)
                pair_part = out_.sop_loss / cfg.gradient_accumulation if out_.sop_loss is not None else 0.0
                (mlm_part + pair_part).backward()
            sums["loss"] += out_.loss.item() / cfg.gradient_accumulation
            sums["mlm_loss"] += out_.mlm_loss.item() / cfg.gradient_accumulation
            if out_.sop_loss is not None:
                sums["sop_loss"] += out_.sop_loss.item() / cfg.gradient_accumulation
            sums["mlm_correct"] += float((out_.mlm_logits.argmax(-1) == targets).sum())
            sums["mlm_total"] += targets.numel()
            if out_.sop_logits is not None:
                pair_correct, pairs = pair_counts(out_.sop_logits, batch["sentence_order_label"])
                sums["sop_correct"] += pair_correct
                sums["sop_total"] += pairs
        window_tokens += int(tokens_global)
        tokens_seen += int(tokens_global)
        grad_norm = (torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.optim.max_grad_norm)
                     if cfg.optim.max_grad_norm > 0 else torch.tensor(0.0))
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        progress.update(1)
        if step % cfg.log_every == 0 or step == stop_at:
            averaged = all_reduce_mean(sums, dist, device)
            elapsed = time.time() - window_start
            row = {"step": step, "tokens": tokens_seen, "split": "train", "loss": averaged["loss"],
                   "mlm_loss": averaged["mlm_loss"],
                   "mlm_accuracy": averaged["mlm_correct"] / max(1.0, averaged["mlm_total"]),
                   "lr": scheduler.get_last_lr()[0], "tokens_per_second": window_tokens / max(elapsed, 1e-9),
                   "grad_norm": float(grad_norm), "elapsed_seconds": time.time() - started}
            if cfg.data.objective != "none":  # MLM only: no sentence-pair loss or accuracy to log
                row["sop_loss"] = averaged["sop_loss"]
                row[f"{cfg.data.objective}_accuracy"] = averaged["sop_correct"] / max(1.0, averaged["sop_total"])
            metrics.write(row)
            progress.set_postfix(loss=f"{row['loss']:.3f}", tok_s=f"{row['tokens_per_second']:.0f}")
            window_tokens, window_start = 0, time.time()
        if step % cfg.eval_every == 0:
            run_eval()
        out_of_time = cfg.max_minutes is not None and time.time() - budget_started > cfg.max_minutes * 60
        if step % cfg.checkpoint_every == 0 or step == stop_at or out_of_time:
            checkpoint()
        if out_of_time:
            logger.info("time budget of %.1f minutes reached at step %d; resume with --resume", cfg.max_minutes, step)
            break
    progress.close()
    if step % cfg.eval_every:
        run_eval()
    summary = {"steps": step, "planned_steps": cfg.max_steps, "tokens": tokens_seen,
               "wall_seconds": round(time.time() - started, 1),
               "parameters": sum(p.numel() for p in model.parameters()),
               "world_size": dist.world_size, "device": str(device), "hardware": _hardware(device),
               "held_out": last_eval, "config": _jsonable(dataclasses.asdict(cfg))}
    if dist.is_main and step >= cfg.max_steps:
        final = out / "final"
        model.save_pretrained(final, tokenizer=tokenizer)
        (final / "training_summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        logger.info("final model saved to %s", final)
    if dist.is_main:
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    cleanup_distributed()
    return PretrainResult(model=model, summary=summary)


def _hardware(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    name = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        models = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                  if line.startswith("model name")]
        name = models[0] if models else name
    return f"{name} ({os.cpu_count()} cores), torch using {torch.get_num_threads()} threads"


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def main(argv: list[str] | None = None) -> None:
    summary = run_command("albert.pretrain", PretrainConfig, run, (ConfigError, ValueError, FileNotFoundError), argv,
                          description=__doc__).summary
    if os.environ.get("RANK", "0") != "0":
        return  # the report comes from rank 0, which evaluated
    held_out = summary["held_out"]
    scores = ", ".join(f"{name} {held_out[key]:.3f}" for name, key in (
        ("MLM", "mlm_accuracy"), ("SOP", "sop_accuracy"), ("NSP", "nsp_accuracy")) if key in held_out)
    print(f"done: {summary['steps']} steps, {summary['tokens']:,} tokens in {summary['wall_seconds']:.0f}s; "
          f"held-out {scores or 'not evaluated (no --valid-corpus)'}")


if __name__ == "__main__":
    main()
