"""Scoring and reporting the shared-noise experiment (docs/protocols/shared-noise.md, issue 45).

    python -m experiments.shared_noise score --model RUN/best --data runs/shared-noise/data/sst2 \\
        --output docs/results/shared-noise/en-s0.03-seed1.json
    python -m experiments.shared_noise report docs/results/shared-noise > table.md

`score` evaluates one fine-tuned model on a task's clean and perturbed dev copies (experiments.noise_perturbations):
accuracy with its Wilson 95% interval, the drop, and every prediction's correctness (a string of 0/1, so paired
comparisons can be made per example). `report` reads every run's JSON (named <lang>-s<S>-seed<N>.json) and prints
the result page's tables: each arm and seed, the arm means, and the paired differences against S = 0 — mean over
the seeds with a t-interval, and the per-example difference pooled over the seeds with a bootstrap interval — and
the protocol's decision per language and S.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from albert.training.order_scoring import Proportion

logger = logging.getLogger("experiments.shared_noise")
SPLITS = ("clean", "perturbed")
T_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}
"""Two-sided 95% quantiles of Student's t by degrees of freedom (seeds − 1)."""
NAME = re.compile(r"^(?P<lang>[a-z]+)-s(?P<std>[0-9.]+)-seed(?P<seed>\d+)\.json$")


def score(model_dir: Path, data_dir: Path, batch_size: int = 64, max_seq_length: int = 128) -> dict[str, Any]:
    """Accuracy (Wilson 95%) of a fine-tuned classifier on `data_dir`'s clean.tsv and perturbed.tsv, the drop, and
    each example's correctness as a 0/1 string."""
    import torch

    from albert.core.heads import AlbertForSequenceClassification
    from albert.data.tasks import encode, read_records
    from albert.data.tokenizer import load_tokenizer
    from albert.training.finetune_evaluation import predict

    model = AlbertForSequenceClassification.from_pretrained(model_dir).eval()
    tokenizer = load_tokenizer(model_dir)
    values = model.config.extra.get("task_label_values") or [
        model.config.extra["id2label"][str(i)] for i in range(model.config.num_labels)
    ]
    label2id = {str(v): i for i, v in enumerate(values)}
    result: dict[str, Any] = {"model": str(model_dir), "data": str(data_dir)}
    for split in SPLITS:
        records = read_records(str(data_dir / f"{split}.tsv"), "classification")
        examples = encode(records, tokenizer, "classification", max_seq_length, label2id)
        # Batches of similar length pad less (a long review no longer pads 63 short ones to 128 tokens).
        order = sorted(range(len(examples)), key=lambda i: len(examples[i]["input_ids"]))
        predictions, labels, loss = predict(
            model,
            [examples[i] for i in order],
            "classification",
            batch_size,
            torch.device("cpu"),
            pad_id=tokenizer.pad_token_id,
        )
        correct = np.empty(len(order), dtype=bool)
        correct[order] = predictions == labels  # back in file order
        proportion = Proportion(float(correct.sum()), len(correct))
        low, high = proportion.interval()
        result[split] = {
            "accuracy": proportion.rate,
            "hits": int(correct.sum()),
            "n": len(correct),
            "ci95": [low, high],
            "loss": loss,
            "correct": "".join("1" if c else "0" for c in correct),
        }
    result["drop"] = result["clean"]["accuracy"] - result["perturbed"]["accuracy"]
    summary_file = model_dir.parent / "results.json"  # the fine-tuning run's summary, when scoring a run's best/
    if summary_file.is_file():
        summary = json.loads(summary_file.read_text())
        config = summary.get("config", {})
        result["training"] = {
            "steps": summary.get("steps"),
            "train_examples": summary.get("train_examples"),
            "wall_seconds": summary.get("wall_seconds"),
            "dev_accuracy": (summary.get("best") or {}).get("accuracy"),
            **{k: config.get(k) for k in ("model", "seed", "shared_noise_std", "max_seq_length", "epochs")},
            "learning_rate": config.get("optim", {}).get("learning_rate"),
        }
    return result


@dataclass(frozen=True)
class RunScore:
    lang: str
    std: float
    seed: int
    correct: dict[str, np.ndarray]
    """Split → 0/1 per example."""

    def accuracy(self, split: str) -> float:
        return float(self.correct[split].mean())

    @property
    def drop(self) -> float:
        return self.accuracy("clean") - self.accuracy("perturbed")


def load_scores(folder: Path) -> list[RunScore]:
    """Every `<lang>-s<S>-seed<N>.json` of `folder`."""
    runs = []
    for path in sorted(folder.glob("*.json")):
        match = NAME.match(path.name)
        if not match:
            continue
        data = json.loads(path.read_text())
        correct = {s: np.array([c == "1" for c in data[s]["correct"]], dtype=float) for s in SPLITS}
        runs.append(RunScore(match["lang"], float(match["std"]), int(match["seed"]), correct))
    return runs


