"""The shipping scripts: the `Reproduce` command in every model card parses back to the run's
config, and the sentiment card's verdict follows from the measured numbers."""

from __future__ import annotations

import dataclasses
import json
import shlex
from pathlib import Path

import pytest

from albert.cli import command_for, parse_config
from albert.data import PretrainingDataConfig
from albert.pretrain import PretrainConfig, _jsonable
from albert.training import OptimizerConfig
from scripts.package_model import command_line
from scripts.ship_sentiment_model import card, verdict

ASSETS = Path(__file__).resolve().parent.parent / "assets"


def test_reproduce_command_parses_back_to_the_same_config() -> None:
    config = PretrainConfig(
        corpus=("books.txt.xz",), valid_corpus=("valid.txt.xz",), output_dir="runs/x",
        model_overrides={"hidden_size": 128, "num_hidden_layers": 6, "project_embeddings": False},
        data=PretrainingDataConfig(max_seq_length=64, whole_word_masking=True, dynamic_masking=False),
        optim=OptimizerConfig(learning_rate=1e-3, warmup_fraction=0.03), batch_size=64, max_steps=7800,
        max_minutes=100.0, stop_after_steps=5000, resume=True, compile=True)
    recorded = _jsonable(dataclasses.asdict(config))
    argv = shlex.split(command_line(recorded).replace("\\\n", " "))[3:]
    assert argv[0] != "albert.pretrain" and "--no-data.dynamic-masking" in argv and "--compile" in argv
    # one uninterrupted run: how the recorded run was scheduled is not part of the recipe
    assert parse_config(PretrainConfig, argv) == dataclasses.replace(config, max_minutes=None, stop_after_steps=None,
                                                                     resume=False)


def _results(pretrained: float, scratch: float | None) -> dict:
    results = {"pretrained": {"accuracy": pretrained}}
    if scratch is not None:
        results["from_scratch"] = {"accuracy": scratch}
        results["pretraining_gain_points"] = 100 * (pretrained - scratch)
    return results


@pytest.mark.parametrize("pretrained, scratch, expected", [
    (0.83, 0.79, "meeting both targets"),
    (0.81, 0.79, "Not met: ≥ 3 points above from-scratch."),
    (0.76, 0.79, "costs 3.0 points here. Not met: ≥ 80% dev accuracy and ≥ 3 points above from-scratch."),
    (0.83, None, "No from-scratch baseline"),
])
def test_sentiment_verdict_follows_the_numbers(pretrained: float, scratch: float | None, expected: str) -> None:
    assert expected in verdict(_results(pretrained, scratch), base_mlm_accuracy=0.25)


def test_sentiment_verdict_judges_the_gain_on_the_mean_over_seeds() -> None:
    shipped = _results(0.827, 0.796)  # +3.1 on the shipped seed
    assert "meeting both targets" in verdict(shipped, 0.25)
    weaker = verdict(shipped, 0.25, replicates=[_results(0.813, 0.804)])  # +0.9: mean +2.0
    assert "adds +2.0 points on average over 2 seeds" in weaker
    assert "Not met: ≥ 3 points above from-scratch on average over 2 seeds." in weaker
    assert "meeting both targets" in verdict(shipped, 0.25, replicates=[_results(0.835, 0.800)])


def test_shipped_sentiment_card_matches_its_metrics() -> None:
    directory = ASSETS / "sentiment" / "albert-lab-sst2"
    metrics = json.loads((directory / "metrics.json").read_text())
    config = json.loads((directory / "config.json").read_text())
    base = json.loads((ASSETS / "models" / "albert-lab-base" / "metrics.json").read_text())
    written = (directory / "README.md").read_text()
    shipped = {"accuracy": metrics["shipped_dev_accuracy"], "quantized": metrics["shipped_quantized"]}
    assert written == card(metrics["sst2"], config, shipped, base["mlm_accuracy"], metrics["replicates"])
    assert f"{100 * metrics['shipped_dev_accuracy']:.2f}%" in written
    assert metrics["sst2"]["budget"]["max_seq_length"] <= config["max_position_embeddings"]


def test_benchmark_command_parses_back_to_the_recorded_budget(tmp_path: Path) -> None:
    from benchmarks.sst2 import SST2Config

    for name in ("train.tsv", "dev.tsv"):
        (tmp_path / name).write_text("sentence\tlabel\ngood\t1\n")
    recorded = dataclasses.asdict(SST2Config(model="m", glue_dir=str(tmp_path), max_train_examples=0, seed=1,
                                             learning_rate=2e-4, skip_scratch=True))
    command = command_for("benchmarks.sst2", SST2Config, recorded)
    assert command.startswith("python -m benchmarks.sst2 ") and "--epochs" not in command  # defaults left out
    assert dataclasses.asdict(parse_config(SST2Config, shlex.split(command)[3:])) == recorded


def test_packaging_takes_the_weights_of_the_last_recorded_step(tmp_path: Path) -> None:
    import torch

    from albert.training import STATE_NAME
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
