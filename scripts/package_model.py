"""Package a pretraining run as a shipped model: `assets/models/<name>/` (config, fp16
safetensors, tokenizer, metrics.json, model card, training log) plus its curve in
`assets/runs/<name>.csv` and a row in `assets/runs/summary.csv` (a non-English model: in `assets/runs/<language>/`).

The held-out metrics in the card are measured again here, on the shipped (fp16-stored,
fp32-loaded) weights, with the same held-out batches the run used — so the card describes
the file a user downloads, not the training-time copy.

    python -m scripts.package_model runs/albert-lab-base albert-lab-base --valid ../shared/corpus/gutenberg-valid.txt.xz
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import shutil
from pathlib import Path
from typing import Any

import torch

from albert import AlbertForPreTraining, count_parameters
from albert.cli import option
from albert.data.tokenizer import load_tokenizer
from albert.io import atomic_write_text
from albert.training.state import STATE_NAME, MetricsLog, load_training_state

logger = logging.getLogger("scripts.package_model")
EVAL_EXAMPLES = 3000
"""Held-out pipeline examples per task: about 26,000 masked positions and 3,000 pairs at 64 tokens."""
ORDER_PAIRS = 3000
"""Held-out order pairs, each asked in both orders (experiments/score_models.py)."""
METRIC_ROWS = (
    ("mlm", "MLM top-1 accuracy at `[MASK]`ed positions", "positions"),
    ("order", "prefers the true order (each pair asked both ways)", "pairs"),
    ("topic", "prefers the real next text over another document's", "pairs"),
    ("order_replication", "prefers the true order, second draw (no sentence shared with the first)", "pairs"),
    ("topic_replication", "prefers the real next, second draw", "pairs"),
)
REPLICATION_NOTE = """The second draw (`experiments/score_models.py --pair-seed 1 --avoid-pair-seed 0`) asks the same
questions on held-out pairs that share no sentence with the first draw's; a figure is called above chance only when
both draws say so."""
RESULTS_INTRO = """Every selected MLM position is replaced by `[MASK]` (training batches overstate MLM accuracy
because 10% of targets are left visible), in the format the model was trained on (a sentence pair, or one segment for
an MLM-only model); intervals are Wilson 95%. The order pairs are two consecutive runs of whole sentences of the
held-out text, built centre-out so that no length or edge gives the order away (a decision tree on lengths and edges
scores 50%), and every pair is asked in both orders: "prefers the true order" is chance at 50% whatever the model's
bias. The topic check asks the same A with its real next text and with a segment of another document
(`albert.data.sentence_order`; `experiments/score_models.py` re-checks these figures). An interval that holds 50% is a
coin toss."""


CURVE_COLUMNS = tuple(c for c in MetricsLog.COLUMNS if c not in {"accuracy", "grad_norm"})
"""A pretraining run's metrics.csv columns as shipped in assets/runs (no fine-tuning accuracy, no gradient norm)."""
SUMMARY_COLUMNS = (
    "run",
    "sharing",
    "objective",
    "embedding_size",
    "seed",
    "parameters",
    "tokens",
    "steps",
    "mlm_accuracy",
    "mlm_low",
    "mlm_high",
    "order_accuracy",
    "order_low",
    "order_high",
    "topic_accuracy",
    "topic_low",
    "topic_high",
    "order_replication_accuracy",
    "order_replication_low",
    "order_replication_high",
)


def held_out_metrics(
    directory: Path,
    valid: list[str],
    cache_dir: Path,
    examples: int = EVAL_EXAMPLES,
    pairs: int = ORDER_PAIRS,
    mlm_max_ngram: int | None = None,
    device: str = "cpu",
) -> dict[str, Any]:
    """Held-out MLM (at [MASK]), order and topic of the shipped folder, with Wilson 95% intervals:
    `experiments/score_models.py`, the bar that re-checks every card.
    `mlm_max_ngram` (recorded with the figures when given) sets the MLM spans: 1 scores single pieces."""
    from albert.training.pretraining_evaluation import score_model

    scores = score_model(directory, valid, examples, pairs, cache_dir, max_ngram=mlm_max_ngram, device=device)
    result: dict[str, Any] = {} if mlm_max_ngram is None else {"mlm_max_ngram": mlm_max_ngram}
    for name, score in scores.items():
        result[f"{name}_accuracy"] = round(score.rate, 4)
        result[f"{name}_ci95"] = [round(bound, 4) for bound in score.interval()]
        result[f"{name}_n"] = score.total
    return result


