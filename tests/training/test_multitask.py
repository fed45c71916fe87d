"""One backbone, several heads (`albert.finetune --multitask`): train → save → load → predict on a tiny model."""

from __future__ import annotations

import json
import logging
import random
from collections import Counter
from pathlib import Path

import pytest
import torch

from albert.commands.finetune import FinetuneConfig, run
from albert.commands.multitask import task_schedule
from albert.commands.practices import parse_task_spec
from albert.core.multitask import MultiTaskModel, task_words
from albert.data.tokenizer import load_tokenizer
from albert.training.optim import OptimizerConfig
from tests.training.test_finetune import NEGATIVE, POSITIVE, sentence, toy_pretrained_models, write_sentiment


def write_tagging(path: Path, n: int, seed: int) -> Path:
    """A toy token task: tag each word P (a positive word), N (a negative word) or O."""
    rng = random.Random(seed)
    lines = []
    for _ in range(n):
        for word in sentence(rng, rng.randint(0, 1)):
            lines.append(f"{word} {'P' if word in POSITIVE else 'N' if word in NEGATIVE else 'O'}")
        lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def multitask_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("multitask")
    base = toy_pretrained_models(root, ("all",))["all"]
    files = {
        "train": write_sentiment(root / "train.tsv", 320, seed=0),
        "dev": write_sentiment(root / "dev.tsv", 100, seed=1),
        "tags-train": write_tagging(root / "tags-train.conll", 160, seed=2),
        "tags-dev": write_tagging(root / "tags-dev.conll", 50, seed=3),
    }
    cfg = FinetuneConfig(
        model=str(base),
        multitask=(f"sentiment={files['train']},{files['dev']}", f"words={files['tags-train']},{files['tags-dev']}"),
        output_dir=str(root / "out"),
        max_seq_length=32,
        epochs=5,
        batch_size=16,
        threads=1,
        optim=OptimizerConfig(learning_rate=5e-3, warmup_fraction=0.1),
    )
    summary = run(cfg).summary
    return {"root": root, "summary": summary, "base": base}


def test_each_head_is_trained_and_evaluated_on_its_own_dev_set(multitask_run: dict) -> None:
    results = json.loads((multitask_run["root"] / "out" / "results.json").read_text())
    assert results["steps_per_task"] == {"sentiment": 100, "words": 50}  # 320/16 and 160/16 batches, 5 epochs
    assert results["tasks"]["sentiment"]["kind"] == "sequence" and results["tasks"]["words"]["kind"] == "token"
    assert results["tasks"]["words"]["label_names"] == ["N", "O", "P"]
    assert results["dev"]["sentiment"]["n"] == 100
    assert results["dev"]["words"]["n"] == sum(
        1 for line in (multitask_run["root"] / "tags-dev.conll").open() if line.strip()
    )
    assert results["dev"]["sentiment"]["accuracy"] >= 0.8 and results["dev"]["words"]["accuracy"] >= 0.9


def test_one_checkpoint_with_named_heads_answers_both_tasks(multitask_run: dict) -> None:
    best = multitask_run["root"] / "out" / "best"
    config = json.loads((best / "config.json").read_text())
    assert config["architectures"] == ["AlbertMultiTask"] and set(config["task_heads"]) == {"sentiment", "words"}
    model = MultiTaskModel.from_pretrained(best)
    tokenizer = load_tokenizer(best)
    answers = model.predict_text("the film was wonderful", tokenizer)
    assert answers["sentiment"] == "1"
    assert ("▁wonderful", "P") in answers["words"] or any(tag == "P" for _, tag in answers["words"])
    with pytest.raises(KeyError, match="no head named"):
        model("nope", torch.tensor([[2, 3]]))


def test_task_schedule_draws_in_proportion_and_sees_all_data() -> None:
    schedule = task_schedule({"a": 100, "b": 30}, batch_size=10, epochs=2, seed=0)
    assert Counter(t for t, _ in schedule) == {"a": 20, "b": 6}
    assert sorted(i for t, i in schedule if t == "b") == list(range(6))  # each batch once, epochs continue the index
    assert schedule != sorted(schedule)  # interleaved, not one task after the other


def test_task_specs_are_checked() -> None:
    assert parse_task_spec("sst2=a.tsv,b.tsv") == ("sst2", "a.tsv", "b.tsv")
    for bad in ("sst2=a.tsv", "=a,b", "x y=a,b"):
        with pytest.raises(ValueError, match="NAME=TRAIN_FILE,DEV_FILE"):
            parse_task_spec(bad)


def test_the_command_line_takes_several_tasks(
    multitask_run: dict, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from albert.commands.finetune import main

    root = multitask_run["root"]
    with caplog.at_level(logging.INFO, logger="albert.finetune"):
        main(
            [
                "--model", str(multitask_run["base"]), "--output-dir", str(tmp_path / "cli"), "--threads", "1",
                "--multitask", f"sentiment={root / 'train.tsv'},{root / 'dev.tsv'}",
                f"words={root / 'tags-train.conll'},{root / 'tags-dev.conll'}",
                "--epochs", "1", "--batch-size", "32", "--max-seq-length", "32",
            ]
        )  # fmt: skip
    report = [r.getMessage() for r in caplog.records if r.name == "albert.finetune"]  # the final report: logged
    assert any("sentiment: dev accuracy" in line for line in report) and any("words: dev accuracy" in r for r in report)
    assert set(MultiTaskModel.from_pretrained(tmp_path / "cli" / "best").heads) == {"sentiment", "words"}


def test_a_token_task_reads_the_text_as_its_files_were_read() -> None:
    """Words for a token head: whitespace-separated, every Han character (and punctuation beside it) its own word."""
    assert task_words("今天下雨，路滑。") == list("今天下雨，路滑。")
    assert task_words("The old sailor walked") == ["The", "old", "sailor", "walked"]
    assert task_words("用 ALBERT 试试") == ["用", "ALBERT", "试", "试"]
