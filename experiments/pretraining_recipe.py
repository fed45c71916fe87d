"""The fresh-model recipe experiment's table (docs/protocols/pretraining-recipe.md): each arm's held-out MLM curve,
its last figure with a Wilson 95% interval, and the plateau rule, beside what a rule that never reads the text
scores on the same blanks (always the training text's most frequent piece).

    python -m experiments.pretraining_recipe runs/recipe/A0-default runs/recipe/A1-lr3e-3 ...

Every arm must share the held-out set (corpus, shape, seed, examples): the blanks are rebuilt once, from the first
arm's summary, and an arm with another held-out configuration is refused.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from albert.core.config import IGNORE_INDEX
from albert.training.order_scoring import Proportion

logger = logging.getLogger("experiments.pretraining_recipe")
OFF_PLATEAU = 0.08
"""The protocol's line: held-out MLM at the last step at least this, and the interval clear of the baseline arm's."""


@dataclass
class Arm:
    name: str
    curve: dict[int, float]
    """Held-out MLM accuracy by step, from the run's log (its own held-out blanks)."""
    same_blanks: bool
    """The run's log scored the shared blanks (its masking options match the first arm's)."""
    last: Proportion
    """The final model re-scored on the shared blanks."""
    collapse: float
    """Mean cosine between the positions of each example of the first shared batch after the last pass (1.0: every
    position has the same hidden state, so the MLM head can only answer the unigram)."""
    neighbours: float
    """The share of a blank's attention on its left and right neighbours (`neighbour_attention`)."""