REPO = Path(__file__).resolve().parents[1]
SCHEDULING_OPTIONS = ("resume", "resume_or_start", "overwrite", "allow_unverified", "max_minutes", "stop_after_steps")


def portable_path(text: str) -> str:
    """A recorded path as a card or metrics.json may show it, never this machine's: a path inside the repository
    relative to it, one with a `runs` folder from there on (`/any/where/runs/sst2` → `runs/sst2`), any other absolute
    path its last part; relative paths and other text unchanged."""
    if not text.startswith("/"):
        return text
    path = Path(text)
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        pass
    parts = path.parts
    return str(Path(*parts[parts.index("runs") :])) if "runs" in parts else path.name


def portable_paths(value: Any) -> Any:
    """`value` (a run's recorded results: dicts, lists, strings) with every absolute path made `portable_path`."""
    if isinstance(value, str):
        return portable_path(value)
    if isinstance(value, dict):
        return {key: portable_paths(item) for key, item in value.items()}
    if isinstance(value, list):
        return [portable_paths(item) for item in value]
    return value


def command_line(run_config: dict) -> str:
    """The `python -m albert.pretrain` command equivalent to the run's recorded config, as one
    uninterrupted run: how the run was scheduled (resumed, stopped by a time or step budget) is
    left out, because it does not change what is computed."""
    parts = ["python -m albert.pretrain"]
    defaults = {"compile": False}
    # Runs recorded before --vocab-size became optional hold 16000 beside --tokenizer, which ignored it; the
    # command refuses the pair now.
    brought = run_config.get("tokenizer") or run_config.get("init_from")
    for key, value in portable_paths(run_config).items():
        if key in SCHEDULING_OPTIONS or (key == "vocab_size" and brought):
            continue
        if key in ("data", "optim"):
            parts += [option(f"{key}.{k.replace('_', '-')}", v) for k, v in value.items()]
        elif key == "model_overrides":
            parts += [option(f"model.{k.replace('_', '-')}", v) for k, v in value.items()]
        elif isinstance(value, list):
            if value:  # an empty list is the default (no --valid-corpus); the flag alone would not parse
                parts.append(f"--{key.replace('_', '-')} " + " ".join(map(str, value)))
        elif value not in (None, "") and defaults.get(key) != value:
            parts.append(option(key.replace("_", "-"), value))
    return " \\\n    ".join(parts)


def metric_rows(metrics: dict[str, Any]) -> str:
    rows = []
    for key, label, unit in METRIC_ROWS:
        if f"{key}_accuracy" not in metrics and key.endswith("_replication"):
            continue  # recorded only once a second draw was scored
        if f"{key}_accuracy" not in metrics:
            rows.append(f"| {label} | — (no sentence head) | | |" if key != "mlm" else f"| {label} | — | | |")
            continue
        low, high = metrics[f"{key}_ci95"]
        rows.append(
            f"| {label} | {metrics[f'{key}_accuracy']:.1%} | {low:.1%} – {high:.1%} | {metrics[f'{key}_n']:,} {unit} |"
        )
    return "\n".join(rows)


def _objective(data: dict[str, Any]) -> str:
    spans = "single-piece masks" if data["max_ngram"] == 1 else f"n-gram masking, n ≤ {data['max_ngram']}"
    masking = spans + (", whole words" if data.get("whole_word_masking") else "")
    if data["objective"] == "none":
        return f'MLM only ({masking}); no sentence-pair head (the paper\'s Table 5 "None")'
    segments = {"sentences": "whole-sentence segments", "reference": "the reference cut"}
    return f"MLM ({masking}) + {data['objective'].upper()}, {segments[data.get('segments', 'reference')]}"


CORPORA = {
    "gutenberg-train": (
        "Project Gutenberg, 301 public-domain books (`gutenberg-train.txt.xz`, 110 MB)",
        "17 other books (`gutenberg-valid.txt.xz`), never seen in training",
    ),
    "peoples-daily-199801-train": (
        "People's Daily, January 1998: 2,530 articles, 1.7M characters, with the corpus's own word segmentation",
        "130 other articles, never seen in training",
    ),
}


def _corpus_lines(config: dict[str, Any]) -> tuple[str, str]:
    names = [Path(p).name for p in config["corpus"]]
    for stem, lines in CORPORA.items():
        if any(name.startswith(stem) for name in names):
            extra = [n for n in names if not n.startswith(stem)]
            return (lines[0] + (f" + {', '.join(f'`{n}`' for n in extra)}" if extra else ""), lines[1])
    return ", ".join(f"`{n}`" for n in names), ", ".join(f"`{Path(p).name}`" for p in config["valid_corpus"])


