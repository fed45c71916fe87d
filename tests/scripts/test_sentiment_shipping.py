"""`scripts.ship_sentiment_model` end to end on a tiny model: shipping, and `--only-if-better`, which keeps a
better shipped model and names the one it replaced in the new card, with a schedule chosen on held-out data."""

from __future__ import annotations

import json
from pathlib import Path

from tests.training.test_finetune import toy_benchmark_budget, toy_pretrained_models

SCHEDULE = {
    "scores": {"0.0002": 0.91, "0.0005": 0.875},
    "best_epochs": {"0.0002": 5.0, "0.0005": 2.0},
    "planned_epochs": 6,
    "learning_rate": "0.0002",
    "epochs": 6,
    "heldout_examples": 1386,
}


def _set_shipped_accuracy(target: Path, accuracy: float, epochs: int) -> None:
    metrics = json.loads((target / "metrics.json").read_text())
    metrics["dev_accuracy"] = accuracy
    metrics["sst2"]["budget"]["epochs"] = epochs
    (target / "metrics.json").write_text(json.dumps(metrics))


def test_only_if_better_keeps_a_better_shipped_model_and_names_the_worse_one_it_replaces(tmp_path: Path) -> None:
    from scripts.finetune_sentiment import SST2Config, run_benchmark
    from scripts.ship_sentiment_model import main

    budget = toy_benchmark_budget(tmp_path, toy_pretrained_models(tmp_path, ("all",))["all"])
    results = run_benchmark(SST2Config(**budget, output_dir=str(tmp_path / "run"), skip_scratch=True))
    run_benchmark(SST2Config(**budget, output_dir=str(tmp_path / "scratch"), skip_pretrained=True))
    accuracy = results["pretrained"]["accuracy"]
    target = tmp_path / "shipped"
    common = [str(tmp_path / "run"), str(target), "--scratch-runs", str(tmp_path / "scratch")]
    common += ["--threads", "1", "--latency-rounds", "1"]

    main(common + ["--only-if-better"])  # nothing shipped yet: it ships
    metrics = json.loads((target / "metrics.json").read_text())
    assert metrics["dev_accuracy"] == accuracy and metrics["replaced"] is None
    assert "the model this one replaced" not in (target / "README.md").read_text()

    _set_shipped_accuracy(target, accuracy + 0.01, epochs=3)
    before = {path.name: path.read_bytes() for path in target.iterdir()}
    main(common + ["--only-if-better"])
    assert {path.name: path.read_bytes() for path in target.iterdir()} == before  # kept, byte for byte

    _set_shipped_accuracy(target, accuracy - 0.01, epochs=3)
    schedule = tmp_path / "schedule_choice.json"
    schedule.write_text(json.dumps(SCHEDULE))
    main(common + ["--only-if-better", "--schedule-choice", str(schedule)])
    metrics = json.loads((target / "metrics.json").read_text())
    assert metrics["dev_accuracy"] == accuracy
    assert metrics["replaced"] == {
        "dev_accuracy": accuracy - 0.01,
        "epochs": 3,
        "learning_rate": 5e-3,
        "run": "run",  # as the shipped metrics.json records it: no machine path (scripts.package_model.portable_path)
    }
    assert metrics["schedule_choice"] == SCHEDULE
    card = (target / "README.md").read_text()
    replaced_row = (
        "| the model this one replaced (3 epochs at peak learning rate 0.005, best epoch by dev) "
        f"| {accuracy - 0.01:.2%} |"
    )
    assert replaced_row in card
    assert "chosen on 1,386 training sentences held out of `train.tsv`" in card
    assert "Chosen: peak learning rate 0.0002, 6 epochs." in card
    assert "| 0.0002 | 91.00% | 5 |\n| 0.0005 | 87.50% | 2 |" in card
    assert "--schedule-choice schedule_choice.json" in card and str(tmp_path) not in card  # no machine path
