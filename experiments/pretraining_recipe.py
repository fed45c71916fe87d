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
    """Held-out MLM accuracy by step."""
    last: Proportion
    collapse: float | None
    """Mean cosine between the positions of each held-out example after the last pass (1.0: every position has the
    same hidden state, so the MLM head can only answer the unigram); None without a final model."""


@torch.no_grad()
def position_similarity(directory: Path, batch: dict[str, torch.Tensor]) -> float | None:
    """Mean cosine between the hidden states of different (non-padding) positions of each example, after the last
    pass of the final model in `directory`."""
    from albert.core.heads import AlbertForPreTraining

    if not (directory / "final" / "config.json").is_file():
        return None
    model = AlbertForPreTraining.from_pretrained(directory / "final").eval()
    hidden = model.albert(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"]).last_hidden_state
    means = []
    for states, mask in zip(hidden, batch["attention_mask"].bool(), strict=True):
        unit = torch.nn.functional.normalize(states[mask], dim=-1)
        n = unit.shape[0]
        means.append(float(((unit @ unit.T).sum() - n) / (n * n - n)))
    return float(np.mean(means))


def held_out_blanks(summary: dict) -> tuple[list[dict[str, torch.Tensor]], torch.Tensor, int]:
    """The run's held-out batches, their blanks' targets and the most frequent piece of its training text."""
    from albert.commands.pretrain import PretrainConfig, _held_out_sets
    from albert.data.corpus import TokenizedCorpus
    from albert.data.tokenizer import load_tokenizer

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
    batches = _held_out_sets(cfg, valid, tokenizer).mlm
    targets = torch.cat([b["mlm_labels"][b["mlm_labels"] != IGNORE_INDEX] for b in batches])
    frequent = int(np.bincount(np.asarray(train.tokens), minlength=len(tokenizer)).argmax())
    return batches, targets, frequent


def read_arm(directory: Path, blanks: int, batch: dict[str, torch.Tensor]) -> Arm:
    rows = [json.loads(line) for line in (directory / "metrics.jsonl").read_text().splitlines()]
    curve = {r["step"]: r["mlm_accuracy"] for r in rows if r.get("split") == "eval"}
    if not curve:
        raise ValueError(f"{directory} has no held-out evaluation yet.")
    last = curve[max(curve)]
    return Arm(directory.name, curve, Proportion(round(last * blanks), blanks), position_similarity(directory, batch))


def table(directories: Sequence[Path]) -> str:
    summaries = [json.loads((d / "summary.json").read_text()) for d in directories]
    held_out = {k: summaries[0]["config"][k] for k in ("valid_corpus", "eval_examples", "seed", "data")}
    for directory, summary in zip(directories, summaries, strict=True):
        theirs = {k: summary["config"][k] for k in held_out}
        if theirs != held_out:
            raise ValueError(f"{directory} was scored on other held-out blanks than {directories[0]}.")
    batches, targets, frequent = held_out_blanks(summaries[0])
    baseline = Proportion(int((targets == frequent).sum()), int(targets.numel()))
    arms = [read_arm(d, baseline.total, batches[0]) for d in directories]
    steps = sorted({s for arm in arms for s in arm.curve})
    reference_high = arms[0].last.interval()[1]
    lines = [
        "| arm | "
        + " | ".join(f"step {s}" for s in steps)
        + " | last, 95% interval | off the plateau | cosine between positions |",
        "|---|" + "---|" * len(steps) + "---|---|---|",
    ]
    for arm in arms:
        low, high = arm.last.interval()
        off = arm.last.rate >= OFF_PLATEAU and low > reference_high
        cells = " | ".join(f"{arm.curve[s]:.2%}" if s in arm.curve else "–" for s in steps)
        cosine = "–" if arm.collapse is None else f"{arm.collapse:.2f}"
        last = f"{arm.last.rate:.2%} [{low:.2%}, {high:.2%}]"
        lines.append(f"| {arm.name} | {cells} | {last} | {'yes' if off else 'no'} | {cosine} |")
    low, high = baseline.interval()
    lines.append(
        f"\nAlways the most frequent training piece (id {frequent}), never reading the text: {baseline.rate:.2%} "
        f"[{low:.2%}, {high:.2%}] of the {baseline.total:,} held-out blanks."
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
