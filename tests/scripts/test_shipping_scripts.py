"""The shipping scripts: the `Reproduce` command in every model card parses back to the run's
config, and the sentiment card's verdict follows from the measured numbers."""

from __future__ import annotations

import dataclasses
import json
import shlex
from pathlib import Path

import pytest

from albert.cli import command_for, parse_config
from albert.commands.pretrain import PretrainConfig
from albert.data.pretraining_examples import PretrainingDataConfig
from albert.training.loop import jsonable
from albert.training.optim import OptimizerConfig
from scripts.package_model import command_line
from scripts.sentiment_card import card, verdict

ASSETS = Path(__file__).resolve().parents[2] / "assets"


def test_reproduce_command_parses_back_to_the_same_config() -> None:
    config = PretrainConfig(
        corpus=("books.txt.xz",),
        valid_corpus=("valid.txt.xz",),
        output_dir="runs/x",
        model_overrides={"hidden_size": 128, "num_hidden_layers": 6, "project_embeddings": False},
        data=PretrainingDataConfig(max_seq_length=64, whole_word_masking=True, dynamic_masking=False),
        optim=OptimizerConfig(learning_rate=1e-3, warmup_fraction=0.03),
        batch_size=64,
        max_steps=7800,
        max_minutes=100.0,
        stop_after_steps=5000,
        resume=True,
        compile=True,
    )
    recorded = jsonable(dataclasses.asdict(config))
    argv = shlex.split(command_line(recorded).replace("\\\n", " "))[3:]
    assert argv[0] != "albert.pretrain" and "--no-data.dynamic-masking" in argv and "--compile" in argv
    # one uninterrupted run: how the recorded run was scheduled is not part of the recipe
    assert parse_config(PretrainConfig, argv) == dataclasses.replace(
        config, max_minutes=None, stop_after_steps=None, resume=False
    )


def test_a_recorded_vocab_size_beside_a_tokenizer_is_left_out_of_the_command() -> None:
    """Runs recorded before --vocab-size became optional hold its old default, 16000, beside --tokenizer (which
    ignored it); the command refuses the pair now, so the card leaves it out. A trained tokenizer's size stays, and a
    run without --valid-corpus gets no bare `--valid-corpus` (it would not parse)."""
    config = PretrainConfig(corpus=("books.txt.xz",), output_dir="runs/x", tokenizer="runs/tokenizer-8k")
    recorded = {**jsonable(dataclasses.asdict(config)), "vocab_size": 16000}
    argv = shlex.split(command_line(recorded).replace("\\\n", " "))[3:]
    assert "--vocab-size" not in argv and parse_config(PretrainConfig, argv) == config
    trained = PretrainConfig(corpus=("books.txt.xz",), output_dir="runs/x", vocab_size=8000)
    assert "--vocab-size 8000" in command_line(jsonable(dataclasses.asdict(trained)))


def _results(pretrained: float, scratch: float | None) -> dict:
    results = {"pretrained": {"accuracy": pretrained}}
    if scratch is not None:
        results["from_scratch"] = {"accuracy": scratch}
        results["pretraining_gain_points"] = 100 * (pretrained - scratch)
    return results


@pytest.mark.parametrize(
    "pretrained, scratch, expected",
    [
        (0.83, 0.79, "meeting both targets"),
        (0.81, 0.79, "Not met: ≥ 3 points above from-scratch."),
        (0.76, 0.79, "costs 3.0 points here. Not met: ≥ 80% dev accuracy and ≥ 3 points above from-scratch."),
        (0.83, None, "No from-scratch baseline"),
    ],
)
def test_sentiment_verdict_follows_the_numbers(pretrained: float, scratch: float | None, expected: str) -> None:
    assert expected in verdict(_results(pretrained, scratch), base_mlm_accuracy=0.25)


def test_sentiment_verdict_judges_the_gain_on_the_mean_over_seeds() -> None:
    shipped = _results(0.827, 0.796)  # +3.1 on the shipped seed
    assert "meeting both targets" in verdict(shipped, 0.25)
    weaker = verdict(shipped, 0.25, replicates=[_results(0.813, 0.804)])  # +0.9: mean +2.0
    assert "adds +2.0 points on average over 2 seeds" in weaker
    assert "Not met: ≥ 3 points above from-scratch on average over 2 seeds." in weaker
    assert "meeting both targets" in verdict(shipped, 0.25, replicates=[_results(0.835, 0.800)])


