"""Re-score pretrained models on held-out text, with 95% intervals, and check the numbers their cards state.

    python benchmarks/score_models.py --valid-corpus ../shared/corpus/gutenberg-valid.txt.xz \\
        assets/models/albert-lab-base assets/models/albert-lab-none
    python benchmarks/score_models.py --valid-corpus ... --check-cards assets/models/*   # exit 1 on a mismatch

Four held-out measures per model, each an accuracy with its Wilson 95% interval:
- `mlm`: top-1 at positions replaced by [MASK] (every chosen position; no 10% random / unchanged),
  on the pipeline's SOP examples (`albert.data.pretraining.make_eval_batches`, seed 1): the same positions for
  every model that shares the tokenizer.
- `sop`, `nsp`: the pipeline's own held-out pairs (whole-sentence segments), as training evaluates.
- `sop_runs`: an evaluation the pipeline cannot shape. Pairs of consecutive runs of whole sentences
  from the held-out books, built here from the raw text with a splitter of its own (not
  `albert.data.corpus`), tokenized by the transformers tokenizer of the model folder, swapped half of the
  time with a fixed seed, and scored through transformers' `AlbertForPreTraining` where it can load the
  model (sharing all/none) — ALBERT Lab's model otherwise (attention/ffn sharing).
A model without a sentence head (MLM only) gets no pair scores. Results print as a table and go to
`--output` as JSON.
"""

from __future__ import annotations

import argparse
import json
import logging
import lzma
import math
import random
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

logger = logging.getLogger("benchmarks.score_models")
# A sentence ends at . ! ? (then closing quotes) before a space and a capital or an opening quote,
# or at 。！？； (then closing quotes) in Chinese text; deliberately simpler than albert.data.corpus's rule.
_SENTENCE_END = re.compile(r"""[.!?]+["')\]’”]*(?=\s+["'(“‘]?[A-Z])|[。！？；]+[”’」』）》]*""")
CARD_TOLERANCE = 0.005
DEFAULT_MLM_MAX_NGRAM = 3
"""Held-out MLM masks spans of up to this many pieces (the pipeline's n-gram masking) unless a folder says otherwise."""
"""A card's figure agrees when within half a point of the re-scored one (the card rounds to 0.1%)."""


@dataclass
class Score:
    correct: int
    total: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else float("nan")

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """Wilson score interval (good near 0%, 50% and 100% alike)."""
        n, p = self.total, self.accuracy
        if not n:
            return float("nan"), float("nan")
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return centre - half, centre + half

    def as_dict(self) -> dict[str, Any]:
        low, high = self.interval()
        return {**asdict(self), "accuracy": round(self.accuracy, 4), "ci95": [round(low, 4), round(high, 4)]}


def split_sentences_independently(paragraph: str) -> list[str]:
    cuts = [0, *(match.end() for match in _SENTENCE_END.finditer(paragraph)), len(paragraph)]
    return [piece for a, b in zip(cuts, cuts[1:], strict=False) if (piece := paragraph[a:b].strip())]


_CHINESE_SENTENCE_END = re.compile(r"[。！？；…][”’」』）》]*$")


def is_chinese_headline(paragraph: str) -> bool:
    """A Chinese line that does not end a sentence: a headline, byline or dateline. It always opens its
    article, so a pair holding it would give the order away; the pairs leave such lines out."""
    text = paragraph.strip()
    return any("\u4e00" <= ch <= "\u9fff" for ch in text) and not _CHINESE_SENTENCE_END.search(text)


def sentence_run_pairs(
    corpus: Path, tokenizer: Any, max_tokens: int, count: int, seed: int = 0
) -> list[tuple[str, str, int]]:
    """(first, second, label) pairs: label 1 = swapped. Runs of whole sentences, consecutive in one book,
    A and B together within `max_tokens` pieces; one pair per window of text, windows drawn at random.
    Chinese headlines are left out (`is_chinese_headline`)."""
    with lzma.open(corpus, "rt", encoding="utf-8") if corpus.suffix == ".xz" else open(corpus, encoding="utf-8") as f:
        books = [block.splitlines() for block in f.read().split("\n\n") if block.strip()]
    candidates = []
    for book in books:
        body = [paragraph for paragraph in book if not is_chinese_headline(paragraph)]
        sentences = [s for paragraph in body for s in split_sentences_independently(paragraph)]
        lengths = [len(tokenizer.tokenize(s)) for s in sentences]
        start = 0
        while start < len(sentences) - 1:
            end, used = start, 0  # grow the window by whole sentences while it fits
            while end < len(sentences) and used + lengths[end] <= max_tokens:
                used += lengths[end]
                end += 1
            if end - start >= 2:
                candidates.append(sentences[start:end])
            start = max(end, start + 1)
    rng = random.Random(seed)
    rng.shuffle(candidates)
    pairs = []
    for window in candidates[:count]:
        split = rng.randint(1, len(window) - 1)
        a, b = " ".join(window[:split]), " ".join(window[split:])
        label = rng.randint(0, 1)
        pairs.append((b, a, 1) if label else (a, b, 0))
    if len(pairs) < count:
        logger.warning("%s yields %d sentence-run pairs, fewer than the %d asked for", corpus, len(pairs), count)
    return pairs


