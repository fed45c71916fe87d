"""Package a pretraining run as a shipped model: `assets/models/<name>/` (config, fp16
safetensors, tokenizer, metrics.json, model card, training log) plus its curve in
`assets/runs/<name>.csv` and a row in `assets/runs/summary.csv`.

The held-out metrics in the card are measured again here, on the shipped (fp16-stored,
fp32-loaded) weights, with the same held-out batches the run used — so the card describes
the file a user downloads, not the training-time copy.

    python -m scripts.package_model runs/albert-lab-base albert-lab-base --valid ../shared/corpus/gutenberg-valid.txt.xz
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import logging
import shutil
from pathlib import Path

import torch

from albert import AlbertForPreTraining, count_parameters
from albert.cli import option
from albert.corpus import TokenizedCorpus
from albert.data import PretrainingDataConfig, make_eval_batches
from albert.io import atomic_write_text
from albert.pretrain import evaluate
from albert.tokenizer import load_tokenizer
from albert.training import STATE_NAME, load_training_state

logger = logging.getLogger("scripts.package_model")
CURVE_COLUMNS = ("step", "tokens", "split", "loss", "mlm_loss", "sop_loss", "mlm_accuracy", "sop_accuracy",
                 "nsp_accuracy", "lr", "tokens_per_second", "elapsed_seconds")
SUMMARY_COLUMNS = ("run", "sharing", "objective", "parameters", "tokens", "steps", "mlm_accuracy", "sop_accuracy",
                   "nsp_accuracy")


def held_out_metrics(model: AlbertForPreTraining, run_config: dict, valid: list[str], tokenizer,
                     cache_dir: Path) -> dict[str, float]:
    """MLM accuracy at [MASK]ed positions and SOP / NSP accuracy, as the run measured them."""
    corpus = TokenizedCorpus.build(valid, tokenizer, cache_dir)
    data = PretrainingDataConfig(**run_config["data"])
    result: dict[str, float] = {}
    for objective in ("sop", "nsp"):
        held_out = dataclasses.replace(data, objective=objective, seed=run_config["seed"] + 1)
        batches = make_eval_batches(corpus, held_out, tokenizer.pad_token_id, run_config["eval_examples"],
                                    batch_size=64)
        scores = evaluate(model, batches, torch.device("cpu"), "fp32")
        result[f"{objective}_accuracy"] = round(scores["pair_accuracy"], 4)
        if objective == data.objective:
            result["mlm_accuracy"] = round(scores["mlm_accuracy"], 4)
            result["mlm_loss"] = round(scores["mlm_loss"], 4)
    result["eval_examples"] = run_config["eval_examples"]
    return result


SCHEDULING_OPTIONS = ("resume", "max_minutes", "stop_after_steps")


def command_line(run_config: dict) -> str:
    """The `python -m albert.pretrain` command equivalent to the run's recorded config, as one
    uninterrupted run: how the run was scheduled (resumed, stopped by a time or step budget) is
    left out, because it does not change what is computed."""
    parts = ["python -m albert.pretrain"]
    defaults = {"compile": False}
    for key, value in run_config.items():
        if key in SCHEDULING_OPTIONS:
            continue
        if key in ("data", "optim"):
            parts += [option(f"{key}.{k.replace('_', '-')}", v) for k, v in value.items()]
        elif key == "model_overrides":
            parts += [option(f"model.{k.replace('_', '-')}", v) for k, v in value.items()]
        elif isinstance(value, list):
            parts.append(f"--{key.replace('_', '-')} " + " ".join(map(str, value)))
        elif value is not None and defaults.get(key) != value:
            parts.append(option(key.replace("_", "-"), value))
    return " \\\n    ".join(parts)


def write_card(target: Path, name: str, summary: dict, metrics: dict, parameters: int, notes: str) -> None:
    config = summary["config"]
    model_config = json.loads((target / "config.json").read_text())
    minutes = summary["wall_seconds"] / 60
    card = f"""---
language: en
license: apache-2.0
library_name: albert-lab
tags: [albert, fill-mask, sentence-order-prediction]
---
# {name}

An ALBERT trained from scratch by ALBERT Lab's own pipeline (`python -m albert.pretrain`) on a
2-core CPU. It is a teaching model: small, fast, honest about what it learned.