@pytest.mark.parametrize(
    "directory", sorted((ASSETS / "sentiment").glob("*/metrics.json")), ids=lambda p: p.parent.name
)
def test_shipped_sentiment_card_matches_its_metrics(directory: Path) -> None:
    from scripts.sentiment_card import SENTIMENT_TASKS

    directory = directory.parent
    metrics = json.loads((directory / "metrics.json").read_text())
    task = SENTIMENT_TASKS[metrics.get("task", "sst2")]
    assert directory.name == task.model_name
    config = json.loads((directory / "config.json").read_text())
    base = json.loads((ASSETS / "models" / task.base_model / "metrics.json").read_text())
    written = (directory / "README.md").read_text()
    shipped = {"accuracy": metrics["shipped_dev_accuracy"], "quantized": metrics["shipped_quantized"]}
    assert written == card(
        metrics[task.key],
        config,
        shipped,
        base["mlm_accuracy"],
        metrics["replicates"],
        metrics.get("learning_rate_choice"),
        task,
        metrics.get("ngram_baseline"),
        metrics.get("ngram_baseline_path"),
        metrics.get("schedule_choice"),
        metrics.get("replaced"),
    )
    assert f"{100 * metrics['shipped_dev_accuracy']:.2f}%" in written
    assert metrics[task.key]["budget"]["max_seq_length"] <= config["max_position_embeddings"]


def test_benchmark_command_parses_back_to_the_recorded_budget(tmp_path: Path) -> None:
    from scripts.finetune_sentiment import SST2Config

    for name in ("train.tsv", "dev.tsv"):
        (tmp_path / name).write_text("sentence\tlabel\ngood\t1\n")
    recorded = dataclasses.asdict(
        SST2Config(
            model="m", glue_dir=str(tmp_path), max_train_examples=0, seed=1, learning_rate=2e-4, skip_scratch=True
        )
    )
    command = command_for("scripts.finetune_sentiment", SST2Config, recorded)
    assert (
        command.startswith("python -m scripts.finetune_sentiment ") and "--epochs" not in command
    )  # defaults left out
    assert dataclasses.asdict(parse_config(SST2Config, shlex.split(command)[3:])) == recorded


def test_packaging_takes_the_weights_of_the_last_recorded_step(tmp_path: Path) -> None:
    import torch

    from albert.training.state import STATE_NAME
    from scripts.package_model import weights_at_step

    (tmp_path / "final").mkdir()
    (tmp_path / "final" / "training_summary.json").write_text(json.dumps({"steps": 7800}))
    (tmp_path / "checkpoint").mkdir()
    torch.save({"step": 15000}, tmp_path / "checkpoint" / STATE_NAME)
    assert weights_at_step(tmp_path, 7800) == tmp_path / "final"
    # resumed with a longer plan: final/ is the earlier plan's, the checkpoint is current
    assert weights_at_step(tmp_path, 15000) == tmp_path / "checkpoint"
    with pytest.raises(ValueError, match="step 14,000"):
        weights_at_step(tmp_path, 14000)


def _run_dir(
    root: Path,
    name: str,
    seed: int,
    pretrained: float,
    scratch: float | None = None,
    model: str = "m",
    **budget: object,
) -> Path:
    directory = root / name
    directory.mkdir()
    results = {
        "model": model,
        "budget": {"seed": seed, "epochs": 1, "learning_rate": 2e-4, "output_dir": str(directory), **budget},
        "pretrained": {"accuracy": pretrained},
    }
    if scratch is not None:
        results["from_scratch"] = {"accuracy": scratch}
        results["pretraining_gain_points"] = 100 * (pretrained - scratch)
    (directory / "sst2_results.json").write_text(json.dumps(results))
    return directory