def _scorer(directory: Path) -> tuple[Any, str]:
    """transformers' AlbertForPreTraining where it can load the folder, else ALBERT Lab's model."""
    from albert import AlbertConfig, AlbertForPreTraining

    config = AlbertConfig.load(directory)
    if config.transformers_compatible and config.sentence_objective != "none":
        import transformers

        return transformers.AlbertForPreTraining.from_pretrained(directory).eval(), "transformers"
    return AlbertForPreTraining.from_pretrained(directory).eval(), "albert-lab"


@torch.no_grad()
def score_run_pairs(directory: Path, pairs: list[tuple[str, str, int]], batch_size: int = 64) -> Score:
    from transformers import AlbertTokenizerFast

    tokenizer = AlbertTokenizerFast.from_pretrained(str(directory))  # not AutoTokenizer: see score_model
    model, kind = _scorer(directory)
    correct = 0
    for i in range(0, len(pairs), batch_size):
        chunk = pairs[i : i + batch_size]
        encoded = tokenizer(
            [a for a, _, _ in chunk],
            [b for _, b, _ in chunk],
            padding=True,
            return_tensors="pt",
            return_token_type_ids=True,
        )
        out = model(
            input_ids=encoded["input_ids"],
            attention_mask=encoded["attention_mask"],
            token_type_ids=encoded["token_type_ids"],
        )
        predicted = out.sop_logits.argmax(-1)
        correct += int((predicted == torch.tensor([label for _, _, label in chunk])).sum())
    logger.info("%s: sentence-run pairs scored through %s", directory.name, kind)
    return Score(correct, len(pairs))


def mlm_max_ngram(directory: Path) -> int:
    """How a folder's held-out MLM is scored: the span length its metrics.json recorded (`mlm_max_ngram`; a
    Chinese model is scored on single characters, as issue 16 asks), else n-gram spans of up to 3 pieces."""
    path = directory / "metrics.json"
    metrics = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return int(metrics.get("mlm_max_ngram", DEFAULT_MLM_MAX_NGRAM))


def score_pipeline(
    directory: Path, valid: list[str], examples: int, cache_dir: Path, max_ngram: int = DEFAULT_MLM_MAX_NGRAM
) -> dict[str, Score]:
    """MLM (on the SOP set, spans of up to `max_ngram` pieces, each 100% `[MASK]`) and the pair accuracies on the
    pipeline's own held-out examples."""
    from albert import AlbertForPreTraining
    from albert.data.corpus import TokenizedCorpus
    from albert.data.pretraining import PretrainingDataConfig, make_eval_batches
    from albert.tokenizer import load_tokenizer
    from albert.training.pretraining import evaluate

    tokenizer = load_tokenizer(directory)
    model = AlbertForPreTraining.from_pretrained(directory)
    corpus = TokenizedCorpus.build(valid, tokenizer, cache_dir, progress=False)
    length = model.config.max_position_embeddings  # every shipped model trained at its full position count
    scores: dict[str, Score] = {}
    for objective in ("sop", "nsp"):
        data = PretrainingDataConfig(max_seq_length=length, objective=objective, seed=1, max_ngram=max_ngram)
        batches = make_eval_batches(corpus, data, tokenizer.pad_token_id, examples, batch_size=64)
        result = evaluate(model, batches, torch.device("cpu"), "fp32")
        if objective == "sop":
            scores["mlm"] = Score(
                round(result["mlm_accuracy"] * result["masked_positions"]), result["masked_positions"]
            )
        if result["pairs"]:
            scores[objective] = Score(round(result["pair_accuracy"] * result["pairs"]), result["pairs"])
    return scores