@torch.no_grad()
def position_similarity(model: torch.nn.Module, batch: dict[str, torch.Tensor]) -> float:
    """Mean cosine between the hidden states of different (non-padding) positions of each example, after the last
    pass of `model`."""
    hidden = model.albert(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"]).last_hidden_state
    means = []
    for states, mask in zip(hidden, batch["attention_mask"].bool(), strict=True):
        unit = torch.nn.functional.normalize(states[mask], dim=-1)
        n = unit.shape[0]
        means.append(float(((unit @ unit.T).sum() - n) / (n * n - n)))
    return float(np.mean(means))


@torch.no_grad()
def neighbour_attention(model: torch.nn.Module, batches: Sequence[dict[str, torch.Tensor]]) -> float:
    """The mean share of a blank's attention, in the last pass with the heads averaged, that falls on the positions
    just left and right of it (protocol amendment 18): 2/T for a view that ignores where pieces are."""
    shares = []
    for batch in batches:
        out = model.albert(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"], output_attentions=True)
        probs = out.attentions[-1].mean(dim=1)  # (B, T, T)
        rows, blanks = (batch["mlm_labels"] != IGNORE_INDEX).nonzero(as_tuple=True)
        attention = probs[rows, blanks]  # (N, T): each blank's view
        padded = torch.nn.functional.pad(attention, (1, 1))  # column c + 1 is position c
        shares.append(padded.gather(1, blanks[:, None]) + padded.gather(1, blanks[:, None] + 2))
    return float(torch.cat(shares).mean())


def held_out_blanks(summary: dict) -> tuple[list[dict[str, torch.Tensor]], torch.Tensor, int]:
    """The run's held-out batches, their blanks' targets and the most frequent piece of its training text."""
    from albert.commands.pretrain import PretrainConfig
    from albert.data.corpus import TokenizedCorpus
    from albert.data.tokenizer import load_tokenizer
    from albert.training.pretraining_evaluation import held_out_sets

    config = summary["config"]
    cfg = PretrainConfig(
        corpus=tuple(config["corpus"]),
        valid_corpus=tuple(config["valid_corpus"]),
        output_dir="runs/recipe-scoring",
        eval_examples=config["eval_examples"],
        seed=config["seed"],
        data=config["data"],
    )
    tokenizer = load_tokenizer(config["tokenizer"])
    cache = Path(config["cache_dir"])
    valid = TokenizedCorpus.build(list(cfg.valid_corpus), tokenizer, cache / "valid")
    train = TokenizedCorpus.build(list(cfg.corpus), tokenizer, cache / "train")
    batches = held_out_sets(cfg.data, cfg.seed, cfg.eval_examples, valid, tokenizer).mlm
    targets = torch.cat([b["mlm_labels"][b["mlm_labels"] != IGNORE_INDEX] for b in batches])
    frequent = int(np.bincount(np.asarray(train.tokens), minlength=len(tokenizer)).argmax())
    return batches, targets, frequent


def read_arm(directory: Path, reference: dict, batches: list[dict[str, torch.Tensor]]) -> Arm:
    from albert.core.heads import AlbertForPreTraining
    from albert.training.pretraining_evaluation import evaluate

    summary = json.loads((directory / "summary.json").read_text())
    rows = [json.loads(line) for line in (directory / "metrics.jsonl").read_text().splitlines()]
    curve = {r["step"]: r["mlm_accuracy"] for r in rows if r.get("split") == "eval"}
    model = AlbertForPreTraining.from_pretrained(directory / "final").eval()
    scored = evaluate(model, batches, torch.device("cpu"), "fp32")
    last = Proportion(round(scored["mlm_accuracy"] * scored["masked_positions"]), scored["masked_positions"])
    same = _held_out_options(summary) == _held_out_options(reference)
    return Arm(
        directory.name, curve, same, last, position_similarity(model, batches[0]), neighbour_attention(model, batches)
    )


def _held_out_options(summary: dict) -> dict:
    """What decides a run's logged held-out blanks (`albert.training.pretraining_evaluation.held_out_sets`)."""
    config = summary["config"]
    data = {k: v for k, v in config["data"].items() if k not in ("objective", "whole_word_masking")}
    return {
        "valid_corpus": config["valid_corpus"],
        "eval_examples": config["eval_examples"],
        "seed": config["seed"],
        "data": data,
    }


def table(directories: Sequence[Path]) -> str:
    missing = [str(d) for d in directories if not (d / "final" / "config.json").is_file()]
    if missing:
        raise ValueError(f"these arms have no final model yet: {', '.join(missing)}")
    reference = json.loads((directories[0] / "summary.json").read_text())
    batches, targets, frequent = held_out_blanks(reference)
    baseline = Proportion(int((targets == frequent).sum()), int(targets.numel()))
    arms = [read_arm(d, reference, batches) for d in directories]
    steps = sorted({s for arm in arms for s in arm.curve})
    reference_high = arms[0].last.interval()[1]
    lines = [
        "| arm | "
        + " | ".join(f"step {s}" for s in steps)
        + " | final model, 95% interval | off the plateau | cosine between positions | attention on neighbours |",
        "|---|" + "---|" * len(steps) + "---|---|---|---|",
    ]
    for arm in arms:
        low, high = arm.last.interval()
        off = arm.last.rate >= OFF_PLATEAU and low > reference_high
        mark = "" if arm.same_blanks else "†"
        cells = " | ".join(f"{arm.curve[s]:.2%}{mark}" if s in arm.curve else "–" for s in steps)
        last = f"{arm.last.rate:.2%} [{low:.2%}, {high:.2%}]"
        lines.append(
            f"| {arm.name} | {cells} | {last} | {'yes' if off else 'no'} | {arm.collapse:.2f} | {arm.neighbours:.3f} |"
        )
    low, high = baseline.interval()
    lines.append(
        f"\nFinal models re-scored on {directories[0].name}'s {baseline.total:,} held-out blanks; † a curve logged on "
        f"the arm's own blanks (its masking options or its seed change them). Always the most frequent training "
        f"piece (id {frequent}), never reading the text: {baseline.rate:.2%} [{low:.2%}, {high:.2%}]. Attention on "
        f"neighbours: the share of a blank's attention (last pass, heads averaged) on the pieces either side of it; "
        f"a view blind to position gives 2/{batches[0]['input_ids'].shape[1]} = "
        f"{2 / batches[0]['input_ids'].shape[1]:.3f}."
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    logging.basicConfig(level=logging.WARNING)
    directories = [Path(a) for a in (sys.argv[1:] if argv is None else argv)]
    if not directories:
        raise SystemExit("pretraining_recipe: name the arms' run folders (runs/recipe/A0-default ...).")
    print(table(directories))  # the table is the output


if __name__ == "__main__":
    main()
