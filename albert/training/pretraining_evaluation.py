"""Evaluating pretrained models: held-out MLM accuracy during a pretraining run, and re-scoring a saved model on
held-out text with 95% intervals (the check every shipped model's card is held to).

Three held-out measures per model, each a proportion with its Wilson 95% interval:
- `mlm`: top-1 at positions replaced by [MASK] (every chosen position; no 10% random / unchanged) on the pipeline's
  held-out examples (`albert.data.pretraining_examples.make_eval_batches`, seed 1) **in the format the model was
  trained on**: sentence pairs for the SOP and NSP arms, one segment for an MLM-only model (which never saw
  segment-1 ids).
- `order`: prefers the true order — the one honest pair rule (`albert.data.sentence_order`: centre-out pairs of whole
  sentences, no length or edge cue; `albert.training.order_scoring`: each pair asked in both orders).
- `topic`: prefers the real next text over a segment of another document (what NSP trains).
A model without a sentence head (MLM only) gets no pair scores. `albert.commands.pretrain` builds its fixed
`held_out_sets` once and calls `evaluate` and `probe_guesses` (a probe sentence's likeliest pieces) at each
evaluation; `experiments/score_models.py` and `scripts/package_model.py` call `score_model`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from albert.core.config import IGNORE_INDEX
from albert.core.heads import AlbertForPreTraining
from albert.data.corpus import TokenizedCorpus
from albert.data.pretraining_examples import PretrainingDataConfig, make_eval_batches
from albert.data.sentence_order import OrderPair, corpus_order_pairs, order_pairs, sentence_documents
from albert.data.tokenizer import load_tokenizer
from albert.training.distributed import autocast, unwrap
from albert.training.finetune_evaluation import require_finite
from albert.training.order_scoring import Proportion, score_text_pairs

logger = logging.getLogger(__name__)


@torch.no_grad()
def evaluate(
    model: torch.nn.Module,
    batches: list[dict[str, torch.Tensor]],
    device: torch.device,
    precision: str,
    frequency: torch.Tensor | None = None,
) -> dict[str, Any]:
    """Held-out MLM accuracy (every selected position is [MASK]) and loss. Sentence order is scored apart, by the
    one honest pair rule (`albert.training.order_scoring`), never on these one-order-per-example batches.

    With `frequency` (the log share of each piece in the training text, `albert.training.fresh_start.
    unigram_log_shares`), also the loss of guessing every blank by frequency alone on the same blanks
    (`mlm_frequency_loss`), and, per held-out example with a blank, the mean loss of the model and of that guess
    (`mlm_example_losses`, `mlm_example_frequency_losses`, in the examples' order): two runs scored on the same
    blanks can then be compared example by example, with an interval (the *Train it yourself* verdicts)."""
    model.eval()
    correct = total = 0
    loss_sum = frequency_sum = 0.0
    examples: list[float] = []
    frequency_examples: list[float] = []
    for number, batch in enumerate(batches, 1):
        batch = {k: v.to(device) for k, v in batch.items()}
        with autocast(device, precision):
            out = unwrap(model)(
                batch["input_ids"], batch["attention_mask"], batch["token_type_ids"], mlm_labels=batch["mlm_labels"]
            )
        require_finite(out.mlm_logits, f"held-out batch {number} of {len(batches)}")
        blanks = batch["mlm_labels"] != IGNORE_INDEX
        targets = batch["mlm_labels"][blanks]
        correct += int((out.mlm_logits.argmax(-1) == targets).sum())
        total += targets.numel()
        loss_sum += float(out.mlm_loss) * targets.numel()
        if frequency is not None:
            guessed = -frequency.to(device)[targets].double()
            frequency_sum += float(guessed.sum())
            losses = torch.nn.functional.cross_entropy(out.mlm_logits.double(), targets, reduction="none")
            rows = blanks.nonzero()[:, 0]
            examples += _per_example(losses, rows, blanks.shape[0])
            frequency_examples += _per_example(guessed, rows, blanks.shape[0])
    model.train()
    result: dict[str, Any] = {
        "mlm_accuracy": correct / max(1, total),
        "mlm_loss": loss_sum / max(1, total),
        "masked_positions": total,
    }
    if frequency is not None:
        result["mlm_frequency_loss"] = frequency_sum / max(1, total)
        result["mlm_example_losses"] = examples
        result["mlm_example_frequency_losses"] = frequency_examples
    return result


def _per_example(losses: torch.Tensor, rows: torch.Tensor, count: int) -> list[float]:
    """The mean of `losses` per example (`rows`: the example of each blank), for the examples with a blank."""
    sums = torch.zeros(count, dtype=torch.float64, device=losses.device).index_add_(0, rows, losses)
    blanks = torch.bincount(rows, minlength=count)
    return [round(float(s / n), 5) for s, n in zip(sums.tolist(), blanks.tolist(), strict=True) if n]


CARD_TOLERANCE = 0.005
"""A card's figure agrees when within half a point of the re-scored one (the card rounds to 0.1%)."""
DEFAULT_MLM_MAX_NGRAM = 3
"""Held-out MLM masks spans of up to this many pieces (the pipeline's n-gram masking) unless a folder says otherwise."""
PAIR_SEED = 0


def held_out_pairs(
    valid: list[str],
    tokenizer: Any,
    max_tokens: int,
    count: int,
    seed: int = PAIR_SEED,
    avoid_seeds: tuple[int, ...] = (),
) -> list[OrderPair]:
    """The order pairs of held-out text for one tokenizer (A and B together within `max_tokens` pieces); with
    `avoid_seeds`, none shares a sentence with those seeds' pairs (a replication on unused text)."""
    documents = sentence_documents(valid)

    def count_tokens(sentence: str) -> int:
        return len(tokenizer(sentence, add_special_tokens=False)["input_ids"])

    pairs = order_pairs(documents, count_tokens, max_tokens, count, seed, avoid_seeds)
    if len(pairs) < count:
        logger.warning("%s yields %d order pairs, fewer than the %d asked for", ", ".join(valid), len(pairs), count)
    return pairs


def mlm_max_ngram(directory: Path) -> int:
    """How a folder's held-out MLM is scored: the span length its metrics.json recorded (`mlm_max_ngram`; a
    Chinese model is scored on single characters, as issue 16 asks), else n-gram spans of up to 3 pieces."""
    path = directory / "metrics.json"
    metrics = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return int(metrics.get("mlm_max_ngram", DEFAULT_MLM_MAX_NGRAM))


def score_mlm(
    directory: Path,
    valid: list[str],
    examples: int,
    cache_dir: Path,
    max_ngram: int = DEFAULT_MLM_MAX_NGRAM,
    device: str = "cpu",
) -> Proportion:
    """Held-out MLM (spans of up to `max_ngram` pieces, each 100% `[MASK]`) on the pipeline's held-out examples in
    the model's own format: pairs for a model with a sentence head, one segment for an MLM-only model."""
    tokenizer = load_tokenizer(directory)
    model = AlbertForPreTraining.from_pretrained(directory)
    corpus = TokenizedCorpus.build(valid, tokenizer, cache_dir, progress=False)
    length = model.config.max_position_embeddings  # every shipped model trained at its full position count
    objective = "sop" if model.config.sentence_objective != "none" else "none"
    data = PretrainingDataConfig(max_seq_length=length, objective=objective, seed=1, max_ngram=max_ngram)
    batches = make_eval_batches(corpus, data, tokenizer.pad_token_id, examples, batch_size=64)
    result = evaluate(model.to(device), batches, torch.device(device), "fp32")
    return Proportion(round(result["mlm_accuracy"] * result["masked_positions"]), result["masked_positions"])


def score_model(
    directory: Path,
    valid: list[str],
    examples: int,
    pairs: int,
    cache_dir: Path,
    max_tokens: int | None = None,
    pairs_cache: dict[str, list[OrderPair]] | None = None,
    max_ngram: int | None = None,
    pair_seed: int = PAIR_SEED,
    avoid_seeds: tuple[int, ...] = (),
    device: str = "cpu",
) -> dict[str, Proportion]:
    """Every measure of one folder: held-out MLM and, with a sentence head, `order` and `topic` on the held-out
    pairs, built once per tokenizer when `pairs_cache` is given. A and B of a pair hold `max_tokens` pieces together
    (default: the positions less the three special tokens). MLM spans hold up to `max_ngram` pieces (default: what
    the folder's metrics.json recorded, see `mlm_max_ngram`). `pair_seed` and `avoid_seeds` choose the pairs
    (`held_out_pairs`). `device` runs the passes there (fp32 throughout: the figures do not depend on it beyond
    rounding)."""
    max_ngram = mlm_max_ngram(directory) if max_ngram is None else max_ngram
    scores = {"mlm": score_mlm(directory, valid, examples, cache_dir, max_ngram, device)}
    model = AlbertForPreTraining.from_pretrained(directory).to(device).eval()
    if model.config.sentence_objective == "none":
        return scores
    if max_tokens is None:
        max_tokens = model.config.max_position_embeddings - 3
    tokenizer = load_tokenizer(directory)
    vocabulary = directory / "spiece.model"
    vocabulary_key = hashlib.sha256(vocabulary.read_bytes()).hexdigest() if vocabulary.is_file() else str(directory)
    key = f"{vocabulary_key}:{max_tokens}:{','.join(valid)}:{pair_seed}:{avoid_seeds}"
    cache = pairs_cache if pairs_cache is not None else {}
    if key not in cache:
        cache[key] = held_out_pairs(valid, tokenizer, max_tokens, pairs, pair_seed, avoid_seeds)
    result = score_text_pairs(model, tokenizer, cache[key], max_tokens)
    scores["order"], scores["topic"] = result.order, result.topic
    return scores


def card_mismatches(directory: Path, scores: dict[str, Proportion]) -> list[str]:
    """Figures in the folder's metrics.json that disagree with the re-scored ones."""
    path = directory / "metrics.json"
    if not path.is_file():
        return [f"{directory.name}: no metrics.json"]
    card = json.loads(path.read_text(encoding="utf-8"))
    problems = []
    for name, score in scores.items():
        key = f"{name}_accuracy"
        if key not in card:
            problems.append(f"{directory.name}: card has no {key} (re-scored {score.rate:.4f})")
        elif abs(card[key] - score.rate) > CARD_TOLERANCE:
            problems.append(f"{directory.name}: card says {key} {card[key]:.4f}, re-scored {score.rate:.4f}")
    return problems


@dataclass
class HeldOutSets:
    """Fixed held-out data: MLM batches in the run's own format (pairs, or one segment for MLM only), and, for a
    model with a sentence head, order pairs (`albert.data.sentence_order`: centre-out, asked in both orders)."""

    mlm: list[dict[str, torch.Tensor]]
    pairs: list[tuple[Any, Any, Any]]
    special: tuple[int, int]
    pad_id: int


def held_out_sets(
    data: PretrainingDataConfig, seed: int, eval_examples: int, valid: TokenizedCorpus, tokenizer: Any
) -> HeldOutSets:
    """A pretraining run's fixed held-out sets, from its data options, seed and number of examples."""
    # Held-out masks are piece (character) level whatever the run trains with, so that runs with and without
    # whole-word masking are scored on the same kind of blank; an MLM-only run is scored on one segment, its format.
    objective = "none" if data.objective == "none" else "sop"
    data_config = dataclasses.replace(data, objective=objective, seed=seed + 1, whole_word_masking=False)
    mlm = make_eval_batches(valid, data_config, tokenizer.pad_token_id, eval_examples, batch_size=64)
    pairs = []
    if data.objective != "none":
        pairs = corpus_order_pairs(valid, data.max_seq_length - 3, eval_examples, seed=seed + 1)
        if not pairs:
            logger.warning("held-out order evaluation skipped: the held-out text gives no pair of sentences")
    special = (tokenizer.cls_token_id, tokenizer.sep_token_id)
    return HeldOutSets(mlm, pairs, special, tokenizer.pad_token_id)


PROBE_GUESSES = 5


@torch.no_grad()
def probe_guesses(
    model: AlbertForPreTraining, tokenizer: Any, text: str, device: torch.device, k: int = PROBE_GUESSES
) -> list[list[Any]]:
    """The `k` most likely pieces (and their probabilities) at the first [MASK] of `text`."""
    encoded = tokenizer(text, return_tensors="pt", truncation=True, max_length=model.config.max_position_embeddings)
    ids = encoded["input_ids"].to(device)
    where = (ids[0] == tokenizer.mask_token_id).nonzero()
    if not len(where):  # the tokenizer cut it off: nothing to guess
        return []
    was_training = model.training
    model.eval()
    logits = model(ids, encoded["attention_mask"].to(device)).mlm_logits[0, int(where[0])]
    model.train(was_training)
    top = torch.softmax(logits.float(), -1).topk(k)
    pieces = tokenizer.convert_ids_to_tokens(top.indices.tolist())
    return [[piece, round(float(p), 4)] for piece, p in zip(pieces, top.values.tolist(), strict=True)]