def test_skip_scratch_runs_are_joined_with_their_baselines_and_judged_on_the_stronger(tmp_path: Path) -> None:
    from scripts.sentiment_card import mean_gain
    from scripts.ship_sentiment_model import joined_runs

    adapted = tmp_path / "adapted-model"
    adapted.mkdir()
    (adapted / "training_summary.json").write_text(
        json.dumps(
            {
                "steps": 1000,
                "tokens": 2_000_000,
                "held_out": {"mlm_accuracy": 0.25},
                "config": {
                    "init_from": "assets/models/albert-lab-base",
                    "corpus": ["sst2-text.txt"],
                    "batch_size": 128,
                    "optim": {"learning_rate": 5e-4},
                },
            }
        )
    )
    runs = [_run_dir(tmp_path, f"tapt{s}", s, accuracy, model=str(adapted)) for s, accuracy in ((0, 0.858), (1, 0.84))]
    scratch = [_run_dir(tmp_path, f"plain{s}", s, 0.82, scratch) for s, scratch in ((1, 0.80), (0, 0.79))]
    control = [_run_dir(tmp_path, f"control{s}", s, accuracy) for s, accuracy in ((0, 0.83), (1, 0.80))]
    first, second = joined_runs(runs, scratch, control)
    assert (first["pretraining_gain_points"], first["control_gain_points"]) == pytest.approx((6.8, 2.8))
    assert (second["pretraining_gain_points"], second["control_gain_points"]) == pytest.approx((4.0, 4.0))
    assert mean_gain([first, second]) == pytest.approx(3.4)  # (min(6.8, 2.8) + min(4, 4)) / 2
    assert first["adaptation"]["steps"] == 1000 and first["from_scratch_run"] == str(scratch[1])
    text = verdict(first, 0.2, [second])
    assert "adds +3.4 points on average over 2 seeds (against the stronger of the from-scratch baseline" in text
    assert "meeting both targets" in text
    with pytest.raises(ValueError, match="seed 1, which none"):
        joined_runs(runs, scratch[1:], control)
    other = _run_dir(tmp_path, "other-budget", 0, 0.8, 0.7, epochs=3)
    with pytest.raises(ValueError, match="epochs differ"):
        joined_runs(runs[:1], [other])


def _quantized_report(accuracy: float, change: float) -> dict:
    """An INT8 report as `quantized_scores` writes it, with made-up sizes and latencies."""
    latency = {"fp32_ms": 10.0, "int8_ms": 8.0, "speedup": 1.25}
    return {
        "accuracy": accuracy,
        "accuracy_change": change,
        "fp32_bytes": 5 << 20,
        "int8_bytes": 4 << 20,
        "quantized_linear_layers": 9,
        "threads": 2,
        "latency_batch_1": latency,
        "latency_batch_64": latency,
    }


def _config(embedding_size: int, max_position_embeddings: int) -> dict:
    return {
        "vocab_size": 8000,
        "embedding_size": embedding_size,
        "hidden_size": 128,
        "num_hidden_layers": 6,
        "max_position_embeddings": max_position_embeddings,
    }


def test_card_describes_the_adaptation_and_the_control() -> None:
    from scripts.ship_sentiment_model import with_baselines

    budget = {
        "seed": 0,
        "epochs": 1,
        "learning_rate": 2e-4,
        "output_dir": "runs/a",
        "model": "runs/tapt/final",
        "max_train_examples": 0,
        "max_seq_length": 64,
        "batch_size": 32,
        "glue_dir": "glue",
    }
    pretrained = {"accuracy": 0.85, "train_examples": 67349, "dev_examples": 872}
    results = with_baselines(
        {"model": "runs/tapt/final", "budget": budget, "pretrained": pretrained},
        scratch={"budget": {**budget, "output_dir": "runs/b"}, "from_scratch": {"accuracy": 0.80}},
        control={
            "model": "runs/control/final",
            "budget": {**budget, "output_dir": "runs/c"},
            "pretrained": {"accuracy": 0.81},
        },
    )
    results["adaptation"] = {
        "init_from": "base",
        "corpus": ["t.txt"],
        "steps": 1000,
        "tokens": 2_000_000,
        "batch_size": 128,
        "learning_rate": 5e-4,
        "held_out": {"mlm_accuracy": 0.25},
    }
    quantized = _quantized_report(0.849, -0.001)
    config = _config(embedding_size=128, max_position_embeddings=64)
    text = card(results, config, {"accuracy": 0.85, "quantized": quantized}, 0.195)
    assert (
        "continued for 1,000 steps (2,000,000 tokens" in text
        and "held-out MLM 25.0% on training sentences held out" in text
    )
    assert "on the text of the training sentences of SST-2" in text
    assert "| control: random initialisation + the same task-adaptive pretraining, same budget | 81.00% |" in text
    assert "--scratch-runs runs/b --control-runs runs/c" in text
    assert "adds +4.0 points (against the stronger" in text and "meeting both targets" in text


