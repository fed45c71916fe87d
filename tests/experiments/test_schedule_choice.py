"""experiments.schedule_choice: the rate and epochs of issue 16's stage 3, chosen on held-out reviews."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.schedule_choice import choose_schedule, main


def _search_run(root: Path, rate: float, accuracy: float, best_epoch: float, epochs: int = 6, heldout: int = 1386):
    run = root / f"schedule-lr{rate:g}"
    (run / "pretrained").mkdir(parents=True)
    (run / "sst2_results.json").write_text(json.dumps({"budget": {"learning_rate": rate, "epochs": epochs}}))
    best = {"step": 100, "epoch": best_epoch, "accuracy": accuracy}
    (run / "pretrained" / "results.json").write_text(json.dumps({"best": best, "dev_examples": heldout}))
    return run


def test_the_better_rate_wins_and_keeps_its_epochs_when_its_best_epoch_is_late(tmp_path: Path) -> None:
    runs = [_search_run(tmp_path, 2e-4, 0.85, 6.0), _search_run(tmp_path, 5e-4, 0.86, 4.0)]
    choice = choose_schedule(runs)
    assert (choice.learning_rate, choice.epochs) == ("0.0005", 6)
    assert choice.scores == {"0.0002": 0.85, "0.0005": 0.86} and choice.heldout_examples == 1386


def test_an_early_best_epoch_halves_the_schedule_and_a_tie_goes_to_the_lower_rate(tmp_path: Path) -> None:
    runs = [_search_run(tmp_path, 5e-4, 0.86, 2.0), _search_run(tmp_path, 2e-4, 0.86, 3.0)]
    choice = choose_schedule(runs)
    assert (choice.learning_rate, choice.epochs) == ("0.0002", 3)  # tie → 2e-4; its best epoch 3 is in the first half


def test_runs_of_different_budgets_or_splits_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="differ in epochs"):
        choose_schedule([_search_run(tmp_path / "a", 2e-4, 0.8, 6.0), _search_run(tmp_path / "b", 5e-4, 0.8, 3.0, 3)])
    with pytest.raises(ValueError, match="held-out examples"):
        choose_schedule(
            [_search_run(tmp_path / "c", 2e-4, 0.8, 6.0), _search_run(tmp_path / "d", 5e-4, 0.8, 6.0, 6, 9)]
        )


def test_the_command_prints_rate_and_epochs_and_says_what_is_missing(tmp_path: Path, capsys, caplog) -> None:
    runs = [_search_run(tmp_path, 2e-4, 0.85, 6.0), _search_run(tmp_path, 5e-4, 0.84, 6.0)]
    assert main([str(run) for run in runs]) == 0
    assert capsys.readouterr().out == "0.0002 6\n"
    assert json.loads((tmp_path / "schedule_choice.json").read_text())["epochs"] == 6
    assert main([str(runs[0]), str(tmp_path / "missing")]) == 1
    assert "has not finished" in caplog.text
