"""`scripts.package_model` on a continued run (`--init-from` a shipped model) stopped before its plan: the card says
where it started and that it stopped early, the token count goes on from the start's, and the curve does too."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

from albert.cli import parse_config
from albert.commands.pretrain import PretrainConfig, run
from tests.factories import WORDS
from tests.training.test_pretrain import _init_from_argv
from tests.training.test_pretrain import config as pretrain_config


def _valid_text(path: Path) -> Path:
    rng = random.Random(0)
    path.write_text(
        "\n\n".join(" ".join(f"The {rng.choice(WORDS)} {rng.choice(WORDS)}." for _ in range(12)) for _ in range(20)),
        encoding="utf-8",
    )
    return path


def test_a_continued_run_stopped_early_is_packaged_with_its_whole_token_count(
    corpus,
    tmp_path: Path,
) -> None:
    from scripts.package_model import package

    valid = _valid_text(tmp_path / "valid.txt")
    assets = tmp_path / "assets"
    start = package_run(corpus, tmp_path / "start-run", "--max-steps", "4")
    first = package(start, "start", [str(valid)], assets, notes="")
    first_card = (assets / "models" / "start" / "README.md").read_text()
    assert "trained from scratch" in first_card and "stopped early" not in first_card

    argv = _init_from_argv(
        assets / "models" / "start",
        corpus,
        tmp_path / "continued-run",
        *("--valid-corpus", str(corpus["valid"]), "--max-steps", "8", "--stop-after-steps", "3"),
        *("--log-every", "1", "--eval-examples", "16"),
    )
    run(parse_config(PretrainConfig, argv))
    summary = json.loads((tmp_path / "continued-run" / "summary.json").read_text())
    assert summary["steps"] == 3 and summary["planned_steps"] == 8

    metrics = package(tmp_path / "continued-run", "continued", [str(valid)], assets, notes="")
    assert metrics["run_tokens"] == summary["tokens"] > 0
    assert metrics["tokens"] == first["tokens"] + summary["tokens"]
    card = (assets / "models" / "continued" / "README.md").read_text()
    assert "continued by ALBERT Lab's own pipeline" in card and "trained from scratch" not in card
    assert f"{first['tokens']:,} tokens before this run" in card
    assert "3 (stopped early: 8 were planned) × batch 8" in card
    curve = list(csv.DictReader((assets / "runs" / "continued.csv").open()))
    run_curve = list(csv.DictReader((tmp_path / "continued-run" / "metrics.csv").open()))
    assert [int(r["tokens"]) for r in curve] == [int(float(r["tokens"])) + first["tokens"] for r in run_curve]
    row = next(r for r in csv.DictReader((assets / "runs" / "summary.csv").open()) if r["run"] == "continued")
    assert int(row["tokens"]) == metrics["tokens"]


def test_the_card_gives_the_global_batch_of_a_run_on_several_processes(
    corpus,
    tmp_path: Path,
) -> None:
    """Two processes of 4 sequences take one batch of 8: the card and its command say 8 (one process's equivalent)."""
    from scripts.package_model import package

    run_dir = package_run(corpus, tmp_path / "run", "--max-steps", "2", "--batch-size", "4")
    summary_path = run_dir / "summary.json"
    summary = json.loads(summary_path.read_text())
    summary["world_size"] = 2  # as `torchrun --nproc-per-node 2` records it
    summary_path.write_text(json.dumps(summary))
    package(run_dir, "pair", [str(_valid_text(tmp_path / "valid.txt"))], tmp_path / "assets", notes="")
    card = (tmp_path / "assets" / "models" / "pair" / "README.md").read_text()
    assert "2 × batch 8 × 48 tokens" in card and "--batch-size 8" in card


def package_run(corpus: dict[str, Path], out: Path, *extra: str) -> Path:
    run(pretrain_config(corpus, out, *extra))
    return out
