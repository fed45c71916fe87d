"""A fine-tuning run whose loss becomes NaN or infinite stops with a non-zero exit and one sentence,
and keeps its best checkpoint as it was (issue 18)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import torch
from hostile_support import finetune_argv, models, write_table  # noqa: F401 (a fixture)

from albert import AlbertForSequenceClassification
from albert.checkpoint import read_state_dict
from albert.finetune import main


def test_a_loss_that_becomes_nan_stops_the_run_and_keeps_the_best_checkpoint(
    models: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forward = AlbertForSequenceClassification.forward
    calls = {"train": 0}

    def diverging(self, *args, **kwargs):
        output = forward(self, *args, **kwargs)
        if self.training:
            calls["train"] += 1
            if calls["train"] >= 5:  # steps 1-4 are fine (best saved at step 2 or 4), step 5 is NaN
                output = dataclasses.replace(output, loss=output.loss * float("nan"))
        return output

    monkeypatch.setattr(AlbertForSequenceClassification, "forward", diverging)
    with pytest.raises(SystemExit) as error:
        main(finetune_argv(models, tmp_path))
    message = str(error.value.code)  # a string exit code: Python prints it and exits with status 1
    assert message.startswith("albert.finetune: the training loss became nan") and "\n" not in message
    assert "at step 5" in message and "lower --optim.learning-rate" in message
    best = json.loads((tmp_path / "best" / "eval_results.json").read_text())
    assert best["step"] in (2, 4) and f"step {best['step']}, is kept" in message
    for directory in ("best", "checkpoint"):
        weights, _ = read_state_dict(tmp_path / directory)
        assert all(torch.isfinite(t).all() for t in weights.values()), directory
    assert (tmp_path / "checkpoint" / "training_state.pt").is_file()  # the step-4 checkpoint, resumable
    assert not (tmp_path / "results.json").exists()


def test_unscaled_regression_targets_overflow_to_an_infinite_loss_and_stop(
    models: dict[str, Path], tmp_path: Path
) -> None:
    train = write_table(tmp_path / "train.tsv", ["1.5e30", "2.5e30", "3.5e30", "0.5e30"] * 4)
    argv = finetune_argv(models, tmp_path / "out", "--task", "regression")
    argv[argv.index("--train-file") + 1] = argv[argv.index("--dev-file") + 1] = str(train)
    with pytest.raises(SystemExit) as error:
        main(argv)
    message = str(error.value.code)
    assert "the training loss became inf" in message and "at step 1" in message
    assert "no best model had been saved yet" in message and "scale of the labels" in message
    assert not (tmp_path / "out" / "best").exists() and not (tmp_path / "out" / "checkpoint").exists()
