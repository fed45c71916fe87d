"""The card of a shipped sentiment model: its task and targets, the verdict on them, and the card's text.

`scripts.ship_sentiment_model` measures the shipped file and writes the card this module renders; every figure
comes from the runs' results, and whether the targets were met is decided here from those numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from albert.cli import command_for
from scripts.finetune_sentiment import SST2Config


@dataclass(frozen=True)
class SentimentTask:
    """What a sentiment model's card says about its task, and the targets the model is judged by."""

    key: str
    """`--task`, and the key of the benchmark's results in metrics.json."""
    model_name: str
    language: str
    dataset: str
    """The data set as the card's first line names it."""
    short: str
    """Its name in headings."""
    examples: str
    """What one example is ("sentences", "reviews")."""
    base_model: str
    base_description: str
    target_accuracy: float
    target_gain_points: float
    """Points above the same architecture from scratch (0: above it at all)."""
    schedule_script: str = ""
    """The script whose stage 3 chose the schedule on held-out training examples (when one did)."""


SST2 = SentimentTask(
    "sst2",
    "albert-lab-sst2",
    "en",
    "GLUE SST-2",
    "SST-2",
    "sentences",
    "albert-lab-base",
    "ALBERT Lab's CPU-pretrained default",
    0.80,
    3.0,
)


ZH_REVIEWS = SentimentTask(
    "zh-reviews",
    "albert-lab-zh-sentiment",
    "zh",
    "zh-reviews (Chinese product and book reviews)",
    "zh-reviews",
    "reviews",
    "albert-lab-zh",
    "ALBERT Lab's Chinese CPU-pretrained model",
    0.88,
    0.0,
    "scripts/train_zh_sentiment.sh",
)


SENTIMENT_TASKS = {task.key: task for task in (SST2, ZH_REVIEWS)}


def judged_gain(results: dict) -> float:
    """The gain over the stronger baseline: from scratch, or the control when there is one."""
    return min(results["pretraining_gain_points"], results.get("control_gain_points", float("inf")))


def mean_gain(runs: Sequence[dict]) -> float:
    """The pretraining gain in points, averaged over runs of the same budget with different seeds."""
    return sum(judged_gain(r) for r in runs) / len(runs)


def _gain_target(task: SentimentTask) -> str:
    return (
        f"≥ {task.target_gain_points:.0f} points above from-scratch"
        if task.target_gain_points
        else "above from-scratch"
    )


def verdict(
    results: dict,
    base_mlm_accuracy: float | None,
    replicates: Sequence[dict] = (),
    task: SentimentTask = SST2,
    baseline: dict | None = None,
) -> str:
    """One paragraph on whether pretraining helped and the targets were met, from the measured numbers.

    With other seeds run on the same budget, the gain target is judged on the mean gain over all
    seeds: one seed's gain is a noisy estimate (SST-2 dev has 872 sentences). `baseline`
    (`experiments.ngram_baseline`'s JSON), when given, is one more target: the model must beat it."""
    if "pretraining_gain_points" not in results:
        return "No from-scratch baseline was run with this budget, so the pretraining gain is not known."
    accuracy = results["pretrained"]["accuracy"]
    runs = [results, *replicates]
    gain = mean_gain(runs)
    over = f" on average over {len(runs)} seeds" if len(runs) > 1 else ""
    if "control" in results:
        over += " (against the stronger of the from-scratch baseline and the control)"
    effect = f"adds {gain:+.1f} points{over}" if gain >= 0 else f"costs {-gain:.1f} points{over}"
    base = (
        f" (held-out MLM {base_mlm_accuracy:.1%}, see `{task.base_model}`'s card)"
        if base_mlm_accuracy is not None
        else ""
    )
    missed = []
    if accuracy < task.target_accuracy:
        missed.append(f"≥ {task.target_accuracy:.0%} dev accuracy")
    if gain < task.target_gain_points or (not task.target_gain_points and gain <= 0):
        missed.append(f"{_gain_target(task)}{over}")
    if baseline is not None and accuracy <= baseline["dev_accuracy"]:
        missed.append(f"above the n-gram baseline ({baseline['dev_accuracy']:.1%})")
    if not missed:
        gain_words = f"≥ {task.target_gain_points:.0f} points above" if task.target_gain_points else "above"
        targets = [
            f"≥ {task.target_accuracy:.0%}",
            *([f"above the n-gram baseline's {baseline['dev_accuracy']:.1%}"] if baseline else []),
            f"{gain_words} the same architecture trained from scratch with the same budget",
        ]
        count = "both targets" if len(targets) == 2 else f"all {len(targets)} targets"
        return (
            f"Pretraining {effect} here: the pretrained starting point{base} reaches {accuracy:.1%}, "
            f"meeting {count} set for this model ({', '.join(targets[:-1])} and {targets[-1]})."
        )
    return (
        f"Pretraining {effect} here. Not met: {' and '.join(missed)}. The pretrained starting point{base} "
        "is a small CPU-trained model; more pretraining (a GPU run of the same scripts) is the way to the "
        "targets."
    )


