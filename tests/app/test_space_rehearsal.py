"""The Space rehearsal, cheap: the deploy's file set copied into an empty folder and served as a Space serves it
(SYSTEM=spaces, SPACE_ID, GRADIO_SERVER_NAME=0.0.0.0), (a) with an empty Hugging Face cache and (b) with tiny
checkpoints laid out as albert/albert-base-v2 and uer/albert-base-chinese-cluecorpussmall publish them. The full
rehearsal (a fresh venv from requirements.txt alone, full-size checkpoints) is `python -m benchmarks.space_rehearsal`;
its figures are in docs/usage/space.md. This one uses the suite's interpreter."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from benchmarks.hub_layouts import GOOGLE_ID, UER_ID
from benchmarks.space_rehearsal import rehearse
from tests.app.support import free_port


@pytest.mark.slow
def test_the_copied_space_answers_offline_and_with_the_real_albert_layouts(tmp_path: Path) -> None:
    report = rehearse(tmp_path, sys.executable, tiny=True, port=free_port(), warm_training=False)
    assert report["files"] > 300 and report["sizes"] == "tiny"
    offline, cached = report["runs"]
    for run in (offline, cached):
        assert run["page_s"] > 0
        assert all(answer["error"] is None for answer in run["answers"].values()), run["answers"]
        assert run["answers"]["sentence_order"]["model"] == "albert-lab-e128-gpu"  # a trained head, ours
        assert run["answers"]["sentence_order"]["automatic_line"] == ""
    # (a) "online" by SYSTEM=spaces, but nothing to fetch: ours answer, and say why
    assert offline["answers"]["fill_mask"]["model"] == "albert-lab-e128-gpu"
    assert offline["answers"]["fill_mask_zh"]["model"] == "albert-lab-zh"
    assert "could not be fetched at start" in offline["answers"]["attention"]["automatic_line"]
    # (b) the real ALBERTs answer Masked words and Attention once loaded, each saying so
    assert None not in cached["hub_ready_s"].values()
    assert cached["answers"]["fill_mask"]["model"] == cached["answers"]["attention"]["model"] == GOOGLE_ID
    assert cached["answers"]["fill_mask_zh"]["model"] == UER_ID
    assert cached["answers"]["fill_mask"]["automatic_line"].startswith(f"Automatic: {GOOGLE_ID} answered")
    assert cached["answers"]["fill_mask_zh"]["automatic_line"].startswith(f"自动：由 {UER_ID} 作答")
    assert (tmp_path / "rehearsal.json").is_file()
