"""MLM-only pretraining (the paper's Table 5 "None" column): no sentence head, single-segment
examples, end to end — config, model, parameter count, transformers, pretraining CLI and the app."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import torch
import transformers

from albert import AlbertForPreTraining, count_parameters
from albert.commands.pretrain import run
from albert.core.hf import to_transformers
from tests.factories import WORDS, max_abs_diff, randomize_, tiny_config
from tests.training.test_pretrain import config as pretrain_config


def test_mlm_only_model_has_no_sentence_head(batch) -> None:
    config = tiny_config(sentence_objective="none")
    model = randomize_(AlbertForPreTraining(config)).eval()
    assert not hasattr(model, "sentence_pair_head") and not model.has_sentence_head
    assert sum(p.numel() for p in model.parameters()) == count_parameters(config, "pretraining").total
    with_head = count_parameters(tiny_config(), "pretraining").total
    assert with_head - count_parameters(config, "pretraining").total == config.hidden_size * 2 + 2
    labels = torch.full_like(batch["input_ids"], -100)
    labels[:, 2] = batch["input_ids"][:, 2]
    out = model(**batch, mlm_labels=labels, sentence_order_label=torch.tensor([0, 1, 0]))
    assert out.sop_logits is None and out.sop_loss is None and torch.equal(out.loss, out.mlm_loss)


def test_mlm_only_model_matches_transformers_masked_lm(batch, tmp_path: Path) -> None:
    ours = randomize_(AlbertForPreTraining(tiny_config(sentence_objective="none"))).eval()
    theirs = to_transformers(ours)
    assert type(theirs).__name__ == "AlbertForMaskedLM"
    ours.save_pretrained(tmp_path)
    loaded = transformers.AlbertForMaskedLM.from_pretrained(tmp_path).eval()
    reloaded = AlbertForPreTraining.from_pretrained(tmp_path)
    assert reloaded.config.sentence_objective == "none" and not reloaded.has_sentence_head
    with torch.no_grad():
        expected = ours(**batch).mlm_logits
        assert max_abs_diff(theirs(**batch).logits, expected) <= 1e-5
        assert max_abs_diff(loaded(**batch).logits, expected) <= 1e-5
        assert max_abs_diff(reloaded(**batch).mlm_logits, expected) <= 1e-6


def test_pretrain_mlm_only_end_to_end_and_the_app_says_there_is_no_head(corpus, tmp_path: Path) -> None:
    result = run(pretrain_config(corpus, tmp_path / "run", "--data.objective", "none", "--max-steps", "6"))
    assert result.model.config.sentence_objective == "none" and not result.model.has_sentence_head
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert "mlm_accuracy" in summary["held_out"]
    assert "order_accuracy" not in summary["held_out"] and "topic_accuracy" not in summary["held_out"]
    rows = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert all("sop_loss" not in row and "none_accuracy" not in row for row in rows)
    final = tmp_path / "run" / "final"
    assert json.loads((final / "config.json").read_text())["sentence_objective"] == "none"

    from app.inference import InputError, fill_mask, sentence_order
    from app.models import load_uncached
    from app.tabs.order.views import sentence_order_view

    lm = load_uncached("local", str(final), "en")
    assert len(fill_mask(lm, "the [MASK] was seen .").predictions) == 1  # masked words work
    from app.models import language_models

    suggested = language_models()["en"]
    with pytest.raises(InputError, match=f"no sentence head.*e.g. {suggested}\\."):  # the app's default is named
        sentence_order(lm, "A first sentence.", "A second one.")
    with pytest.raises(InputError, match="没有句子输出层"):
        sentence_order(lm, "第一句。", "第二句。", "zh")
    raw, status, verdict, chart = sentence_order_view("A first sentence.", "A second one.", str(final), "en")
    assert "no sentence head" in raw["error"] and not verdict


@pytest.mark.parametrize("objective", ["sop", "none"])
def test_package_model_card_has_intervals_and_says_when_there_is_no_head(
    corpus,
    tmp_path: Path,
    objective: str,
) -> None:
    import csv

    from scripts.package_model import package

    run(pretrain_config(corpus, tmp_path / "run", "--data.objective", objective, "--max-steps", "4"))
    rng = random.Random(0)  # held-out text of short sentences, so that several fit in one pair
    valid = tmp_path / "valid.txt"
    valid.write_text(
        "\n\n".join(" ".join(f"The {rng.choice(WORDS)} {rng.choice(WORDS)}." for _ in range(12)) for _ in range(20)),
        encoding="utf-8",
    )
    metrics = package(tmp_path / "run", "tiny", [str(valid)], tmp_path / "assets", notes="A tiny run.")
    card = (tmp_path / "assets" / "models" / "tiny" / "README.md").read_text()
    low, high = metrics["mlm_ci95"]
    assert low <= metrics["mlm_accuracy"] <= high and metrics["mlm_n"] > 0
    assert f"{metrics['mlm_accuracy']:.1%} | {low:.1%} – {high:.1%}" in card and "A tiny run." in card
    assert "<!-- family table" in card and "| `tiny` |" in card  # the family table, with this arm in it
    row = next(csv.DictReader((tmp_path / "assets" / "runs" / "summary.csv").open()))
    assert row["objective"] == objective and float(row["mlm_low"]) == low
    if objective == "none":
        assert "order_accuracy" not in metrics and "no sentence-pair head" in card and "(no sentence head)" in card
    else:
        assert {"order_accuracy", "topic_accuracy"} <= set(metrics) and metrics["order_n"] > 0
        assert "prefers the true order (each pair asked both ways)" in card
        assert float(row["order_low"]) == metrics["order_ci95"][0]
        from scripts.package_model import record_replication

        second = {
            "order": {"rate": 0.494, "ci95": [0.475, 0.512], "n": 2814},
            "topic": {"rate": 0.6, "ci95": [0.58, 0.62], "n": 2814},
        }
        folder = tmp_path / "assets" / "models" / "tiny"
        recorded = record_replication(folder, second)
        card = (folder / "README.md").read_text()
        assert recorded["order_replication_ci95"] == [0.475, 0.512] and recorded["topic_replication_n"] == 2814
        assert (
            "| prefers the true order, second draw (no sentence shared with the first) | 49.4% | 47.5% – 51.2% | "
            "2,814 pairs |" in card
        )
        assert card.count("--avoid-pair-seed 0") == 1 and record_replication(folder, second) == recorded  # idempotent
        assert card.count("--avoid-pair-seed 0") == (folder / "README.md").read_text().count("--avoid-pair-seed 0")
        row = next(csv.DictReader((tmp_path / "assets" / "runs" / "summary.csv").open()))
        assert float(row["order_replication_low"]) == 0.475