def replicate_table(results: dict, replicates: Sequence[dict]) -> str:
    """The same budget with other seeds (data order, head initialisation): how much of the gain is noise."""
    if not replicates:
        return ""
    runs = [results, *replicates]
    control = "control" in results
    rows = "\n".join(
        f"| {r['budget']['seed']} | {r['pretrained']['accuracy']:.2%} "
        f"| {r['from_scratch']['accuracy']:.2%} |"
        + (f" {r['control']['accuracy']:.2%} |" if control else "")
        + f" {judged_gain(r):+.1f} |"
        for r in runs
    )
    header = (
        "| seed | this recipe | from scratch | control | gain over the stronger (points) |\n|---|---|---|---|---|"
        if control
        else "| seed | pretrained | from scratch | gain (points) |\n|---|---|---|---|"
    )
    return f"""
Same budget, other seeds (this model is seed {results["budget"]["seed"]}):

{header}
{rows}

Mean gain over {len(runs)} seeds: {mean_gain(runs):+.1f} points.
"""


def rate_choice_text(choice: dict | None) -> str:
    """How the learning rates were chosen, from `experiments.sst2_lr_choice`'s lr_choice.json."""
    if not choice:
        return ""
    scores = choice["scores"]
    rows = "\n".join(
        f"| {rate} | {scores['pretrained'][rate]:.2%} | {scores['scratch'][rate]:.2%} |"
        for rate in scores["pretrained"]
    )
    return f"""
Each arm's peak learning rate was chosen on {choice["heldout_examples"]} whole sentences held out of `train.tsv` \
(`experiments.sst2_holdout`: the sentences and every phrase inside them removed from training; seed 0, one epoch), \
never on the dev set; a tie goes to the lower rate. Chosen: pretrained {choice["chosen"]["pretrained"]}, \
from scratch {choice["chosen"]["scratch"]}.

| peak learning rate | pretrained, held-out accuracy | from scratch, held-out accuracy |
|---|---|---|
{rows}
"""


def schedule_choice_text(choice: dict | None, task: SentimentTask) -> str:
    """How the fine-tuning schedule was chosen, from `experiments.schedule_choice`'s schedule_choice.json."""
    if not choice:
        return ""
    rows = "\n".join(
        f"| {rate} | {score:.2%} | {choice['best_epochs'][rate]:g} |" for rate, score in choice["scores"].items()
    )
    return f"""
The schedule was chosen on {choice["heldout_examples"]:,} training {task.examples} held out of `train.tsv` \
(`experiments.sst2_holdout`, seeded), never on the dev set: the starting model fine-tuned on the rest for \
{choice["planned_epochs"]} epochs at each peak learning rate, scored after every epoch \
(`experiments.schedule_choice`). \
The rate whose best epoch scores higher wins (a tie: the lower rate); its {choice["planned_epochs"]} epochs are kept \
when that best epoch lies in the second half, else half of them. Chosen: peak learning rate \
{choice["learning_rate"]}, {choice["epochs"]} epochs.

| peak learning rate | held-out accuracy, best epoch | best epoch |
|---|---|---|
{rows}
"""