| | |
|---|---|
| architecture | {_architecture(model_config)} |
| parameters | {parameters:,} (AlbertForPreTraining; weights stored in fp16, loaded as fp32) |
| objective | MLM (n-gram masking, n ≤ {config['data']['max_ngram']}) + {config['data']['objective'].upper()} |
| corpus | Project Gutenberg, 301 public-domain books (`gutenberg-train.txt.xz`, 110 MB) |
| held-out text | 17 other books (`gutenberg-valid.txt.xz`), never seen in training |
| steps | {summary['steps']:,} × batch {config['batch_size']} × {config['data']['max_seq_length']} tokens |
| tokens seen | {summary['tokens']:,} (non-padding) |
| wall time | {minutes:.0f} minutes on {summary['hardware']} |

## Held-out results (measured on these shipped weights)

| metric | value |
|---|---|
| MLM top-1 accuracy at `[MASK]`ed positions | {metrics['mlm_accuracy']:.1%} |
| sentence-order (SOP) accuracy | {metrics['sop_accuracy']:.1%} |
| next-sentence (NSP) accuracy | {metrics['nsp_accuracy']:.1%} |

{metrics['eval_examples']} held-out examples per task; every selected MLM position is replaced by `[MASK]`
(training batches overstate MLM accuracy because 10% of targets are left visible).

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
    return (f"V {c['vocab_size']}, E {c['embedding_size']}, H {c['hidden_size']}, {c['num_attention_heads']} heads, "
            f"FFN {c['intermediate_size']}, {c['num_hidden_layers']} passes, sharing `{c['sharing']}`, "
            f"{c['max_position_embeddings']} positions")


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
        raise ValueError(f"{run_dir}: neither final/ nor checkpoint/ holds the weights of step {steps:,} that "
                         f"summary.json reports (checkpoint/ is at step {checkpoint_step}); resume the run to "
                         "finish it.")
    if final_summary.is_file():
        logger.warning("%s/final is from an earlier plan; packaging checkpoint/ (step %d)", run_dir, steps)
    return checkpoint


def package(run_dir: Path, name: str, valid: list[str], assets: Path, notes: str) -> dict:
    summary = json.loads((run_dir / "summary.json").read_text())
    source = weights_at_step(run_dir, summary["steps"])
    tokenizer = load_tokenizer(run_dir / "tokenizer") if (run_dir / "tokenizer").exists() else load_tokenizer(source)
    model = AlbertForPreTraining.from_pretrained(source)
    target = assets / "models" / name
    shutil.rmtree(target, ignore_errors=True)
    model.save_pretrained(target, tokenizer=tokenizer, dtype=torch.float16)
    shipped = AlbertForPreTraining.from_pretrained(target)
    metrics = held_out_metrics(shipped, summary["config"], valid, tokenizer, run_dir / "package-cache")
    parameters = count_parameters(shipped.config, "pretraining").total
    metrics.update(tokens=summary["tokens"], steps=summary["steps"], wall_seconds=summary["wall_seconds"],
                   parameters=parameters, sharing=shipped.config.sharing,
                   objective=shipped.config.sentence_objective, hardware=summary["hardware"])
    atomic_write_text(target / "metrics.json", json.dumps(metrics, indent=2) + "\n")
    shutil.copyfile(run_dir / "metrics.csv", target / "training_log.csv")
    write_card(target, name, summary, metrics, parameters, notes)

    runs = assets / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    with (run_dir / "metrics.csv").open() as stream, (runs / f"{name}.csv").open("w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=CURVE_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(csv.DictReader(stream))
    _update_summary(runs / "summary.csv", {"run": name, **{k: metrics[k] for k in SUMMARY_COLUMNS if k in metrics}})
    logger.info("packaged %s → %s: %s", run_dir, target, metrics)
    return metrics


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
    parser.add_argument("--valid", nargs="+", required=True, help="held-out corpus files the run evaluated on")
    parser.add_argument("--assets", type=Path, default=Path("assets"))
    parser.add_argument("--notes", default="", help="a paragraph for the card (limitations, what more compute buys)")
    parser.add_argument("--curve-only", action="store_true", help="record the curve and summary, ship no weights")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    metrics = package(args.run_dir, args.name, args.valid, args.assets, args.notes)
    if args.curve_only:
        shutil.rmtree(args.assets / "models" / args.name)
    print(json.dumps(metrics, indent=2))


if __name__ == "__main__":
    main()
