"""scripts/gpu_pretrain.py, the prepared GPU run, as a dry run on the CPU: calibrate, plan the steps for the
time budget, train, and bring back a loadable fp16 model with its held-out scores in at most 8 small files."""

from __future__ import annotations

import json
import random
import tarfile
from pathlib import Path

import pytest

from albert import AlbertForPreTraining
from scripts.gpu_pretrain import REPO, figure_to_beat, main, parse_args, plan_steps, pretrain_args, verdict
from tests.factories import WORDS, write_corpus
from tests.training.test_pretrain import TINY_MODEL

TINY = " ".join(TINY_MODEL)  # the pretraining tests' tiny model, as command-line flags


def dry_run(tmp_path: Path, train: Path, valid: Path, out: Path, *extra: str) -> list[str]:
    """The prepared run's command line, scaled to a CPU dry run of a few seconds."""
    return [
        *("--corpus", str(train), "--valid-corpus", str(valid), "--out", str(out), "--minutes", "0.4"),
        *("--tokenizer", str(tmp_path / "tokenizer"), "--cache-dir", str(tmp_path / "cache")),
        *("--device", "cpu", "--precision", "fp32", "--batch-size", "8", "--seq-length", "48"),
        *("--calibration-steps", "3", "--reserve-seconds", "5", "--threads", "1", "--model-flags", TINY),
        *("--check-model", "run", "--check-seconds", "1", *extra),
    ]


def test_plan_steps_fills_the_budget_less_the_reserve() -> None:
    assert plan_steps(calibration_seconds=10.0, calibration_steps=40, minutes=8, reserve_seconds=45) == 1740
    assert plan_steps(calibration_seconds=100.0, calibration_steps=1, minutes=0.1, reserve_seconds=45) == 1


def test_a_continued_run_takes_the_models_shape_and_tokenizer(tmp_path: Path) -> None:
    """`--init-from` (how the lent H200 continued the English default): the pretrain command names the folder and
    neither the script's model flags nor a tokenizer, which `albert.pretrain` would refuse beside it."""
    from albert.cli import parse_config
    from albert.commands.pretrain import PretrainConfig

    args = parse_args(["--corpus", "train.txt", "--out", str(tmp_path), "--init-from", "assets/models/some-model"])
    assert args.tokenizer == Path("assets/models/some-model")  # held-out scoring loads the folder's tokenizer
    command = pretrain_args(args, tmp_path / "run", 10, [])
    assert command[command.index("--init-from") + 1] == "assets/models/some-model"
    assert "--tokenizer" not in command and not any(flag.startswith("--model") for flag in command)
    config = parse_config(PretrainConfig, command)
    assert config.init_from == "assets/models/some-model" and config.max_steps == 10
    fresh = pretrain_args(parse_args(["--corpus", "train.txt", "--out", str(tmp_path)]), tmp_path / "run", 10, [])
    assert "--tokenizer" in fresh and "--init-from" not in fresh and "--model.hidden-size" in fresh


def test_the_prepared_command_trains_a_fresh_model_to_beat_the_default() -> None:
    """The docstring's command is the next lease's (docs/usage/gpu.md, "The next lease"): a fresh model (no
    --init-from) at the shipped default's 64 positions, its tokenizer and its held-out figure to beat, copied from
    assets/models/albert-lab-e128-gpu into the carried folder."""
    import re
    import shlex

    import scripts.gpu_pretrain as prepared

    doc = prepared.__doc__ or ""
    found = re.search(r"    python -m scripts\.gpu_pretrain (.*?)\n\n", doc, re.S)
    assert found is not None
    args = parse_args(shlex.split(found.group(1).replace("\\\n", " ")))
    assert args.init_from is None and args.model_flags is None  # the script's MODEL, fresh
    assert "cp -r assets/models/albert-lab-e128-gpu runs/gpu-corpus/default" in doc
    assert args.tokenizer == args.must_beat == Path("runs/gpu-corpus/default")
    default = REPO / "assets" / "models" / "albert-lab-e128-gpu"
    positions = json.loads((default / "config.json").read_text())["max_position_embeddings"]
    command = pretrain_args(args, Path("run"), 10, [])
    assert args.seq_length == positions == int(command[command.index("--model.max-position-embeddings") + 1])
    assert args.batch_size == 1024 and "--optim.learning-rate" not in command  # albert.pretrain's fresh recipe
    assert figure_to_beat(default) == {
        "model": "albert-lab-e128-gpu",
        "mlm_accuracy": 0.2595,
        "mlm_ci95": [0.2541, 0.2651],
    }


