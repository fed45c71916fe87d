"""What the app keeps between requests (issue 35): the shipped model list, the recorded runs and their figures,
and Gradio's queue analytics. Each is kept only while the files it was read from are unchanged."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from app import settings
from app.models import runs, shipped_models


def _model(root: Path, name: str, architectures: list[str]) -> None:
    (root / name).mkdir(parents=True, exist_ok=True)
    (root / name / "config.json").write_text(json.dumps({"architectures": architectures}), encoding="utf-8")


def test_the_model_list_follows_folders_added_removed_and_configs_changed(tmp_path) -> None:
    _model(tmp_path, "albert-lab-base", ["AlbertForPreTraining"])
    _model(tmp_path, "some-classifier", ["AlbertForSequenceClassification"])
    (tmp_path / "not-a-model").mkdir()
    (tmp_path / "stray.txt").write_text("x")
    assert shipped_models(tmp_path) == ["albert-lab-base"]
    _model(tmp_path, "albert-lab-none", ["AlbertForPreTraining"])
    assert shipped_models(tmp_path) == ["albert-lab-base", "albert-lab-none"]
    _model(tmp_path, "some-classifier", ["AlbertForPreTraining", "AlbertForMaskedLM"])  # rewritten: size changes
    assert "some-classifier" in shipped_models(tmp_path)
    (tmp_path / "albert-lab-none" / "config.json").unlink()
    assert "albert-lab-none" not in shipped_models(tmp_path)
    assert shipped_models(tmp_path / "missing") == []


def _curve(path: Path, accuracy: float) -> None:
    pd.DataFrame({"tokens": [1000, 2000], "mlm_accuracy": [0.1, accuracy]}).to_csv(path, index=False)


def test_recorded_runs_are_read_again_when_a_file_changes(tmp_path, monkeypatch) -> None:
    from app.tabs.sharing.views import recorded_runs

    monkeypatch.setenv(settings.RUNS.name, str(tmp_path))
    _curve(tmp_path / "albert-lab-all.csv", 0.25)
    first = recorded_runs("en")
    assert first.names == ["albert-lab-all"] and recorded_runs("en") is first  # drawn once
    assert recorded_runs("zh") is not first  # each language its own
    assert runs.load_curves()["albert-lab-all"]["mlm_accuracy"].iloc[-1] == 0.25
    _curve(tmp_path / "albert-lab-all.csv", 0.375)
    stat = (tmp_path / "albert-lab-all.csv").stat()
    os.utime(tmp_path / "albert-lab-all.csv", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert runs.load_curves()["albert-lab-all"]["mlm_accuracy"].iloc[-1] == 0.375
    again = recorded_runs("en")
    assert again is not first and list(again.mlm_curves.data[0].y)[-1] == 0.375
    _curve(tmp_path / "albert-lab-none.csv", 0.2)
    assert recorded_runs("en").names == ["albert-lab-all", "albert-lab-none"]


def test_the_queue_never_summarises_its_analytics_unless_the_environment_says(monkeypatch) -> None:
    """Only Gradio's monitoring dashboard (off) reads the summary; building it paused the server (issue 53)."""
    from tests.app.support import use_tiny_assets

    use_tiny_assets(monkeypatch)
    from app import bound_queue, build_app
    from app.layout import QUEUE_ANALYTICS

    for name in QUEUE_ANALYTICS:
        monkeypatch.delenv(name, raising=False)
    queue = bound_queue(build_app())._queue
    assert (queue.ANAYLTICS_CACHE_FREQUENCY, queue.ANALYTICS_MAX_EVENTS) == (10**9, 2000)
    records = [{"function": "fill_mask", "status": "success", "process_time": 0.1}] * 3
    queue.events_recorded = 10_000  # a day of a class's requests
    assert queue.compute_analytics_summary(records) == {"functions": {}}  # never built
    monkeypatch.setenv("GRADIO_ANALYTICS_CACHE_FREQUENCY", "7")
    assert bound_queue(build_app())._queue.ANAYLTICS_CACHE_FREQUENCY == 7  # an operator's choice is kept