def test_card_describes_rates_chosen_on_held_out_training_sentences() -> None:
    budget = {
        "seed": 0,
        "epochs": 1,
        "learning_rate": 5e-4,
        "scratch_learning_rate": 1e-4,
        "output_dir": "/work/runs/lrsel/final-seed0",
        "model": "assets/models/albert-lab-base",
        "max_train_examples": 0,
        "max_seq_length": 64,
        "batch_size": 32,
        "glue_dir": "glue",
    }
    results = {
        "model": budget["model"],
        "budget": budget,
        "pretraining_gain_points": 3.5,
        "pretrained": {"accuracy": 0.835, "train_examples": 67349, "dev_examples": 872},
        "from_scratch": {"accuracy": 0.80},
    }
    quantized = _quantized_report(0.83, -0.005)
    config = _config(embedding_size=128, max_position_embeddings=64)
    choice = {
        "scores": {"pretrained": {"1e-4": 0.80, "5e-4": 0.84}, "scratch": {"1e-4": 0.79, "5e-4": 0.78}},
        "chosen": {"pretrained": "5e-4", "scratch": "1e-4"},
        "heldout_examples": 872,
    }
    text = card(results, config, {"accuracy": 0.835, "quantized": quantized}, 0.195, rate_choice=choice)
    assert "peak learning rate 0.0005 (from scratch: 0.0001)" in text
    assert "chosen on 872 whole sentences held out of `train.tsv`" in text and "never on the dev set" in text
    assert "| 5e-4 | 84.00% | 78.00% |" in text
    assert "--lr-choice /work/runs/lrsel/lr_choice.json" in text and "scripts/sst2_lr_search.sh ../shared/glue" in text
    assert "held out of" not in card(results, config, {"accuracy": 0.835, "quantized": quantized}, 0.195)


@pytest.mark.parametrize(
    "pretrained, scratch, expected",
    [
        (
            0.895,
            0.84,
            "meeting all 3 targets set for this model (≥ 88%, above the n-gram baseline's 86.4% and above "
            "the same architecture trained from scratch",
        ),
        (0.87, 0.84, "Not met: ≥ 88% dev accuracy."),
        (0.89, 0.90, "costs 1.0 points here. Not met: above from-scratch."),
        (0.862, 0.84, "Not met: ≥ 88% dev accuracy and above the n-gram baseline (86.4%)."),
    ],
)
def test_chinese_sentiment_verdict_judges_the_n_gram_baseline_too(
    pretrained: float, scratch: float, expected: str
) -> None:
    from scripts.sentiment_card import ZH_REVIEWS

    baseline = {"dev_accuracy": 0.8643}
    assert expected in verdict(_results(pretrained, scratch), 0.3, task=ZH_REVIEWS, baseline=baseline)


def test_chinese_sentiment_card_names_its_task_base_model_and_baseline() -> None:
    from scripts.sentiment_card import ZH_REVIEWS

    budget = {
        "seed": 0,
        "epochs": 3,
        "learning_rate": 2e-4,
        "output_dir": "runs/zh-sentiment",
        "model": "assets/models/albert-lab-zh",
        "max_train_examples": 0,
        "max_seq_length": 128,
        "batch_size": 32,
        "glue_dir": "../shared/glue/zh-reviews",
    }
    results = {
        "model": budget["model"],
        "budget": budget,
        "pretraining_gain_points": 4.0,
        "pretrained": {"accuracy": 0.89, "train_examples": 13853, "dev_examples": 1732},
        "from_scratch": {"accuracy": 0.85},
    }
    quantized = _quantized_report(0.888, -0.002)
    config = _config(embedding_size=64, max_position_embeddings=128)
    baseline = {
        "task_dir": "../shared/glue/zh-reviews",
        "analyzer": "char",
        "ngram_range": [1, 3],
        "chosen_c": 16.0,
        "dev_accuracy": 0.8643,
    }
    text = card(
        results,
        config,
        {"accuracy": 0.89, "quantized": quantized},
        0.31,
        task=ZH_REVIEWS,
        baseline=baseline,
        baseline_path="runs/zh/ngram_baseline.json",
    )
    assert text.startswith("---\nlanguage: zh\n") and "# albert-lab-zh-sentiment" in text
    assert "## zh-reviews dev accuracy (all 1732 dev reviews)" in text and "13,853 training reviews" in text
    assert "| pretrained `albert-lab-zh`, fine-tuned (this model) | 89.00% |" in text
    assert (
        "| char 1–3-gram TF-IDF + logistic regression (`experiments.ngram_baseline`, C 16 by 5-fold CV on train) "
        "| 86.43% |" in text
    )
    assert "python -m experiments.ngram_baseline ../shared/glue/zh-reviews --output runs/zh/ngram_baseline.json" in text
    assert (
        "assets/sentiment/albert-lab-zh-sentiment --task zh-reviews --ngram-baseline runs/zh/ngram_baseline.json"
        in text
    )
    assert "SST-2" not in text and "albert-lab-base" not in text