def _replaced_row(replaced: dict | None) -> list[str]:
    if not replaced:
        return []
    return [
        f"| the model this one replaced ({replaced['epochs']} epochs at peak learning rate "
        f"{replaced['learning_rate']:g}, best epoch by dev) | {replaced['dev_accuracy']:.2%} |"
    ]


def card(
    results: dict,
    config: dict,
    shipped: dict,
    base_mlm_accuracy: float | None,
    replicates: Sequence[dict] = (),
    rate_choice: dict | None = None,
    task: SentimentTask = SST2,
    baseline: dict | None = None,
    baseline_path: str | None = None,
    schedule: dict | None = None,
    replaced: dict | None = None,
) -> str:
    """The model card; `shipped` holds the dev accuracy and the INT8 report measured on the shipped file;
    `rate_choice` is lr_choice.json when the learning rates were chosen on held-out training sentences;
    `baseline` the n-gram baseline's JSON (written to `baseline_path` by `experiments.ngram_baseline`);
    `schedule` schedule_choice.json when the rate and epochs were chosen on held-out training examples;
    `replaced` the dev accuracy and schedule of the model this one replaced (`--only-if-better`)."""
    pre, scratch, q = results["pretrained"], results.get("from_scratch"), shipped["quantized"]
    shipped_accuracy = shipped["accuracy"]
    budget = results["budget"]
    adapted = results.get("adaptation")
    recipe = f"pretrained `{task.base_model}`" + (" + task-adaptive pretraining" if adapted else "")
    rows = [f"| {recipe}, fine-tuned (this model) | {pre['accuracy']:.2%} |"]
    if scratch:
        rows.append(f"| same architecture from random initialisation, same budget | {scratch['accuracy']:.2%} |")
    if baseline:
        low, high = baseline["ngram_range"]
        rows.append(
            f"| {baseline['analyzer']} {low}–{high}-gram TF-IDF + logistic regression "
            f"(`experiments.ngram_baseline`, C {baseline['chosen_c']:g} by 5-fold CV on train) "
            f"| {baseline['dev_accuracy']:.2%} |"
        )
    if "control" in results:
        rows.append(f"| {_control_text(results)} | {results['control']['accuracy']:.2%} |")
    rows += _replaced_row(replaced)
    rows.append(
        "| this model as shipped (fp16-stored weights, loaded as fp32; re-measured on the shipped file) "
        f"| {shipped_accuracy:.2%} |"
    )
    rows.append(f"| this model as shipped, INT8 dynamic quantization | {q['accuracy']:.2%} |")
    table = "\n".join(rows)
    runs = [results, *replicates]
    commands = [
        command_for("scripts.finetune_sentiment", SST2Config, r["budget"]).replace(" --", " \\\n    --") for r in runs
    ]
    ship = " ".join(
        [
            "python -m scripts.ship_sentiment_model",
            budget["output_dir"],
            f"assets/sentiment/{task.model_name}",
            *([f"--task {task.key}"] if task is not SST2 else []),
            *([f"--ngram-baseline {baseline_path}"] if baseline and baseline_path else []),
            f"--threads {q['threads']}",
            *(["--replicates", *(r["budget"]["output_dir"] for r in replicates)] if replicates else []),
            *(["--scratch-runs", *(r["from_scratch_run"] for r in runs)] if "from_scratch_run" in results else []),
            *(["--control-runs", *(r["control"]["run"] for r in runs)] if "control" in results else []),
            *(["--lr-choice", str(Path(budget["output_dir"]).parent / "lr_choice.json")] if rate_choice else []),
            *(
                ["--schedule-choice", str(Path(budget["output_dir"]).parent / "schedule_choice.json")]
                if schedule
                else []
            ),
        ]
    )
    first = (
        ["scripts/sst2_task_adaptive.sh ../shared/glue runs  # the task text, both adapted models, their fine-tunes"]
        if adapted
        else []
    )
    if baseline and baseline_path:
        first.append(f"python -m experiments.ngram_baseline {baseline['task_dir']} --output {baseline_path}")
    if schedule and task.schedule_script:
        first.append(
            f"STAGE=3 {task.schedule_script}  # the held-out split, the schedule search, "
            "this run and its from-scratch arm"
        )
    if rate_choice:
        first.append(
            "scripts/sst2_lr_search.sh ../shared/glue runs  # the held-out split, the rate "
            "search, lr_choice.json and every run below"
        )
    reproduce = "\n".join([*first, *commands, ship])
    scratch_rate = budget.get("scratch_learning_rate")
    rates = f"peak learning rate {budget['learning_rate']}"
    if scratch_rate and scratch_rate != budget["learning_rate"]:
        rates += f" (from scratch: {scratch_rate})"
    epochs = budget["epochs"]
    examples = budget["max_train_examples"] or pre["train_examples"]
    largest = max(int(key.rsplit("_", 1)[1]) for key in q if key.startswith("latency_batch_"))  # 64, or all of dev
    return f"""---
language: {task.language}
license: apache-2.0
library_name: albert-lab
tags: [albert, text-classification, sentiment, {task.key}]
---
# {task.model_name}

`{task.base_model}` ({task.base_description}; V {config["vocab_size"]}, E {config["embedding_size"]}, \
H {config["hidden_size"]}, {config["num_hidden_layers"]} shared passes, {config["max_position_embeddings"]} positions) \
{_adaptation_text(adapted, task)}fine-tuned on {task.dataset} with `python -m scripts.finetune_sentiment` \
(which runs `python -m albert.finetune`).
Labels: negative, positive.

## {task.short} dev accuracy (all {pre["dev_examples"]} dev {task.examples})

| model | accuracy |
|---|---|
{table}

Budget (both runs): {examples:,} training {task.examples}, {epochs} epoch{"s" if epochs != 1 else ""}, \
sequence length {budget["max_seq_length"]}, batch {budget["batch_size"]}, \
{rates}, seed {budget["seed"]}. \
INT8 (dynamic, Linear layers; size and latency measured on the shipped file by `scripts.ship_sentiment_model`): \
{q["quantized_linear_layers"]} layers quantized, \
state dict {q["fp32_bytes"] / 2**20:.2f} MiB fp32 → {q["int8_bytes"] / 2**20:.2f} MiB (the embedding table stays \
fp32); accuracy change {100 * q["accuracy_change"]:+.1f} points; latency batch 1 \
{q["latency_batch_1"]["fp32_ms"]:.1f} → {q["latency_batch_1"]["int8_ms"]:.1f} ms, batch {largest} \
{q[f"latency_batch_{largest}"]["fp32_ms"]:.0f} → {q[f"latency_batch_{largest}"]["int8_ms"]:.0f} ms \
({q["threads"]} CPU threads).
{rate_choice_text(rate_choice)}{schedule_choice_text(schedule, task)}{replicate_table(results, replicates)}
{verdict(results, base_mlm_accuracy, replicates, task, baseline)}

## Reproduce
```
{reproduce}
```
"""


def _adaptation_text(adapted: dict | None, task: SentimentTask) -> str:
    if not adapted:
        return ""
    held_out = adapted["held_out"]
    return (
        f"continued for {adapted['steps']:,} steps ({adapted['tokens']:,} tokens, batch {adapted['batch_size']}, "
        f"peak learning rate {adapted['learning_rate']}) of masked-LM + SOP on the text of the training "
        f"{task.examples} of {task.short}, labels unused (task-adaptive pretraining: `albert.task_text`, then "
        f"`albert.pretrain --init-from`; held-out MLM {held_out.get('mlm_accuracy', float('nan')):.1%} "
        f"on training {task.examples} held out of that text), then\n"
    )


def _control_text(results: dict) -> str:
    """What the control model was: the starting model without the adaptation, or random weights given it."""
    adapted = results.get("adaptation")
    if adapted and Path(results["control"]["model"]) == Path(adapted["init_from"]):
        return f"control: `{Path(adapted['init_from']).name}` without the task-adaptive pretraining, same budget"
    return "control: random initialisation + the same task-adaptive pretraining, same budget"
