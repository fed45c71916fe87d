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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import torch

from albert.cli import run_command
from albert.core.config import IGNORE_INDEX, PRESETS, AlbertConfig, ConfigError
from albert.core.heads import AlbertForPreTraining
from albert.data.corpus import TokenizedCorpus
from albert.data.pretraining_examples import PretrainingDataConfig, PretrainingDataset
from albert.training.batch_stream import BatchStream, resolve_workers
from albert.training.distributed import Distributed, all_reduce_mean, all_reduce_sum, autocast, unwrap
from albert.training.fresh_start import apply_fresh_starts, unigram_log_shares
from albert.training.loop import Run, RunConfig, RunResult, Task, fit, jsonable
from albert.training.optim import OptimizerConfig
from albert.training.order_scoring import score_id_pairs
from albert.training.pretraining_evaluation import evaluate, held_out_sets, probe_guesses
from albert.training.state import check_output_folder

logger = logging.getLogger("albert.pretrain")
DEFAULT_VOCAB_SIZE = 16000  # pieces of the tokenizer trained on the corpus when --vocab-size is not given


@dataclass(kw_only=True)
class PretrainConfig(RunConfig):
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
    model_overrides: dict[str, Any] = field(
        default_factory=dict, metadata={"overrides": AlbertConfig, "flag_prefix": "model"}
    )
    """Fields of the model config to change, e.g. --model.hidden-size 256 --model.sharing none. The sentence
    objective is the data's: --model.sentence-objective, when given, sets --data.objective (and must agree
    with it when both are given)."""
    init_from: str | None = None
    """Continue pretraining a trained model: a from_pretrained directory (ALBERT Lab's or
    transformers') or hub id whose config, weights and tokenizer start the run — e.g. task-adaptive
    pretraining on a task's unlabelled text (`python -m albert.task_text`). A fresh optimizer and
    schedule; --model, --model.* and --tokenizer come from it and cannot be given."""
    tokenizer: str | None = None
    """Directory of an existing tokenizer; default: train a SentencePiece model on the corpus."""
    vocab_size: int | None = None
    """Vocabulary of the tokenizer trained on the corpus (default 16000); not with --tokenizer or --init-from,
    whose tokenizer brings its own."""
    cache_dir: str | None = None
    """Where tokenized corpora are cached (memory-mapped); default output_dir/cache. Share it between runs."""
    data: PretrainingDataConfig = field(default_factory=PretrainingDataConfig)
    """Example construction and masking (--data.*)."""
    batch_size: int = 32
    """Sequences per step per process (before gradient accumulation)."""
    gradient_accumulation: int = 1
    """Micro-batches summed into each optimizer step."""
    max_steps: int = 1000
    """Optimizer steps planned; the schedule decays to zero here."""
    compile: bool = False
    """Wrap the model in torch.compile."""
    eval_every: int = 200
    """Held-out evaluation every N steps (and at the end)."""
    eval_examples: int = 512
    """Held-out examples per evaluation."""
    checkpoint_every: int = 500
    """Resumable checkpoint every N steps (and at the end)."""
    sentence_loss_weight: float = 1.0
    """Weight of the SOP/NSP loss in the gradient (the paper adds the two losses: 1). A larger weight asks the
    shared layers for more of the sentence-pair signal; the logged `loss` stays MLM + sentence loss."""
    output_bias: Literal["unigram", "zero"] = "unigram"
    """How a fresh model's MLM decoder bias starts: "unigram" sets it to the log of each piece's share of the
    training text (add-one smoothed), so the first steps need not learn the unigram; "zero" is BERT's. With "zero",
    a fresh 12-pass model pushed its encoder into giving every position the same vector while it learned the unigram
    (a rank collapse) and stayed on the plateau (docs/results/pretraining-recipe.md). Ignored with --init-from (a
    trained model keeps its own)."""
    residual_init: Literal["standard", "scaled"] = "standard"
    """How a fresh model's residual branches start: "scaled" shrinks the attention output and FFN down projections
    by 1/√(2 · passes) (GPT-2's start for deep stacks), "standard" is BERT's. Ignored with --init-from."""
    position_init: Literal["normal", "sinusoidal"] = "normal"
    """How a fresh model's position embeddings start: "sinusoidal" (the Transformer's, at the initializer range's
    spread) or "normal" (BERT's). Ignored with --init-from."""
    attention_init: Literal["standard", "mimetic"] = "standard"
    """How a fresh model's attention starts: "mimetic" (Trockman & Kolter 2023: query-key near +I, value-output near
    −I) or "standard" (BERT's). Ignored with --init-from."""
    probe: str = ""
    """A sentence with [MASK] in it (needs --valid-corpus): every held-out evaluation row also holds the model's
    five most likely pieces for its first [MASK] (`probe`: [piece, probability] pairs), to watch a run learn."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.corpus:
            raise ValueError("--corpus needs at least one text file (or a datasets name).")
        for name in (
            "batch_size",
            "gradient_accumulation",
            "max_steps",
            "eval_every",
            "checkpoint_every",
            "eval_examples",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}.")
        if not 0 <= self.sentence_loss_weight <= 100:
            raise ValueError(f"sentence_loss_weight must be between 0 and 100, got {self.sentence_loss_weight}.")
        if self.probe and "[MASK]" not in self.probe:
            raise ValueError(f"--probe needs a [MASK] in it, got {self.probe!r}.")
        if self.init_from and (self.model or self.model_overrides or self.tokenizer):
            raise ValueError(
                "--init-from takes the model and tokenizer from that directory; drop --model, "
                "--model.* and --tokenizer."
            )
        if self.vocab_size is not None and (self.tokenizer or self.init_from):
            raise ValueError(
                "--vocab-size sizes the tokenizer trained on the corpus, but "
                f"{'--tokenizer' if self.tokenizer else '--init-from'} brings a tokenizer with its own vocabulary "
                "(the model takes its size); drop --vocab-size."
            )
        if self.cache_dir:
            check_output_folder(self.cache_dir, "--cache-dir")
        if isinstance(self.data, dict):
            self.data = PretrainingDataConfig(**self.data)
        if isinstance(self.optim, dict):
            self.optim = OptimizerConfig(**self.optim)
        self._one_sentence_objective()

    def _one_sentence_objective(self) -> None:
        """The run's sentence objective is `data.objective`; the model's `sentence_objective` is set from it.
        `--model.sentence-objective` alone sets it too; given with a different `--data.objective`, it is refused."""
        objective = self.model_overrides.get("sentence_objective")
        if objective is None:
            return
        self.model_overrides = {k: v for k, v in self.model_overrides.items() if k != "sentence_objective"}
        if objective == self.data.objective:
            return
        if self.data.objective != PretrainingDataConfig.objective:
            raise ConfigError(
                f"--model.sentence-objective {objective} disagrees with --data.objective "
                f"{self.data.objective}; give the objective once, as --data.objective.",
                code="objective_conflict",
                model=objective,
                data=self.data.objective,
            )
        self.data = dataclasses.replace(self.data, objective=objective)


def resolve_model_config(name: str, overrides: dict[str, Any], vocab_size: int, objective: str) -> AlbertConfig:
    """Preset or config.json, then overrides; vocabulary from the tokenizer."""
    if name in PRESETS:
        base = PRESETS[name]
    elif Path(name).exists():
        base = AlbertConfig.load(name)
    else:
        raise ConfigError(f"--model {name!r} is neither a preset ({', '.join(PRESETS)}) nor a config.json path.")
    return base.replace(**{**overrides, "vocab_size": vocab_size, "sentence_objective": objective})


def _load_or_train_tokenizer(cfg: PretrainConfig, out: Path, dist: Distributed):
    from albert.data.tokenizer import load_tokenizer, train_tokenizer

    if cfg.tokenizer:
        return load_tokenizer(cfg.tokenizer)
    directory = out / "tokenizer"
    vocab_size = DEFAULT_VOCAB_SIZE if cfg.vocab_size is None else cfg.vocab_size
    if dist.is_main and not (directory / "spiece.model").exists():
        logger.info("training a %d-piece SentencePiece tokenizer on %s", vocab_size, ", ".join(cfg.corpus))
        train_tokenizer(list(cfg.corpus), directory, vocab_size=vocab_size, seed=cfg.seed)
    dist.barrier()
    return load_tokenizer(directory)


def _initial_model_and_tokenizer(cfg: PretrainConfig, out: Path, dist: Distributed):
    """A new model from --model (and a tokenizer, trained if needed), or a trained one from --init-from."""
    if cfg.init_from:
        from albert.core.checkpoint import resolve_directory
        from albert.data.tokenizer import load_tokenizer

        directory = resolve_directory(cfg.init_from)
        tokenizer = load_tokenizer(directory)
        model = AlbertForPreTraining.from_pretrained(directory, sentence_objective=cfg.data.objective)
        if len(tokenizer) > model.config.vocab_size:
            raise ConfigError(
                f"--init-from {cfg.init_from}: its tokenizer has {len(tokenizer)} pieces but the "
                f"model only {model.config.vocab_size} token embeddings."
            )
        logger.info("continuing from the weights in %s", directory)
    else:
        tokenizer = _load_or_train_tokenizer(cfg, out, dist)
        model = AlbertForPreTraining(
            resolve_model_config(cfg.model or "albert-base", cfg.model_overrides, len(tokenizer), cfg.data.objective)
        )
    if model.config.max_position_embeddings < cfg.data.max_seq_length:
        source = f"--init-from {cfg.init_from}" if cfg.init_from else "the model"
        raise ConfigError(
            f"--data.max-seq-length {cfg.data.max_seq_length} exceeds the max_position_embeddings "
            f"({model.config.max_position_embeddings}) of {source}."
        )
    return model, tokenizer  # run() switches it to training mode


def _build_corpus(
    paths: tuple[str, ...], tokenizer, cache_dir: Path, dist: Distributed, word_segmented: bool = False
) -> TokenizedCorpus:
    if dist.is_main:
        corpus = TokenizedCorpus.build(list(paths), tokenizer, cache_dir, word_segmented=word_segmented)
    dist.barrier()
    return (
        corpus
        if dist.is_main
        else TokenizedCorpus.build(list(paths), tokenizer, cache_dir, word_segmented=word_segmented)
    )


EXAMPLE_LOSSES_KEPT = 512
"""A held-out evaluation of at most this many examples writes each example's loss (and the frequency guess's) into its
row, so that two runs on the same blanks can be compared with an interval (the lessons: 64); a larger one writes the
means alone."""
_SUMS = ("steps", "loss", "mlm_loss", "sop_loss", "mlm_correct", "mlm_total", "sop_correct", "sop_total")


class PretrainingTask(Task):
    """Masked LM plus SOP/NSP on a tokenized corpus: what `fit` needs from pretraining."""

    name = "pretrain"

    def __init__(self, cfg: PretrainConfig, run: Run) -> None:
        dist = run.dist
        torch.manual_seed(cfg.seed)
        model, tokenizer = _initial_model_and_tokenizer(cfg, run.out, dist)
        model = model.to(run.device)
        logger.info("model: %s parameters, %s", f"{sum(p.numel() for p in model.parameters()):,}", model.config)
        super().__init__(run, model, cfg.max_steps, tokenizer)
        self.cfg, self.compile = cfg, cfg.compile
        cache = Path(cfg.cache_dir) if cfg.cache_dir else run.out / "cache"
        corpus = _build_corpus(cfg.corpus, tokenizer, cache / "train", dist, cfg.word_segmented)
        self.held_out = (
            held_out_sets(
                cfg.data,
                cfg.seed,
                cfg.eval_examples,
                _build_corpus(cfg.valid_corpus, tokenizer, cache / "valid", dist, cfg.word_segmented),
                tokenizer,
            )
            if cfg.valid_corpus
            else None
        )
        self.frequency = torch.from_numpy(unigram_log_shares(corpus, unwrap(model).config.vocab_size))
        """The training text's log share of each piece: the held-out loss of guessing by frequency alone."""
        if not cfg.init_from:  # a trained model keeps its own weights
            apply_fresh_starts(unwrap(model), corpus, cfg)
        self.dataset = PretrainingDataset(corpus, cfg.data, tokenizer)
        self.workers = resolve_workers(cfg.data_workers, dist.world_size)
        self.position = (0, 0)  # (epoch, offset) of the next batch; the stream starts there at the first step
        self.stream: BatchStream | None = None
        self.tokens_seen = self.window_tokens = 0
        self.window_wait = 0.0
        self.sums = torch.zeros(len(_SUMS), dtype=torch.float64, device=run.device)
        self.last_eval: dict[str, Any] = {}
        logger.info(
            "batches made by %s", f"{self.workers} worker processes" if self.workers else "the training process"
        )

    def state(self) -> dict[str, Any]:
        epoch, offset = (self.stream.epoch, self.stream.offset) if self.stream else self.position
        return {"tokens": self.tokens_seen, "epoch": epoch, "offset": offset}

    def restore(self, state: dict[str, Any]) -> None:
        self.tokens_seen = state["tokens"]
        self._close_stream()
        self.position = (state["epoch"], state["offset"])

    def _next_batch(self) -> dict[str, torch.Tensor]:
        if self.stream is None:
            self.stream = BatchStream(
                self.dataset,
                self.cfg.batch_size,
                self.run.dist,
                self.cfg.seed,
                self.tokenizer.pad_token_id,
                *self.position,
                workers=self.workers,
                pin_memory=self.run.device.type == "cuda",
            )
        waited = self.stream.wait_seconds
        batch = self.stream.next()
        self.window_wait += self.stream.wait_seconds - waited
        return batch

    def _close_stream(self) -> None:
        if self.stream is not None:
            self.position = (self.stream.epoch, self.stream.offset)
            self.stream.close()
            self.stream = None

    def train_step(self, model: torch.nn.Module, step: int) -> torch.Tensor:
        cfg, dist, device = self.cfg, self.run.dist, self.run.device
        accumulation = cfg.gradient_accumulation
        batches = [self._next_batch() for _ in range(accumulation)]
        # Normalise the MLM loss by the masked tokens of the whole global step (all micro-batches,
        # all processes), so accumulation and DDP give exactly the gradient of one big batch. Counted on the
        # CPU copies: no host sync with the device.
        counts = torch.tensor(
            [sum(b["mlm_targets"].numel() for b in batches), sum(int(b["attention_mask"].sum()) for b in batches)],
            dtype=torch.float64,
        )
        masked_global, tokens_global = all_reduce_sum(counts, dist, device).tolist()
        loss = torch.zeros((), dtype=torch.float64, device=device)
        for micro, cpu_batch in enumerate(batches):
            batch = {k: v.to(device, non_blocking=True) for k, v in cpu_batch.items()}
            # DDP: all-reduce gradients only on the last micro-batch of the step
            skip_sync = micro < accumulation - 1 and hasattr(model, "no_sync")
            targets = batch["mlm_targets"]
            with model.no_sync() if skip_sync else contextlib.nullcontext(), autocast(device, cfg.precision):
                out = model(
                    batch["input_ids"],
                    batch["attention_mask"],
                    batch["token_type_ids"],
                    mlm_labels=batch["mlm_labels"],
                    sentence_order_label=batch["sentence_order_label"],
                )
                # DDP averages gradients over processes, hence the world_size factor.
                mlm_part = out.mlm_loss * targets.numel() * dist.world_size / max(masked_global, 1.0)
                pair_part = out.sop_loss * cfg.sentence_loss_weight / accumulation if out.sop_loss is not None else 0.0
                (mlm_part + pair_part).backward()
            part = out.loss.detach().double() / accumulation
            loss += part
            self._count(out, targets, batch["sentence_order_label"], cpu_batch["sentence_order_label"], part)
        self.sums[_SUMS.index("steps")] += 1
        self.window_tokens += int(tokens_global)
        self.tokens_seen += int(tokens_global)
        return loss

    def _count(
        self, out: Any, targets: torch.Tensor, pair_labels: torch.Tensor, cpu_pair_labels: torch.Tensor, loss: Any
    ) -> None:
        """Add one micro-batch to the sums behind the next training row, on the device (read at log time)."""
        accumulation = self.cfg.gradient_accumulation
        values = {
            "loss": loss,
            "mlm_loss": out.mlm_loss.detach() / accumulation,
            "mlm_correct": (out.mlm_logits.argmax(-1) == targets).sum(),
            "mlm_total": targets.numel(),
        }
        if out.sop_loss is not None:
            values["sop_loss"] = out.sop_loss.detach() / accumulation
        if out.sop_logits is not None:  # examples without a pair label (IGNORE_INDEX) are not scored
            scored = pair_labels != IGNORE_INDEX
            values["sop_correct"] = ((out.sop_logits.argmax(-1) == pair_labels) & scored).sum()
            values["sop_total"] = int((cpu_pair_labels != IGNORE_INDEX).sum())
        for name, value in values.items():
            self.sums[_SUMS.index(name)] += value

    def train_row(self, step: int, lr: float, grad_norm: float, seconds: float) -> dict[str, Any]:
        averaged = all_reduce_mean(dict(zip(_SUMS, self.sums.tolist(), strict=True)), self.run.dist, self.run.device)
        steps = max(1.0, averaged["steps"])  # losses are the window's mean per step, accuracies its pooled ratio
        row = {
            "tokens": self.tokens_seen,
            "split": "train",
            "loss": averaged["loss"] / steps,
            "mlm_loss": averaged["mlm_loss"] / steps,
            "mlm_accuracy": averaged["mlm_correct"] / max(1.0, averaged["mlm_total"]),
            "lr": lr,
            "tokens_per_second": self.window_tokens / max(seconds, 1e-9),
            "grad_norm": grad_norm,
            "data_wait": self.window_wait / max(seconds, 1e-9),
        }
        objective = self.cfg.data.objective
        if objective != "none":  # MLM only: no sentence-pair loss or accuracy to log
            row["sop_loss"] = averaged["sop_loss"] / steps
            row[f"{objective}_accuracy"] = averaged["sop_correct"] / max(1.0, averaged["sop_total"])
        self.postfix["tok_s"] = f"{row['tokens_per_second']:.0f}"
        self.sums.zero_()
        self.window_tokens, self.window_wait = 0, 0.0
        return row

    def evaluate(self, step: int) -> str | None:
        if step % self.cfg.eval_every == 0:
            self._held_out(step)
        return None

    def _held_out(self, step: int) -> None:
        """Held-out MLM and, with a sentence head, order and topic preference (main process): one `eval` row."""
        held_out = self.held_out
        if held_out is None or not self.run.dist.is_main:
            return
        result = evaluate(self.model, held_out.mlm, self.run.device, self.cfg.precision, self.frequency)
        row: dict[str, Any] = {
            "step": step,
            "tokens": self.tokens_seen,
            "split": "eval",
            "elapsed_seconds": self.run.elapsed(),
            "mlm_accuracy": result["mlm_accuracy"],
            "mlm_loss": result["mlm_loss"],
            "mlm_frequency_loss": result["mlm_frequency_loss"],
        }
        if len(result["mlm_example_losses"]) <= EXAMPLE_LOSSES_KEPT:
            row["mlm_example_losses"] = result["mlm_example_losses"]
            row["mlm_example_frequency_losses"] = result["mlm_example_frequency_losses"]
        if held_out.pairs:
            scores = score_id_pairs(
                unwrap(self.model), held_out.pairs, held_out.special, held_out.pad_id, self.cfg.data.max_seq_length - 3
            )
            row.update(order_accuracy=scores.order.rate, topic_accuracy=scores.topic.rate)
            row.update(order_hits=scores.order.hits, topic_hits=scores.topic.hits, order_pairs=scores.order.total)
        if self.cfg.probe:
            row["probe"] = probe_guesses(unwrap(self.model), self.tokenizer, self.cfg.probe, self.run.device)
        self.run.metrics.write(row)
        self.last_eval = row
        logger.info(
            "eval step %d: MLM %.3f  prefers the true order %.3f  prefers the real next %.3f",
            step,
            row["mlm_accuracy"],
            row.get("order_accuracy", float("nan")),
            row.get("topic_accuracy", float("nan")),
        )

    def checkpoint_due(self, step: int) -> bool:
        return step % self.cfg.checkpoint_every == 0

    def divergence_note(self, checkpoint_step: int | None) -> tuple[str, str]:
        kept, _ = super().divergence_note(checkpoint_step)
        return kept, (
            "pretrain again with a lower --optim.learning-rate (e.g. a tenth) or a longer warm-up "
            "(--optim.warmup-fraction)"
        )

    def finish(self, step: int, reason: str) -> dict[str, Any]:
        self._close_stream()
        if step % self.cfg.eval_every:
            self._held_out(step)
        return {
            "tokens": self.tokens_seen,
            "parameters": sum(p.numel() for p in self.model.parameters()),
            "hardware": _hardware(self.run.device),
            "held_out": self.last_eval,
        }

    def complete(self, step: int, summary: dict[str, Any]) -> None:
        if step >= self.cfg.max_steps:
            final = self.run.out / "final"
            self.model.save_pretrained(final, tokenizer=self.tokenizer)
            (final / "training_summary.json").write_text(json.dumps(jsonable(summary), indent=2) + "\n")
            logger.info("final model saved to %s", final)