def test_chinese_card_names_a_control_that_was_not_adapted() -> None:
    """Stage 2 of the Chinese sentiment model: task-adaptive pretraining on the training reviews, its control the
    pretrained albert-lab-zh fine-tuned alone; the card says so, in zh-reviews' words, not SST-2's."""
    from scripts.sentiment_card import ZH_REVIEWS
    from scripts.ship_sentiment_model import with_baselines

    budget = {
        "seed": 0,
        "epochs": 3,
        "learning_rate": 2e-4,
        "output_dir": "runs/zh/sentiment-tapt",
        "model": "runs/zh/albert-lab-zh-tapt/final",
        "max_train_examples": 0,
        "max_seq_length": 128,
        "batch_size": 32,
        "glue_dir": "../shared/glue/zh-reviews",
    }
    pretrained = {"accuracy": 0.835, "train_examples": 13853, "dev_examples": 1732}
    results = with_baselines(
        {"model": budget["model"], "budget": budget, "pretrained": pretrained},
        scratch={"budget": {**budget, "output_dir": "runs/zh/sentiment-scratch"}, "from_scratch": {"accuracy": 0.82}},
        control={
            "model": "assets/models/albert-lab-zh",
            "budget": {**budget, "output_dir": "runs/zh/sentiment"},
            "pretrained": {"accuracy": 0.836},
        },
    )
    results["adaptation"] = {
        "init_from": "assets/models/albert-lab-zh",
        "corpus": ["runs/zh/reviews-tapt.txt"],
        "steps": 1500,
        "tokens": 3_171_332,
        "batch_size": 32,
        "learning_rate": 5e-4,
        "held_out": {"mlm_accuracy": 0.324},
    }
    config = _config(embedding_size=64, max_position_embeddings=128)
    text = card(results, config, {"accuracy": 0.835, "quantized": _quantized_report(0.835, 0.0)}, 0.31, task=ZH_REVIEWS)
    assert "on the text of the training reviews of zh-reviews, labels unused" in text
    assert "held-out MLM 32.4% on training reviews held out of that text" in text
    assert "| control: `albert-lab-zh` without the task-adaptive pretraining, same budget | 83.60% |" in text
    assert "SST-2" not in text and "random initialisation +" not in text


def _pretrain_commands(script: Path) -> list[list[str]]:
    """Each `python -m albert.pretrain` command of a shell script, its variables at their defaults."""
    import re

    text = script.read_text(encoding="utf-8").replace("\\\n", " ")
    text = re.sub(r"\$\{\w+:\+[^}]*\}", "", text)  # ${MAX_MINUTES:+--max-minutes $MAX_MINUTES}: unset
    text = re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", text)  # ${ZH5_STEPS:-1500} → 1500
    variables = {
        "shared": "../shared",
        "runs": "runs/x",
        "threads": "1",
        "minutes": "60",
        "name": "arm",
        "out": "runs/o",
        "launch": "python",
        "batch": "64",
    }
    for name, value in variables.items():
        text = text.replace(f"${name}", value)
    commands = []
    for line in text.splitlines():
        if "python -m albert.pretrain " in line and not line.lstrip().startswith("#") and "[@]}" not in line:
            words = shlex.split(line.split("python -m albert.pretrain ", 1)[1].split("#")[0])
            commands.append([w for w in words if w not in ('"$@"', "$@", "$resume")])
    return commands


@pytest.mark.parametrize(
    ("script", "count"),
    [("train_zh_model.sh", 5), ("run_ablation_arm.sh", 1), ("train_zh_sentiment.sh", 1), ("continue_default.sh", 1)],
)
def test_every_pretraining_command_of_the_training_scripts_parses(script: str, count: int) -> None:
    """A flag misspelt in a script would only show when its stage starts, perhaps sessions later."""
    commands = _pretrain_commands(ASSETS.parent / "scripts" / script)
    assert len(commands) == count
    for argv in commands:
        config = parse_config(PretrainConfig, argv)
        assert config.corpus and config.output_dir.startswith("runs/"), argv