def score_model(
    directory: Path,
    valid: list[str],
    examples: int,
    run_pairs: int,
    cache_dir: Path,
    max_tokens: int | None = None,
    pairs_cache: dict[str, list[tuple[str, str, int]]] | None = None,
    max_ngram: int | None = None,
) -> dict[str, Score]:
    """Every measure of one folder: the pipeline's (MLM, SOP, NSP) and, with a sentence head, the
    independent sentence-run pairs, built once per tokenizer when `pairs_cache` is given. Pipeline examples
    are as long as the model's positions; A and B of a sentence-run pair hold `max_tokens` pieces together
    (default: the positions less the three special tokens). MLM spans hold up to `max_ngram` pieces (default: what
    the folder's metrics.json recorded, see `mlm_max_ngram`)."""
    import hashlib

    from transformers import AlbertTokenizerFast

    max_ngram = mlm_max_ngram(directory) if max_ngram is None else max_ngram
    scores = score_pipeline(directory, valid, examples, cache_dir, max_ngram)
    if "sop" in scores:  # a model with a sentence head
        if max_tokens is None:
            max_tokens = json.loads((directory / "config.json").read_text())["max_position_embeddings"] - 3
        vocabulary = directory / "spiece.model"
        vocabulary_key = hashlib.sha256(vocabulary.read_bytes()).hexdigest() if vocabulary.is_file() else str(directory)
        key = f"{vocabulary_key}:{max_tokens}"
        cache = pairs_cache if pairs_cache is not None else {}
        if key not in cache:
            # transformers' own ALBERT tokenizer, named: AutoTokenizer reads config.json, which transformers
            # refuses for the attention- and ffn-shared folders it cannot hold
            tokenizer = AlbertTokenizerFast.from_pretrained(str(directory))
            cache[key] = sentence_run_pairs(Path(valid[0]), tokenizer, max_tokens, run_pairs)
        scores["sop_runs"] = score_run_pairs(directory, cache[key])
    return scores


def card_mismatches(directory: Path, scores: dict[str, Score]) -> list[str]:
    """Figures in the folder's metrics.json that disagree with the re-scored ones."""
    path = directory / "metrics.json"
    if not path.is_file():
        return [f"{directory.name}: no metrics.json"]
    card = json.loads(path.read_text(encoding="utf-8"))
    problems = []
    for name, score in scores.items():
        key = {"sop_runs": "sop_runs_accuracy"}.get(name, f"{name}_accuracy")
        if key in card and abs(card[key] - score.accuracy) > CARD_TOLERANCE:
            problems.append(f"{directory.name}: card says {key} {card[key]:.4f}, re-scored {score.accuracy:.4f}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="+", type=Path, help="model folders (config.json, model.safetensors)")
    parser.add_argument(
        "--valid-corpus",
        action="append",
        required=True,
        help="held-out text (never trained on); repeat for several files",
    )
    parser.add_argument(
        "--examples", type=int, default=3000, help="pipeline examples per task (≥ 20,000 MLM positions at 64 tokens)"
    )
    parser.add_argument("--run-pairs", type=int, default=3000, help="independent sentence-run pairs")
    parser.add_argument(
        "--max-tokens", type=int, help="pieces in A and B together (default: the model's positions − 3 specials)"
    )
    parser.add_argument("--cache-dir", type=Path, default=Path("runs/cache/valid"))
    parser.add_argument("--output", type=Path, help="write every score as JSON here")
    parser.add_argument("--check-cards", action="store_true", help="exit 1 if a metrics.json disagrees")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    torch.set_num_threads(args.threads)
    results: dict[str, dict[str, Any]] = {}
    pairs_by_tokenizer: dict[str, list[tuple[str, str, int]]] = {}
    problems: list[str] = []
    for directory in args.models:
        scores = score_model(
            directory,
            args.valid_corpus,
            args.examples,
            args.run_pairs,
            args.cache_dir,
            args.max_tokens,
            pairs_by_tokenizer,
        )
        results[directory.name] = {name: score.as_dict() for name, score in scores.items()}
        line = "  ".join(
            f"{name} {s.accuracy:6.1%} [{s.interval()[0]:.1%}, {s.interval()[1]:.1%}] n={s.total}"
            for name, s in scores.items()
        )
        logger.info("%-28s %s", directory.name, line)
        if args.check_cards:
            problems += card_mismatches(directory, scores)
    if args.output:
        args.output.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    for problem in problems:
        logger.error(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