def t_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its 95% Student-t interval (nan bounds for a single value)."""
    array = np.asarray(values, dtype=float)
    mean = float(array.mean())
    if len(array) < 2:
        return mean, math.nan, math.nan
    half = T_975.get(len(array) - 1, 1.96) * float(array.std(ddof=1)) / math.sqrt(len(array))
    return mean, mean - half, mean + half


def bootstrap_interval(per_example: np.ndarray, resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95% percentile interval of the mean of `per_example` (examples × seeds), resampling examples."""
    rng = np.random.default_rng(seed)
    n = per_example.shape[0]
    means = per_example[rng.integers(0, n, size=(resamples, n))].mean(axis=(1, 2))
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def paired(runs: list[RunScore], lang: str, std: float) -> dict[str, Any] | None:
    """Differences of arm `std` against S = 0 in `lang`, paired by seed (None when no seed has both)."""
    control = {r.seed: r for r in runs if r.lang == lang and r.std == 0}
    arm = {r.seed: r for r in runs if r.lang == lang and r.std == std}
    seeds = sorted(set(control) & set(arm))
    if not seeds:
        return None
    out: dict[str, Any] = {"seeds": seeds}
    for measure in (*SPLITS, "drop"):
        if measure == "drop":
            diffs = [arm[s].drop - control[s].drop for s in seeds]
            per_example = np.stack(
                [
                    (arm[s].correct["clean"] - arm[s].correct["perturbed"])
                    - (control[s].correct["clean"] - control[s].correct["perturbed"])
                    for s in seeds
                ],
                axis=1,
            )
        else:
            diffs = [arm[s].accuracy(measure) - control[s].accuracy(measure) for s in seeds]
            per_example = np.stack([arm[s].correct[measure] - control[s].correct[measure] for s in seeds], axis=1)
        mean, low, high = t_interval(diffs)
        out[measure] = {
            "per_seed": diffs,
            "mean": mean,
            "t95": [low, high],
            "bootstrap95": list(bootstrap_interval(per_example)),
        }
    return out


def decision(difference: dict[str, Any] | None) -> str:
    """The protocol's verdict for one language and S (it is made over three seeds or more)."""
    if difference is None or len(difference["seeds"]) < 3:
        return "not enough seeds"
    low, high = difference["perturbed"]["t95"]
    clean_high = difference["clean"]["t95"][1]
    if low > 0 and clean_high >= 0:
        return "more robust"
    if high < 0:
        return "less robust"
    return "no difference shown"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def _span(values: Sequence[float]) -> str:
    return f"({100 * min(values):.1f}–{100 * max(values):.1f})" if len(values) > 1 else ""


def _interval(bounds: Sequence[float]) -> str:
    return "—" if any(math.isnan(b) for b in bounds) else f"[{_pts(bounds[0])}, {_pts(bounds[1])}]"


def report(runs: list[RunScore]) -> str:
    """The result page's tables (Markdown)."""
    lines: list[str] = []
    for lang in sorted({r.lang for r in runs}):
        mine = sorted((r for r in runs if r.lang == lang), key=lambda r: (r.std, r.seed))
        lines += [
            f"### {lang}: every run",
            "",
            "| S | seed | clean (Wilson 95%) | perturbed (Wilson 95%) | drop (points) |",
            "|---|---|---|---|---|",
        ]
        for r in mine:
            cells = []
            for split in SPLITS:
                p = Proportion(float(r.correct[split].sum()), len(r.correct[split]))
                low, high = p.interval()
                cells.append(f"{_pct(p.rate)} [{_pct(low)}, {_pct(high)}]")
            lines.append(f"| {r.std:g} | {r.seed} | {cells[0]} | {cells[1]} | {100 * r.drop:.1f} |")
        lines += [
            "",
            f"### {lang}: arm means (lowest–highest seed) and differences against S = 0, paired by seed",
            "",
            "Differences in points: the mean over seeds, `t` its 95% t-interval over the seeds, `b` the 95% bootstrap",
            "interval of the per-example difference pooled over the seeds (examples resampled).",
            "",
            "| S | seeds | clean | perturbed | drop | Δ clean | Δ perturbed | Δ drop | decision |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for std in sorted({r.std for r in mine}):
            arm = [r for r in mine if r.std == std]
            means = [float(np.mean([r.accuracy(s) for r in arm])) for s in SPLITS]
            drop = float(np.mean([r.drop for r in arm]))
            difference = paired(runs, lang, std) if std > 0 else None
            cells = ["", "", "", "control"]
            if difference:
                cells = [
                    f"{_pts(difference[m]['mean'])} t {_interval(difference[m]['t95'])} "
                    f"b {_interval(difference[m]['bootstrap95'])}"
                    for m in (*SPLITS, "drop")
                ] + [decision(difference)]
            spans = [_span([r.accuracy(s) for r in arm]) for s in SPLITS]
            row = [
                f"{std:g}",
                str(len(arm)),
                *(f"{_pct(m)} {span}".strip() for m, span in zip(means, spans, strict=True)),
            ]
            row += [f"{100 * drop:.1f}", *cells]
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("score", help="score one fine-tuned model on a task's clean and perturbed sets")
    one.add_argument("--model", type=Path, required=True, help="a fine-tuned classifier (from_pretrained folder)")
    one.add_argument("--data", type=Path, required=True, help="folder with clean.tsv and perturbed.tsv")
    one.add_argument("--output", type=Path, required=True, help="the JSON to write")
    one.add_argument("--max-seq-length", type=int, default=128)
    one.add_argument("--threads", type=int, default=1)
    every = commands.add_parser("report", help="the result page's tables from a folder of scores")
    every.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.command == "score":
        import torch

        torch.set_num_threads(args.threads)
        for path in (args.model / "config.json", args.data / "clean.tsv", args.data / "perturbed.tsv"):
            if not path.is_file():
                parser.error(f"{path} is missing; --model is a fine-tuned folder and --data holds clean/perturbed.tsv.")
        result = score(args.model, args.data, max_seq_length=args.max_seq_length)
        args.output.parent.mkdir(parents=True, exist_ok=True)
        temp = args.output.with_suffix(".tmp")
        temp.write_text(json.dumps(result, indent=1) + "\n")
        temp.replace(args.output)
        logger.info(
            "%s: clean %.4f, perturbed %.4f, drop %.4f",
            args.output.name,
            result["clean"]["accuracy"],
            result["perturbed"]["accuracy"],
            result["drop"],
        )
    else:
        sys.stdout.write(report(load_scores(args.folder)) + "\n")


if __name__ == "__main__":
    main()