def test_the_verdict_compares_the_held_out_figure_with_the_one_to_beat() -> None:
    to_beat = {"model": "m", "mlm_accuracy": 0.259, "mlm_ci95": [0.254, 0.265]}
    assert verdict({"mlm_accuracy": 0.27, "mlm_ci95": [0.266, 0.275]}, to_beat)["clearly"]
    close = verdict({"mlm_accuracy": 0.262, "mlm_ci95": [0.257, 0.267]}, to_beat)
    assert close["beats"] and not close["clearly"]
    assert not verdict({"mlm_accuracy": 0.05, "mlm_ci95": [0.04, 0.06]}, to_beat)["beats"]
    assert verdict({}, to_beat) == {} and verdict({"mlm_accuracy": 0.3}, None) == {}


@pytest.mark.slow
def test_dry_run_on_the_cpu_brings_back_a_shippable_model(tmp_path: Path) -> None:
    train = write_corpus(tmp_path / "train.txt")
    rng = random.Random(0)
    valid = tmp_path / "valid.txt"
    valid.write_text(
        "\n\n".join(" ".join(f"The {rng.choice(WORDS)} {rng.choice(WORDS)}." for _ in range(12)) for _ in range(20)),
        encoding="utf-8",
    )
    from albert.data.tokenizer import train_tokenizer

    train_tokenizer([train], tmp_path / "tokenizer", vocab_size=80)
    out = tmp_path / "out"
    code = main(dry_run(tmp_path, train, valid, out))
    assert code == 0
    files = sorted(p.name for p in out.iterdir())
    assert files == ["log.txt", "model.tar.gz", "summary.json"]  # the device brings back at most 8 files
    assert all(p.stat().st_size < 16 * 2**20 for p in out.iterdir())
    summary = json.loads((out / "summary.json").read_text())
    assert summary["steps"] == summary["planned_steps"] >= 1  # the schedule ran to its planned end
    plan = summary["plan"]  # what the log names before training: the model, the tokens expected, the figure to beat
    assert plan["expected_tokens"] > 0 and plan["to_beat"]["model"] == "albert-lab-e128-gpu"
    assert abs(summary["tokens"] - plan["expected_tokens"]) <= 0.25 * plan["expected_tokens"]
    assert summary["verdict"]["to_beat"]["mlm_accuracy"] == 0.2595 and summary["verdict"]["beats"] is False
    assert summary["speed_check"]["tokens_per_second"] > 0 and summary["speed_check"]["steps"] >= 1
    log = (out / "log.txt").read_text()
    assert "must beat albert-lab-e128-gpu's held-out MLM 25.9%" in log and "verdict: held-out MLM" in log
    with tarfile.open(out / "model.tar.gz") as archive:
        archive.extractall(tmp_path / "back", filter="data")
    model_dir = tmp_path / "back" / "model"
    model = AlbertForPreTraining.from_pretrained(model_dir)
    assert model.config.hidden_size == 32
    metrics = json.loads((model_dir / "metrics.json").read_text())
    assert {"mlm_accuracy", "order_accuracy", "topic_accuracy"} <= set(metrics)
    assert (model_dir / "training_log.csv").is_file() and (model_dir / "spiece.model").is_file()


@pytest.mark.slow
def test_dry_run_of_the_chinese_recipe_brings_back_a_character_model(tmp_path: Path) -> None:
    """The same run with a character vocabulary and single-character masks (the docstring's Chinese command)."""
    from albert.data.tokenizer import train_tokenizer
    from tests.data.chinese_support import plain, segmented_text

    train, valid = tmp_path / "train.txt", tmp_path / "valid.txt"
    train.write_text(plain(segmented_text()), encoding="utf-8")
    valid.write_text(plain(segmented_text(num_documents=12, seed=1)), encoding="utf-8")
    train_tokenizer([train], tmp_path / "tokenizer", vocab_size=180, han_characters=True)
    out = tmp_path / "out"
    code = main(dry_run(tmp_path, train, valid, out, "--pretrain-flags", "--data.max-ngram 1"))
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["data"]["max_ngram"] == 1
    with tarfile.open(out / "model.tar.gz") as archive:
        archive.extractall(tmp_path / "back", filter="data")
    metrics = json.loads((tmp_path / "back" / "model" / "metrics.json").read_text())
    assert metrics["mlm_n"] > 0 and 0.0 <= metrics["mlm_accuracy"] <= 1.0
