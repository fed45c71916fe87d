"""experiments.sst2_holdout and sst2_lr_choice: whole training sentences held out (with all their parts)
and each arm's learning rate chosen on them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from albert.data.tasks import DataError, read_records
from experiments.sst2_holdout import HoldoutConfig, split_sentences, write_split
from experiments.sst2_lr_choice import choose, read_choice

SENTENCES = [
    ("the film is a charming and funny tale of two brothers", "1"),
    ("a dull , lifeless script sinks every scene of this picture", "0"),
    ("its actors give warm , generous performances all the way through", "1"),
    ("nothing in this long and tedious movie ever comes to life", "0"),
]


def phrase_rows() -> list[tuple[str, str]]:
    """Each sentence with its sub-phrases, as SST-2's training file lists them (phrase labels copied)."""
    rows = []
    for text, label in SENTENCES:
        words = text.split()
        rows += [(text, label), (" ".join(words[:4]), label), (" ".join(words[3:9]), label), (words[-1], label)]
    rows.append(("the film", "1"))  # a phrase that also sits inside the first sentence
    return rows


def test_whole_sentences_are_held_out_with_every_phrase_inside_them() -> None:
    split = split_sentences(phrase_rows(), sentences=2, min_words=5, seed=0)
    held = [text for text, _ in split.heldout]
    assert len(held) == 2 and set(held) <= {text for text, _ in SENTENCES}  # the sentence, never a fragment
    train = [text for text, _ in split.train]
    for sentence in held:
        padded = f" {sentence} "
        assert not any(f" {text} " in padded for text in train), "a part of a held-out sentence leaked"
    others = [s for s, _ in SENTENCES if s not in held]
    assert set(others) <= set(train)  # the other sentences keep their phrases
    labels = dict(SENTENCES)
    assert all(label == labels[text] for text, label in split.heldout)


def test_the_draw_is_seeded() -> None:
    first = split_sentences(phrase_rows(), sentences=2, min_words=5, seed=3)
    assert first == split_sentences(phrase_rows(), sentences=2, min_words=5, seed=3)
    draws = {tuple(split_sentences(phrase_rows(), sentences=1, min_words=5, seed=s).heldout) for s in range(12)}
    assert len(draws) > 1


def test_asking_for_more_sentences_than_there_are_is_one_clear_error() -> None:
    with pytest.raises(DataError, match="only 4 sentences of at least 5 words could be held out"):
        split_sentences(phrase_rows(), sentences=5, min_words=5)


def test_writes_a_glue_folder_the_finetuning_reader_accepts(tmp_path: Path) -> None:
    source = tmp_path / "train.tsv"
    source.write_text("sentence\tlabel\n" + "".join(f"{t}\t{label}\n" for t, label in phrase_rows()))
    split = write_split(HoldoutConfig(source=str(source), output_dir=str(tmp_path / "out"), sentences=1, min_words=5))
    heldout = read_records(str(tmp_path / "out" / "dev.tsv"), task="classification")
    train = read_records(str(tmp_path / "out" / "train.tsv"), task="classification")
    assert [(r.text, r.label) for r in heldout] == split.heldout
    assert [(r.text, r.label) for r in train] == split.train


@pytest.mark.slow
def test_cli_bad_source_is_one_sentence(tmp_path: Path) -> None:
    (tmp_path / "train.tsv").write_text("sentence\tlabel\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "experiments.sst2_holdout",
            "--source",
            str(tmp_path / "train.tsv"),
            "--output-dir",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "holds no examples" in done.stderr
    assert not (tmp_path / "out" / "dev.tsv").exists()


def write_search_run(runs: Path, arm: str, rate: str, accuracy: float, examples: int = 872) -> None:
    folder = runs / f"search-{arm}-lr{rate}"
    folder.mkdir(parents=True)
    (folder / "results.json").write_text(json.dumps({"best": {"accuracy": accuracy}, "dev_examples": examples}))


@pytest.mark.slow
def test_each_arm_gets_its_best_held_out_rate_and_ties_go_to_the_lower_rate(tmp_path: Path) -> None:
    for rate, pretrained, scratch in (("1e-4", 0.80, 0.79), ("2e-4", 0.83, 0.79), ("5e-4", 0.82, 0.78)):
        write_search_run(tmp_path, "pretrained", rate, pretrained)
        write_search_run(tmp_path, "scratch", rate, scratch)
    choice = read_choice(tmp_path, ("1e-4", "2e-4", "5e-4"))
    assert choice.chosen == {"pretrained": "2e-4", "scratch": "1e-4"}
    assert choice.scores["scratch"] == {"1e-4": 0.79, "2e-4": 0.79, "5e-4": 0.78}
    assert choose({"5e-4": 0.9, "1e-3": 0.9}) == "5e-4"

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "experiments.sst2_lr_choice",
            "--runs",
            str(tmp_path),
            "--rates",
            "1e-4",
            "2e-4",
            "5e-4",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2e-4", "1e-4"]
    assert json.loads((tmp_path / "lr_choice.json").read_text())["chosen"] == choice.chosen


@pytest.mark.slow
def test_a_missing_search_run_or_a_mixed_held_out_set_is_one_sentence(tmp_path: Path) -> None:
    write_search_run(tmp_path, "pretrained", "1e-4", 0.8)
    done = subprocess.run(
        [sys.executable, "-m", "experiments.sst2_lr_choice", "--runs", str(tmp_path), "--rates", "1e-4"],
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "search-scratch-lr1e-4/results.json is missing" in done.stderr
    write_search_run(tmp_path, "scratch", "1e-4", 0.8, examples=500)
    with pytest.raises(ValueError, match="different held-out sets"):
        read_choice(tmp_path, ("1e-4",))