def write_card(
    target: Path,
    name: str,
    summary: dict,
    metrics: dict,
    parameters: int,
    notes: str,
    language: str = "en",
    prior: dict[str, Any] | None = None,
) -> None:
    config = summary["config"]
    machine = "a 2-core CPU" if str(summary.get("device", "cpu")).startswith("cpu") else f"one {summary['hardware']}"
    if prior:
        origin = (
            f"An ALBERT continued by ALBERT Lab's own pipeline (`python -m albert.pretrain --init-from`) from\n"
            f"`{prior['init_from']}` ({prior['tokens']:,} tokens before this run) on {machine}."
        )
        tokens = f"{metrics['tokens']:,} in all (non-padding): {prior['tokens']:,} before, {summary['tokens']:,} here"
    else:
        origin = (
            f"An ALBERT trained from scratch by ALBERT Lab's own pipeline (`python -m albert.pretrain`) on\n{machine}."
        )
        tokens = f"{summary['tokens']:,} (non-padding)"
    corpus, held_out = _corpus_lines(config)
    model_config = json.loads((target / "config.json").read_text())
    minutes = summary["wall_seconds"] / 60
    planned_steps = summary.get("planned_steps", summary["steps"])
    planned = f" (stopped early: {planned_steps:,} were planned)" if summary["steps"] < planned_steps else ""
    card = f"""---
language: {language}
license: apache-2.0
library_name: albert-lab
tags: [albert, fill-mask, sentence-order-prediction]
---
# {name}

{origin} It is a teaching model: small, fast, honest about what it learned.

| | |
|---|---|
| architecture | {_architecture(model_config)} |
| parameters | {parameters:,} (AlbertForPreTraining; weights stored in fp16, loaded as fp32) |
| objective | {_objective(config["data"])} |
| corpus | {corpus} |
| held-out text | {held_out} |
| steps | {summary["steps"]:,}{planned} × batch {config["batch_size"]} × {config["data"]["max_seq_length"]} tokens |
| tokens seen | {tokens} |
| wall time | {minutes:.0f} minutes on {summary["hardware"]} |

## Held-out results (measured on these shipped weights)

| metric | accuracy | 95% interval | n |
|---|---|---|---|
{metric_rows(metrics)}

{RESULTS_INTRO}

{notes}

## Training log
`training_log.csv` (every 10 steps: loss, MLM/SOP accuracy on training batches, learning rate,
tokens/s; `split=eval` rows are held-out evaluations).

## Reproduce
```
{command_line(config)}
```
"""
    atomic_write_text(target / "README.md", card)


def _architecture(c: dict) -> str:
    return (
        f"V {c['vocab_size']}, E {c['embedding_size']}, H {c['hidden_size']}, {c['num_attention_heads']} heads, "
        f"FFN {c['intermediate_size']}, {c['num_hidden_layers']} passes, sharing `{c['sharing']}`, "
        f"{c['max_position_embeddings']} positions"
    )


def weights_at_step(run_dir: Path, steps: int) -> Path:
    """The run's weights at its last recorded step: `final` when it was written at that step, else
    the checkpoint. A run resumed with a longer plan keeps the earlier plan's `final` until it
    finishes again; packaging that stale copy would ship the wrong model under the new numbers."""
    final_summary = run_dir / "final" / "training_summary.json"
    if final_summary.is_file() and json.loads(final_summary.read_text())["steps"] == steps:
        return run_dir / "final"
    checkpoint = run_dir / "checkpoint"
    checkpoint_step = load_training_state(checkpoint)["step"] if (checkpoint / STATE_NAME).is_file() else None
    if checkpoint_step != steps:
        raise ValueError(
            f"{run_dir}: neither final/ nor checkpoint/ holds the weights of step {steps:,} that "
            f"summary.json reports (checkpoint/ is at step {checkpoint_step}); resume the run to "
            "finish it."
        )
    if final_summary.is_file():
        logger.warning("%s/final is from an earlier plan; packaging checkpoint/ (step %d)", run_dir, steps)
    return checkpoint


def prior_training(config: dict) -> dict[str, Any] | None:
    """What a run started with `--init-from` had already learned: the starting folder and its tokens (from its
    metrics.json, as shipped models have), or None for a run from random weights."""
    start = config.get("init_from")
    if not start:
        return None
    recorded = Path(start) / "metrics.json"
    tokens = json.loads(recorded.read_text()).get("tokens", 0) if recorded.is_file() else 0
    return {"init_from": start, "tokens": int(tokens)}