def run(cfg: PretrainConfig) -> RunResult:
    """Train; returns the model and the summary (also written to output_dir/summary.json)."""
    return fit(cfg, lambda run_: PretrainingTask(cfg, run_))


def _hardware(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    name = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        models = [
            line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines() if line.startswith("model name")
        ]
        name = models[0] if models else name
    return f"{name} ({os.cpu_count()} cores), torch using {torch.get_num_threads()} threads"


def main(argv: list[str] | None = None) -> None:
    summary = run_command(
        "albert.pretrain", PretrainConfig, run, (ConfigError, ValueError, FileNotFoundError), argv, description=__doc__
    ).summary
    if os.environ.get("RANK", "0") != "0":
        return  # the report comes from rank 0, which evaluated
    held_out = summary["held_out"]
    scores = ", ".join(
        f"{name} {held_out[key]:.3f}"
        for name, key in (("MLM", "mlm_accuracy"), ("order", "order_accuracy"), ("topic", "topic_accuracy"))
        if key in held_out
    )
    tokens, seconds = f"{summary['tokens']:,}", summary["wall_seconds"]
    held = scores or "not evaluated (no --valid-corpus)"
    logger.info("done: %d steps, %s tokens in %.0fs; held-out %s", summary["steps"], tokens, seconds, held)


if __name__ == "__main__":
    main()
