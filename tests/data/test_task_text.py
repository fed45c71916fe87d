"""Task text as a pretraining corpus (`albert.task_text`) and task-adaptive pretraining on it."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from albert.cli import parse_config
from albert.commands.task_text import TaskTextConfig, run
from albert.data.corpus import read_documents
from albert.data.tasks import DataError

WORDS = "the film a movie is not funny warm dull bright story cast plot loud quiet slow sharp".split()


def _config(*argv: str) -> TaskTextConfig:
    return parse_config(TaskTextConfig, list(argv))


def _write_tsv(path: Path, rows: list[tuple[str, ...]], header: tuple[str, ...] = ("sentence", "label")) -> Path:
    path.write_text("\n".join("\t".join(row) for row in [header, *rows]) + "\n", encoding="utf-8")
    return path


def test_writes_each_distinct_text_once_as_a_document(tmp_path: Path) -> None:
    source = _write_tsv(
        tmp_path / "train.tsv",
        [("a warm  film", "1"), ("dull plot", "0"), ("a warm film", "0"), ("the cast is sharp", "1")],
    )
    result = run(_config("--source", str(source), "--output", str(tmp_path / "text.txt")))
    assert list(read_documents([tmp_path / "text.txt"])) == [["a warm film"], ["dull plot"], ["the cast is sharp"]]
    assert (result.documents, result.heldout_documents, result.words) == (3, 0, 9)
    assert "1" not in (tmp_path / "text.txt").read_text()  # labels dropped


def test_pairs_become_two_paragraph_documents(tmp_path: Path) -> None:
    source = _write_tsv(
        tmp_path / "pairs.tsv",
        [("a film", "is warm", "1"), ("a plot", "is dull", "0")],
        header=("sentence1", "sentence2", "label"),
    )
    run(_config("--source", str(source), "--output", str(tmp_path / "text.txt")))
    assert list(read_documents([tmp_path / "text.txt"])) == [["a film", "is warm"], ["a plot", "is dull"]]


def test_heldout_slice_is_disjoint_seeded_and_sized(tmp_path: Path) -> None:
    rng = random.Random(0)
    rows = [(" ".join(rng.choice(WORDS) for _ in range(6)) + f" {i}", str(i % 2)) for i in range(200)]
    source = _write_tsv(tmp_path / "train.tsv", rows)

    def split(name: str, seed: str) -> tuple[list[str], list[str]]:
        run(
            _config(
                "--source",
                str(source),
                "--output",
                str(tmp_path / f"{name}.txt"),
                "--heldout",
                str(tmp_path / f"{name}-heldout.txt"),
                "--heldout-fraction",
                "0.1",
                "--seed",
                seed,
            )
        )
        return (
            [d[0] for d in read_documents([tmp_path / f"{name}.txt"])],
            [d[0] for d in read_documents([tmp_path / f"{name}-heldout.txt"])],
        )

    train, heldout = split("a", "0")
    assert len(heldout) == 20 and len(train) == 180 and not set(train) & set(heldout)
    assert sorted(train + heldout) == sorted(row[0] for row in rows)
    assert split("b", "0") == (train, heldout) and split("c", "1")[1] != heldout


@pytest.mark.slow
def test_bad_input_stops_with_one_sentence_and_writes_nothing(tmp_path: Path) -> None:
    ragged = tmp_path / "ragged.tsv"
    ragged.write_text("sentence\tlabel\na fine film\t1\nbroken row\n", encoding="utf-8")
    out = tmp_path / "text.txt"
    process = subprocess.run(
        [sys.executable, "-m", "albert.task_text", "--source", str(ragged), "--output", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode != 0 and "Traceback" not in process.stderr
    assert "ragged.tsv" in process.stderr and "line 3" in process.stderr
    assert not out.exists()
    conll = tmp_path / "tags.conll"
    conll.write_text("a O\nfilm O\n", encoding="utf-8")
    with pytest.raises(DataError, match="CoNLL"):
        run(_config("--source", str(conll), "--output", str(out)))
    single = _write_tsv(tmp_path / "one.tsv", [("a film", "1")])
    with pytest.raises(DataError, match="too few"):
        run(_config("--source", str(single), "--output", str(out), "--heldout", str(tmp_path / "h.txt")))
    assert not out.exists()
    with pytest.raises(SystemExit):
        _config("--source", str(single), "--output", str(out), "--heldout-fraction", "1.5")


def test_task_adaptive_pretraining_runs_on_the_written_text(tmp_path: Path) -> None:
    from albert import AlbertForPreTraining
    from albert.commands.pretrain import PretrainConfig
    from albert.commands.pretrain import run as pretrain
    from albert.data.tokenizer import train_tokenizer
    from tests.factories import tiny_config

    rng = random.Random(1)
    rows = [(" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9))), str(i % 2)) for i in range(120)]
    source = _write_tsv(tmp_path / "train.tsv", rows)
    run(
        _config(
            "--source",
            str(source),
            "--output",
            str(tmp_path / "text.txt"),
            "--heldout",
            str(tmp_path / "heldout.txt"),
            "--heldout-fraction",
            "0.2",
        )
    )
    tokenizer = train_tokenizer([tmp_path / "text.txt"], tmp_path / "tokenizer", vocab_size=40)
    AlbertForPreTraining(tiny_config(vocab_size=len(tokenizer))).save_pretrained(tmp_path / "base", tokenizer=tokenizer)
    result = pretrain(
        parse_config(
            PretrainConfig,
            [
                "--init-from",
                str(tmp_path / "base"),
                "--corpus",
                str(tmp_path / "text.txt"),
                "--valid-corpus",
                str(tmp_path / "heldout.txt"),
                "--output-dir",
                str(tmp_path / "adapted"),
                "--data.max-seq-length",
                "32",
                "--batch-size",
                "8",
                "--max-steps",
                "40",
                "--eval-every",
                "40",
                "--log-every",
                "2",
                "--eval-examples",
                "16",
                "--threads",
                "1",
                "--optim.learning-rate",
                "3e-3",
            ],
        )
    )
    rows = [json.loads(line) for line in (tmp_path / "adapted" / "metrics.jsonl").read_text().splitlines()]
    train = [row for row in rows if row["split"] == "train"]
    assert result.summary["steps"] == 40 and (tmp_path / "adapted" / "final" / "model.safetensors").exists()
    assert train[-1]["mlm_loss"] < train[0]["mlm_loss"] - 0.3  # it learns the task text's word frequencies
    assert 0.0 <= result.summary["held_out"]["mlm_accuracy"] <= 1.0