def package(run_dir: Path, name: str, valid: list[str], assets: Path, notes: str, language: str = "en") -> dict:
    summary = json.loads((run_dir / "summary.json").read_text())
    # the card describes one process's equivalent: the global batch (several processes each take a slice of it)
    summary["config"]["batch_size"] *= summary.get("world_size", 1)
    prior = prior_training(summary["config"])
    source = weights_at_step(run_dir, summary["steps"])
    tokenizer = load_tokenizer(run_dir / "tokenizer") if (run_dir / "tokenizer").exists() else load_tokenizer(source)
    model = AlbertForPreTraining.from_pretrained(source)
    target = assets / "models" / name
    shutil.rmtree(target, ignore_errors=True)
    model.save_pretrained(target, tokenizer=tokenizer, dtype=torch.float16)
    shipped = AlbertForPreTraining.from_pretrained(target)
    # a character vocabulary is scored on single characters (issue 16's target), English on n-gram spans
    metrics = held_out_metrics(target, valid, run_dir / "package-cache", mlm_max_ngram=1 if language == "zh" else None)
    parameters = count_parameters(shipped.config, "pretraining").total
    metrics.update(
        tokens=summary["tokens"] + (prior["tokens"] if prior else 0),
        **({"run_tokens": summary["tokens"], "init_from": prior["init_from"]} if prior else {}),
        steps=summary["steps"],
        wall_seconds=summary["wall_seconds"],
        parameters=parameters,
        sharing=shipped.config.sharing,
        objective=shipped.config.sentence_objective,
        hardware=summary["hardware"],
    )
    atomic_write_text(target / "metrics.json", json.dumps(metrics, indent=2) + "\n")
    shutil.copyfile(run_dir / "metrics.csv", target / "training_log.csv")
    write_card(target, name, summary, metrics, parameters, notes, language, prior)

    # the Sharing modes tab compares the English family; another language's curve and row go to runs/<language>/
    runs = assets / "runs" if language == "en" else assets / "runs" / language
    runs.mkdir(parents=True, exist_ok=True)
    with (run_dir / "metrics.csv").open() as stream, (runs / f"{name}.csv").open("w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=CURVE_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for row in csv.DictReader(stream):  # a continued run's curve goes on from its start's token count
            if prior and row.get("tokens"):
                row["tokens"] = str(int(float(row["tokens"])) + prior["tokens"])
            writer.writerow(row)
    row = {"run": name, "embedding_size": shipped.config.embedding_size, "seed": summary["config"]["seed"]}
    _update_summary(runs / "summary.csv", _summary_row(row, metrics))
    if language == "en":  # every English card and docs/results/ablations.md show the family with this arm
        _update_family_tables(assets)
    logger.info("packaged %s → %s: %s", run_dir, target, metrics)
    return metrics


def rescore(directory: Path, valid: list[str], note: str, cache_dir: Path) -> dict[str, Any]:
    """Re-measure a shipped folder with today's bar: metrics.json gets the new figures (its training facts
    kept), the card's results table is replaced, followed by `note` (why the figures changed), and the folder's row
    in its summary.csv (assets/runs, or assets/runs/<language>) and the family tables follow."""
    metrics = json.loads((directory / "metrics.json").read_text(encoding="utf-8"))
    stale = {k for k in metrics if k.endswith(("_accuracy", "_ci95", "_n")) or k in ("eval_examples", "mlm_loss")}
    max_ngram = metrics.get("mlm_max_ngram")
    metrics = {k: v for k, v in metrics.items() if k not in stale} | held_out_metrics(
        directory, valid, cache_dir, mlm_max_ngram=max_ngram
    )
    atomic_write_text(directory / "metrics.json", json.dumps(metrics, indent=2) + "\n")
    card = (directory / "README.md").read_text(encoding="utf-8")
    start = card.index("## Held-out results")
    end = card.index("\n\n", card.index("|---", start))  # the end of the old table
    end = card.index("\n\n", end + 2) if card[end + 2 :].startswith(("1024", "Every")) else end  # and its footnote
    table = (
        "## Held-out results (measured on these shipped weights)\n\n| metric | accuracy | 95% interval | n |\n"
        f"|---|---|---|---|\n{metric_rows(metrics)}\n\n{RESULTS_INTRO}\n\n{note}"
    )
    atomic_write_text(directory / "README.md", card[:start] + table.rstrip() + card[end:])
    _update_summary_metrics(directory, metrics)
    return metrics


def record_replication(directory: Path, scores: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Record a second draw's figures (`experiments/score_models.py --pair-seed 1 --avoid-pair-seed 0 --output`, this
    folder's entry) as `order_replication_*` and `topic_replication_*` in metrics.json, in the card's results table
    and in the folder's summary.csv row."""
    metrics = json.loads((directory / "metrics.json").read_text(encoding="utf-8"))
    for name in ("order", "topic"):
        if name in scores:
            score = scores[name]
            metrics[f"{name}_replication_accuracy"] = score["rate"]
            metrics[f"{name}_replication_ci95"] = score["ci95"]
            metrics[f"{name}_replication_n"] = score["n"]
    atomic_write_text(directory / "metrics.json", json.dumps(metrics, indent=2) + "\n")
    card = (directory / "README.md").read_text(encoding="utf-8")
    start = card.index("| metric | accuracy | 95% interval | n |")
    end = card.index("\n\n", start)
    table = f"| metric | accuracy | 95% interval | n |\n|---|---|---|---|\n{metric_rows(metrics)}"
    card = card[:start] + table + card[end:]
    if REPLICATION_NOTE.split("\n")[0] not in card:
        intro = card.index("coin toss.", start) + len("coin toss.")
        card = card[:intro] + "\n" + REPLICATION_NOTE + card[intro:]
    atomic_write_text(directory / "README.md", card)
    _update_summary_metrics(directory, metrics)
    return metrics


def _update_summary_metrics(directory: Path, metrics: dict[str, Any]) -> None:
    """The folder's row in its summary.csv (assets/runs, or assets/runs/<language>) takes `metrics`."""
    assets = directory.parent.parent
    for summary in (assets / "runs" / "summary.csv", *(assets / "runs").glob("*/summary.csv")):
        rows = list(csv.DictReader(summary.open())) if summary.is_file() else []
        row = next((r for r in rows if r["run"] == directory.name), None)
        if row is not None:
            kept = {k: v for k, v in row.items() if k in ("run", "embedding_size", "seed")}
            _update_summary(summary, _summary_row(kept, metrics))
            if summary.parent == assets / "runs":  # the English family: its tables follow
                _update_family_tables(assets)


def _summary_row(row: dict[str, Any], metrics: dict[str, Any]) -> dict[str, Any]:
    """A summary.csv row: `row` (run, embedding size, seed) with the metrics and each interval as low/high."""
    row = {**row, **metrics}
    for key, _, _ in METRIC_ROWS:
        if f"{key}_ci95" in metrics:
            row[f"{key}_low"], row[f"{key}_high"] = metrics[f"{key}_ci95"]
    return row


def _update_family_tables(assets: Path) -> None:
    from scripts.family_table import FAMILY_PAGE, update_family_tables

    update_family_tables(assets, assets.parent / FAMILY_PAGE)


def _update_summary(path: Path, row: dict) -> None:
    rows = list(csv.DictReader(path.open())) if path.exists() else []
    rows = [r for r in rows if r["run"] != row["run"]] + [row]
    with path.open("w", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=SUMMARY_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(sorted(rows, key=lambda r: r["run"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("name")
    parser.add_argument(
        "--valid", nargs="+", help="held-out corpus files the run evaluated on (not with --replication)"
    )
    parser.add_argument("--assets", type=Path, default=Path("assets"))
    parser.add_argument("--notes", default="", help="a paragraph for the card (limitations, what more compute buys)")
    parser.add_argument("--curve-only", action="store_true", help="record the curve and summary, ship no weights")
    parser.add_argument("--language", default="en", help="the card's language tag (en, zh)")
    parser.add_argument(
        "--rescore",
        action="store_true",
        help="RUN_DIR is a shipped folder: re-measure it and rewrite its card's results (--notes)",
    )
    parser.add_argument(
        "--replication",
        type=Path,
        help="RUN_DIR is a shipped folder: record its second draw from this experiments/score_models.py --output JSON",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.replication:
        scores = json.loads(args.replication.read_text(encoding="utf-8"))[args.run_dir.name]
        print(json.dumps(record_replication(args.run_dir, scores), indent=2))
        return
    if not args.valid:
        parser.error("--valid is required (the held-out corpus files) unless --replication records scored figures.")
    if args.rescore:
        print(json.dumps(rescore(args.run_dir, args.valid, args.notes, Path("runs/cache/valid")), indent=2))
        return
    metrics = package(args.run_dir, args.name, args.valid, args.assets, args.notes, args.language)
    if args.curve_only:
        shutil.rmtree(args.assets / "models" / args.name)
    print(json.dumps(metrics, indent=2))


if __name__ == "__main__":
    main()
