"""experiments/sop_learnability.py: its two corpora say what they claim, and the benchmark runs end to end."""

from __future__ import annotations

import json
from pathlib import Path

from experiments.sop_learnability import ORDINALS, main, write_corpus


def openings(path: Path) -> list[list[str]]:
    blocks = path.read_text(encoding="utf-8").strip().split("\n\n")
    return [[line.split()[0] for line in block.splitlines()] for block in blocks]


def test_the_ordered_corpus_gives_the_order_away_and_the_control_does_not(tmp_path: Path) -> None:
    ordered = openings(write_corpus(tmp_path / "ordered.txt", 50, seed=0, ordered=True))
    control = openings(write_corpus(tmp_path / "control.txt", 50, seed=0, ordered=False))
    assert len(ordered) == len(control) == 50
    assert all(doc == list(ORDINALS) for doc in ordered)
    in_order = sum(ORDINALS.index(a) < ORDINALS.index(b) for doc in control for a, b in zip(doc, doc[1:], strict=False))
    assert 0.3 < in_order / (50 * 7) < 0.6  # a random ordinal: the next is later less than half of the time


def test_the_benchmark_reports_both_curves(tmp_path: Path) -> None:
    output = tmp_path / "curves.json"
    assert main(["--steps", "4", "--eval-every", "2", "--output", str(output)]) == 0
    curves = json.loads(output.read_text())
    assert list(curves) == ["order in the text", "control: no order in the text"]
    for curve in curves.values():
        assert [row["step"] for row in curve] == [2, 4] and all(0 <= row["order_accuracy"] <= 1 for row in curve)
