"""experiments.noise_perturbations and experiments.shared_noise: the fixed perturbed sets (seeded, every example
edited, labels kept), the text-free baselines, scoring a fine-tuned model, and the report's paired differences."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

from albert.data.tasks import Record
from experiments.noise_perturbations import (
    NEIGHBOURS,
    PerturbationConfig,
    build_task,
    han_vocabulary,
    perturb_chinese,
    perturb_english,
    text_free_baselines,
    typo,
)
from experiments.shared_noise import RunScore, bootstrap_interval, decision, paired, report, score, t_interval

ENGLISH = ["a charming and funny tale of two brothers", "a dull , lifeless script sinks every scene", "great fun ."]
CHINESE = ["这本书写得很好，值得一读。", "房间太小了，服务也很差！", "OK"]


def _glue(root: Path) -> Path:
    """Train: each text four times, labels 1, 1, 0 (majority 1); dev: each text once, labels 1, 0, 1."""
    for folder, texts in {"SST-2": ENGLISH, "zh-reviews": CHINESE}.items():
        (root / folder).mkdir(parents=True)
        for split, rows in (
            ("train", [(t, label) for t, label in zip(texts, "110", strict=True)] * 4),
            ("dev", list(zip(texts, "101", strict=True))),
        ):
            lines = "".join(f"{t}\t{label}\n" for t, label in rows)
            (root / folder / f"{split}.tsv").write_text("sentence\tlabel\n" + lines, encoding="utf-8")
    return root


def test_a_typo_changes_a_word_by_one_keystroke() -> None:
    rng = random.Random(0)
    for _ in range(200):
        changed = typo("brothers", rng)
        assert changed != "brothers" and abs(len(changed) - len("brothers")) <= 1
    assert set(NEIGHBOURS["a"]) == set("qwsz") and set(NEIGHBOURS["p"]) == set("ol")


def test_english_and_chinese_perturbations_are_seeded_and_always_edit() -> None:
    cfg = PerturbationConfig()
    first = [perturb_english(t, random.Random(1), cfg) for t in ENGLISH]
    assert first == [perturb_english(t, random.Random(1), cfg) for t in ENGLISH]
    assert all(p != t and p.split() for p, t in zip(first, ENGLISH, strict=True))
    vocabulary = han_vocabulary([Record(t, None, "1", "test") for t in CHINESE * 2 + ["很"]], 50)
    assert vocabulary[0] == "很" and "，" not in vocabulary and len(vocabulary) == len(set(vocabulary))
    rng = random.Random(2)
    chinese = [perturb_chinese(t, rng, cfg, vocabulary) for t in CHINESE]
    assert chinese[0] != CHINESE[0] and chinese[1] != CHINESE[1]
    assert chinese[2] == "OK"  # no Han character: nothing to edit
    heavy = PerturbationConfig(swap=0.0, substitute=0.0, delete=1.0)
    assert perturb_chinese("好书。", random.Random(0), heavy, vocabulary) == "。"


def test_the_sets_are_written_with_a_manifest_and_the_text_free_baselines(tmp_path: Path) -> None:
    glue = _glue(tmp_path / "glue")
    manifest = build_task(glue, "sst2", tmp_path / "out", PerturbationConfig())
    again = build_task(glue, "sst2", tmp_path / "again", PerturbationConfig())
    assert manifest["sha256"] == again["sha256"] and manifest["examples"] == 3 and manifest["changed_examples"] == 3
    clean = (tmp_path / "out" / "sst2" / "clean.tsv").read_text().splitlines()
    perturbed = (tmp_path / "out" / "sst2" / "perturbed.tsv").read_text().splitlines()
    assert [line.rsplit("\t", 1)[1] for line in clean] == [line.rsplit("\t", 1)[1] for line in perturbed]
    baselines = text_free_baselines(glue, "sst2", tmp_path / "out")
    assert baselines["majority"]["clean"] == pytest.approx(2 / 3)  # train: labels 0,1,0 ×4 → 0; dev: 1,0,1
    assert set(baselines) == {"majority", "length"}


def test_scoring_a_model_writes_accuracy_intervals_and_each_examples_correctness(tmp_path: Path) -> None:
    from albert import AlbertForSequenceClassification
    from albert.data.tokenizer import load_tokenizer
    from tests.factories import tiny_model
    from tests.training.test_finetune import toy_pretrained_models

    toy_pretrained_models(tmp_path, sharings=("all",))
    tokenizer = load_tokenizer(tmp_path / "tokenizer")
    model = tiny_model(AlbertForSequenceClassification, num_labels=2, vocab_size=len(tokenizer))
    model.config.extra.update(id2label={"0": "0", "1": "1"}, label2id={"0": 0, "1": 1})
    model.save_pretrained(tmp_path / "clf", tokenizer=tokenizer)
    data = tmp_path / "data"
    data.mkdir()
    for split in ("clean", "perturbed"):
        (data / f"{split}.tsv").write_text("sentence\tlabel\nthe film was great\t1\nawful plot\t0\nlovely\t1\n")
    result = score(tmp_path / "clf", data)
    for split in ("clean", "perturbed"):
        assert result[split]["n"] == 3 and len(result[split]["correct"]) == 3
        assert result[split]["hits"] == result[split]["correct"].count("1")
        low, high = result[split]["ci95"]
        assert low <= result[split]["accuracy"] <= high
    assert result["drop"] == 0.0  # the same text twice


def _runs(shift: float) -> list[RunScore]:
    rng = np.random.default_rng(0)
    runs = []
    for seed in range(3):
        base = rng.random(400) < 0.8
        better = base | (rng.random(400) < shift)
        for std, perturbed in ((0.0, base & (rng.random(400) < 0.9)), (0.1, better)):
            runs.append(RunScore("en", std, seed, {"clean": base.astype(float), "perturbed": perturbed.astype(float)}))
    return runs


def test_paired_differences_and_the_decision_rule() -> None:
    mean, low, high = t_interval([0.01, 0.02, 0.03])
    assert mean == pytest.approx(0.02) and low == pytest.approx(0.02 - 4.303 * 0.01 / 3**0.5)
    assert high == pytest.approx(0.02 + 4.303 * 0.01 / 3**0.5)
    difference = paired(_runs(0.3), "en", 0.1)
    assert difference is not None and difference["seeds"] == [0, 1, 2]
    assert difference["clean"]["mean"] == 0.0 and difference["perturbed"]["mean"] > 0.1
    assert decision(difference) == "more robust"
    assert difference["drop"]["mean"] == pytest.approx(-difference["perturbed"]["mean"])
    low, high = bootstrap_interval(np.ones((10, 3)))
    assert low == high == 1.0
    table = report(_runs(0.3))
    assert "| 0.1 | 3 |" in table and "more robust" in table and "control" in table
    assert decision(None) == "not enough seeds"


def test_the_report_reads_the_score_files_by_name(tmp_path: Path) -> None:
    from experiments.shared_noise import load_scores

    entry = {"clean": {"correct": "1101"}, "perturbed": {"correct": "1001"}}
    (tmp_path / "zh-s0.03-seed2.json").write_text(json.dumps(entry))
    (tmp_path / "notes.json").write_text("{}")
    (only,) = load_scores(tmp_path)
    assert (only.lang, only.std, only.seed) == ("zh", 0.03, 2)
    assert only.accuracy("clean") == 0.75 and only.drop == pytest.approx(0.25)


def test_the_apps_line_quotes_the_committed_result() -> None:
    """The Sentiment tab's deploy view reports the experiment; its figures are those of the committed scores."""
    from app.i18n import t
    from experiments.shared_noise import load_scores

    runs = load_scores(Path(__file__).resolve().parents[2] / "docs" / "results" / "shared-noise")

    def quoted(lang: str, std: float, measure: str = "perturbed") -> str:
        difference = paired(runs, lang, std)
        assert difference is not None and difference["seeds"] == [0, 1, 2]
        mean, (low, high) = difference[measure]["mean"], difference[measure]["t95"]
        return " ".join(f"{100 * x:+.1f}" for x in (mean, low, high)).replace("-", "−")

    en, zh = t("deploy.shared_noise", "en"), t("deploy.shared_noise", "zh")
    for lang, text in (("en", en), ("zh", zh)):
        for std in (0.03, 0.1):
            mean, low, high = (re.escape(x) for x in quoted(lang, std).split())
            assert re.search(rf"{mean}[^\[\]]{{0,12}}\[{low}, {high}\]", text), (lang, std)
        assert decision(paired(runs, lang, 0.03)) == "no difference shown"
    clean = paired(runs, "zh", 0.1)
    assert clean is not None and f"{-100 * clean['clean']['mean']:.1f}" in zh  # the clean reviews' fall
