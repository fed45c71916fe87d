"""Ship a sentiment model fine-tuned by `scripts.finetune_sentiment` under assets/sentiment/ with a card.

The shipped file (fp16-stored weights) is evaluated again on the full dev set, so the card
describes what a user downloads; whether the targets were met is decided from the numbers.

    python -m scripts.ship_sentiment_model runs/sst2 assets/sentiment/albert-lab-sst2
    python -m scripts.ship_sentiment_model runs/zh-sentiment assets/sentiment/albert-lab-zh-sentiment \
        --task zh-reviews --ngram-baseline runs/zh/ngram_baseline.json

`--only-if-better` keeps the model already shipped at the target unless this run's dev accuracy is higher; when it
is, the new card names the figure of the model it replaced.
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
from collections.abc import Sequence
from pathlib import Path

import torch

from albert import AlbertForSequenceClassification
from albert.data.tokenizer import load_tokenizer
from albert.training.state import replace_directory
from scripts.finetune_sentiment import quantized_scores
from scripts.package_model import portable_paths
from scripts.record_dev_labels import dev_label_counts
from scripts.sentiment_card import SENTIMENT_TASKS, SST2, card

# Budget fields that must agree between runs compared with each other (not the model, paths, timing).
COMPARED_BUDGET = (
    "max_train_examples",
    "max_seq_length",
    "epochs",
    "batch_size",
    "learning_rate",
    "scratch_learning_rate",
    "warmup_fraction",
    "layer_decay",
    "eval_every",
    "seed",
)


def _same_budget(a: dict, b: dict, what: str) -> None:
    differing = [k for k in COMPARED_BUDGET if a["budget"].get(k) != b["budget"].get(k)]
    if differing:
        raise ValueError(
            f"{what} ({b['budget']['output_dir']}) has another budget than "
            f"{a['budget']['output_dir']}: {', '.join(differing)} differ."
        )


def with_baselines(results: dict, scratch: dict | None = None, control: dict | None = None) -> dict:
    """A `--skip-scratch` run joined with its baselines from other runs of the same budget and seed:
    `scratch`, a run whose from-scratch arm is the plain baseline, and `control`, a run that started
    from a model given the same extra pretraining from random weights (e.g. task-adaptive pretraining:
    is the gain from the books or from the task text?)."""
    results = dict(results)
    if scratch is not None:
        _same_budget(results, scratch, "the from-scratch run")
        results["from_scratch"] = scratch["from_scratch"]
        results["from_scratch_run"] = scratch["budget"]["output_dir"]
        results["pretraining_gain_points"] = 100 * (
            results["pretrained"]["accuracy"] - scratch["from_scratch"]["accuracy"]
        )
    if control is not None:
        _same_budget(results, control, "the control run")
        results["control"] = {
            **control["pretrained"],
            "model": control["model"],
            "run": control["budget"]["output_dir"],
        }
        results["control_gain_points"] = 100 * (results["pretrained"]["accuracy"] - control["pretrained"]["accuracy"])
    return results


def adaptation_summary(model_directory: Path) -> dict | None:
    """What `albert.pretrain --init-from` did to the fine-tuned starting point, from its training_summary.json."""
    path = model_directory / "training_summary.json"
    summary = json.loads(path.read_text()) if path.is_file() else {}
    config = summary.get("config", {})
    if not config.get("init_from"):
        return None
    return {
        "init_from": config["init_from"],
        "corpus": config["corpus"],
        "steps": summary["steps"],
        "tokens": summary["tokens"],
        "batch_size": config["batch_size"],
        "learning_rate": config["optim"]["learning_rate"],
        "held_out": summary.get("held_out", {}),
    }


def evaluate_shipped(directory: Path, glue_dir: Path, max_seq_length: int, threads: int, latency_rounds: int) -> dict:
    """Dev accuracy and the INT8 report (accuracy, size, latency) of the shipped directory, loaded
    from its fp16 file as every user loads it. The benchmark's own latency may have been taken
    beside other runs; this one is taken alone, with `threads` CPU threads."""
    from albert.commands.finetune import FinetuneConfig, run

    with tempfile.TemporaryDirectory() as scratch:
        summary = run(
            FinetuneConfig(
                model=str(directory),
                dev_file=str(glue_dir / "dev.tsv"),
                eval_only=True,
                task="classification",
                max_seq_length=max_seq_length,
                quantize=True,
                threads=threads,
                latency_rounds=latency_rounds,
                output_dir=scratch,
            )
        ).summary
    return {"accuracy": summary["best"]["accuracy"], "quantized": quantized_scores(summary["quantized"])}


def shipped_model_summary(target: Path, task_key: str) -> dict | None:
    """Dev accuracy and schedule of the model shipped at `target` (None when none is), for `--only-if-better`."""
    path = target / "metrics.json"
    if not path.is_file():
        return None
    metrics = json.loads(path.read_text())
    budget = metrics[task_key]["budget"]
    return {
        "dev_accuracy": metrics["dev_accuracy"],
        "epochs": budget["epochs"],
        "learning_rate": budget["learning_rate"],
        "run": budget["output_dir"],
    }


def _read_results(directory: Path) -> dict:
    path = directory / "sst2_results.json"
    if not path.is_file():
        raise FileNotFoundError(
            f"{directory} holds no sst2_results.json (expected a scripts.finetune_sentiment output dir)."
        )
    return json.loads(path.read_text())


def joined_runs(
    run_dirs: Sequence[Path], scratch_dirs: Sequence[Path] = (), control_dirs: Sequence[Path] = ()
) -> list[dict]:
    """Each run's results with its baselines of the same seed (see `with_baselines`) and, when its
    starting model was continued with --init-from, what that adaptation was."""
    scratch = {r["budget"]["seed"]: r for r in map(_read_results, scratch_dirs)}
    control = {r["budget"]["seed"]: r for r in map(_read_results, control_dirs)}
    joined = []
    for directory in run_dirs:
        results = _read_results(directory)
        seed = results["budget"]["seed"]
        if (scratch_dirs and seed not in scratch) or (control_dirs and seed not in control):
            raise ValueError(f"{directory} is seed {seed}, which none of the --scratch-runs/--control-runs has.")
        results = with_baselines(results, scratch.get(seed), control.get(seed))
        adaptation = adaptation_summary(Path(results["model"]))
        if adaptation:
            results["adaptation"] = adaptation
        joined.append(results)
    return joined


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument(
        "--replicates",
        type=Path,
        nargs="*",
        default=[],
        help="output dirs of the same benchmark with other --seed values (reported beside it)",
    )
    parser.add_argument(
        "--scratch-runs",
        type=Path,
        nargs="*",
        default=[],
        help="for --skip-scratch runs: benchmark dirs (same budget) whose from-scratch arm is the "
        "baseline, matched by seed",
    )
    parser.add_argument(
        "--control-runs",
        type=Path,
        nargs="*",
        default=[],
        help="benchmark dirs (same budget) that fine-tuned the control model, matched by seed",
    )
    parser.add_argument(
        "--lr-choice",
        type=Path,
        default=None,
        help="lr_choice.json of experiments.sst2_lr_choice, when the rates were chosen on held-out "
        "training sentences (described in the card)",
    )
    parser.add_argument(
        "--task",
        choices=sorted(SENTIMENT_TASKS),
        default=SST2.key,
        help="the data set the model was fine-tuned on: its card's wording and its targets",
    )
    parser.add_argument(
        "--ngram-baseline",
        type=Path,
        default=None,
        help="experiments.ngram_baseline's JSON: a row in the card and one more target to beat",
    )
    parser.add_argument(
        "--schedule-choice",
        type=Path,
        default=None,
        help="schedule_choice.json of experiments.schedule_choice, when the rate and epochs were chosen on "
        "held-out training examples (described in the card)",
    )
    parser.add_argument(
        "--only-if-better",
        action="store_true",
        help="replace the model shipped at TARGET only if this run's dev accuracy is higher (its figure "
        "goes into the new card); else keep it and say so",
    )
    parser.add_argument("--threads", type=int, default=2, help="CPU threads for the fp32/INT8 latency")
    parser.add_argument("--latency-rounds", type=int, default=20, help="timed forward passes per model")
    args = parser.parse_args(argv)
    task = SENTIMENT_TASKS[args.task]
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        results, *replicates = joined_runs([args.run_dir, *args.replicates], args.scratch_runs, args.control_runs)
        rate_choice = json.loads(args.lr_choice.read_text()) if args.lr_choice else None
        baseline = json.loads(args.ngram_baseline.read_text()) if args.ngram_baseline else None
        schedule = json.loads(args.schedule_choice.read_text()) if args.schedule_choice else None
        replaced = shipped_model_summary(args.target, task.key) if args.only_if_better else None
    except (ValueError, KeyError, OSError) as error:
        raise SystemExit(f"ship_sentiment_model: {error}") from None
    log = logging.getLogger("scripts.ship_sentiment_model")
    if replaced and results["pretrained"]["accuracy"] <= replaced["dev_accuracy"]:
        log.info(
            "kept %s: this run's dev accuracy %.2f%% is not higher than the shipped model's %.2f%% (--only-if-better)",
            args.target,
            100 * results["pretrained"]["accuracy"],
            100 * replaced["dev_accuracy"],
        )
        return
    source = Path(results["fine_tuned_model"])
    model = AlbertForSequenceClassification.from_pretrained(source)
    base = Path(results["adaptation"]["init_from"]) if "adaptation" in results else Path(results["model"])
    base_metrics = base / "metrics.json"
    base_mlm = json.loads(base_metrics.read_text()).get("mlm_accuracy") if base_metrics.is_file() else None
    shipped: dict = {}

    def write(temp: Path) -> None:  # the previous model stays in place until the new one is complete
        model.save_pretrained(temp, tokenizer=load_tokenizer(source), dtype=torch.float16)
        shipped.update(
            evaluate_shipped(
                temp,
                Path(results["budget"]["glue_dir"]),
                results["budget"]["max_seq_length"],
                args.threads,
                args.latency_rounds,
            )
        )
        config = json.loads((temp / "config.json").read_text())
        dev_labels = dev_label_counts(Path(results["budget"]["glue_dir"]) / "dev.tsv", config)  # chance in the app
        # Recorded paths as metrics.json and the card show them: relative, never this machine's (issue 41).
        shown, shown_replicates = portable_paths(results), portable_paths(replicates)
        (temp / "metrics.json").write_text(
            json.dumps(
                {
                    "dev_accuracy": results["pretrained"]["accuracy"],
                    "shipped_dev_accuracy": shipped["accuracy"],
                    "shipped_quantized": shipped["quantized"],
                    task.key: shown,
                    "replicates": shown_replicates,
                    "learning_rate_choice": rate_choice,
                    "dev_labels": dev_labels,
                    "task": task.key,
                    "ngram_baseline": baseline,
                    "ngram_baseline_path": str(args.ngram_baseline or "") or None,
                    "schedule_choice": schedule,
                    "replaced": replaced,
                },
                indent=2,
            )
            + "\n"
        )
        (temp / "README.md").write_text(
            card(
                shown,
                config,
                shipped,
                base_mlm,
                shown_replicates,
                rate_choice,
                task,
                baseline,
                str(args.ngram_baseline) if args.ngram_baseline else None,
                schedule,
                replaced,
            )
        )

    replace_directory(args.target, write)
    log.info("shipped %s → %s (dev %.2f%% as shipped)", source, args.target, 100 * shipped["accuracy"])


if __name__ == "__main__":
    main()
