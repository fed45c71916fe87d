"""A fine-tuning run whose loss becomes NaN or infinite stops with a non-zero exit and one sentence,
and keeps its best checkpoint as it was (issue 18). Runs never lose work (issue 35): a folder holding an earlier
run is refused unless resumed or overwritten, `--resume` without a complete checkpoint names `--resume-or-start`,
and a checkpoint without its manifest resumes only with `--allow-unverified`."""

from __future__ import annotations

import dataclasses
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from albert import AlbertForSequenceClassification
from albert.commands.finetune import main
from albert.core.checkpoint import read_state_dict
from albert.training import state as training_state
from albert.training.state import CHECKSUMS_NAME
from tests.hostile.support import finetune_argv, pretrain_argv, write_table


def test_a_loss_that_becomes_nan_stops_the_run_and_keeps_the_best_checkpoint(
    models: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forward = AlbertForSequenceClassification.forward
    calls = {"train": 0}

    def diverging(self, *args, **kwargs):
        output = forward(self, *args, **kwargs)
        if self.training:
            calls["train"] += 1
            if calls["train"] >= 5:  # steps 1-4 are fine (best saved at step 2 or 4), step 5 is NaN
                output = dataclasses.replace(output, loss=output.loss * float("nan"))
        return output

    monkeypatch.setattr(AlbertForSequenceClassification, "forward", diverging)
    with pytest.raises(SystemExit) as error:
        main(finetune_argv(models, tmp_path))
    message = str(error.value.code)  # a string exit code: Python prints it and exits with status 1
    assert message.startswith("albert.finetune: the training loss became nan") and "\n" not in message
    assert "at step 5" in message and "lower --optim.learning-rate" in message
    best = json.loads((tmp_path / "best" / "eval_results.json").read_text())
    assert best["step"] in (2, 4) and f"step {best['step']}, is kept" in message
    for directory in ("best", "checkpoint"):
        weights, _ = read_state_dict(tmp_path / directory)
        assert all(torch.isfinite(t).all() for t in weights.values()), directory
    assert (tmp_path / "checkpoint" / "training_state.pt").is_file()  # the step-4 checkpoint, resumable
    assert not (tmp_path / "results.json").exists()


def test_unscaled_regression_targets_overflow_to_an_infinite_loss_and_stop(
    models: dict[str, Path], tmp_path: Path
) -> None:
    train = write_table(tmp_path / "train.tsv", ["1.5e30", "2.5e30", "3.5e30", "0.5e30"] * 4)
    argv = finetune_argv(models, tmp_path / "out", "--task", "regression")
    argv[argv.index("--train-file") + 1] = argv[argv.index("--dev-file") + 1] = str(train)
    with pytest.raises(SystemExit) as error:
        main(argv)
    message = str(error.value.code)
    assert "the training loss became inf" in message and "at step 1" in message
    assert "no best model had been saved yet" in message and "scale of the labels" in message
    assert not (tmp_path / "out" / "best").exists() and not (tmp_path / "out" / "checkpoint").exists()


# ----- runs that never lose work (issue 35) ------------------------------------------------------
def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder`, byte for byte."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def refusal(command, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as error:
        command(argv)
    message = str(error.value.code)  # a string exit code: Python prints it and exits with status 1
    assert "\n" not in message, message
    return message


def test_a_folder_holding_a_run_is_refused_unless_resumed_or_overwritten(
    models: dict[str, Path], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    main(finetune_argv(models, tmp_path, "--stop-after-steps", "2"))
    before = snapshot(tmp_path)
    assert "checkpoint/model.safetensors" in before and "best/model.safetensors" in before
    message = refusal(main, finetune_argv(models, tmp_path))
    assert message == (
        f"albert.finetune: {tmp_path} already holds an earlier run's checkpoint (step 2) and best model; "
        "continue it with --resume, replace it with --overwrite, or choose another --output-dir."
    )
    assert snapshot(tmp_path) == before  # nothing written, nothing removed
    with caplog.at_level(logging.WARNING, logger="albert.training"):
        main(finetune_argv(models, tmp_path, "--overwrite", "--stop-after-steps", "4"))
    assert f"--overwrite: removing the earlier run's checkpoint (step 2) and best model from {tmp_path}" in caplog.text
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows if r["split"] == "train"] == [2, 4]  # the new run's rows only
    assert torch.load(tmp_path / "checkpoint" / "training_state.pt", weights_only=True)["step"] == 4


@pytest.mark.slow
def test_a_pretraining_folder_is_refused_from_the_command_line_with_one_line(
    models: dict[str, Path], tmp_path: Path
) -> None:
    from albert.commands.pretrain import main as pretrain

    pretrain(pretrain_argv(models, tmp_path))  # the whole run: checkpoint and final model
    before = snapshot(tmp_path)
    process = subprocess.run(
        [sys.executable, "-m", "albert.pretrain", *pretrain_argv(models, tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert process.returncode == 1 and "Traceback" not in process.stderr
    assert process.stderr.strip().splitlines()[-1] == (
        f"albert.pretrain: {tmp_path} already holds an earlier run's checkpoint (step 4) and final model; "
        "continue it with --resume, replace it with --overwrite, or choose another --output-dir."
    )
    assert snapshot(tmp_path) == before


def killed_during_the_first_checkpoint(command, argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Run `argv` and kill it while its first checkpoint is being written (before its manifest)."""

    def killed(directory: Path) -> Path:
        raise KeyboardInterrupt("killed while writing the checkpoint")

    with monkeypatch.context() as patch:
        patch.setattr(training_state, "write_checksums", killed)
        with pytest.raises(KeyboardInterrupt):
            command(argv)


@pytest.mark.parametrize("command", ["pretrain", "finetune"])
def test_resume_or_start_starts_when_no_complete_checkpoint_and_resumes_when_there_is_one(
    models: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, command
) -> None:
    from albert.commands.pretrain import main as pretrain

    run, argv = (pretrain, pretrain_argv) if command == "pretrain" else (main, finetune_argv)
    killed_during_the_first_checkpoint(run, argv(models, tmp_path, "--stop-after-steps", "2"), monkeypatch)
    assert (tmp_path / "checkpoint.tmp").is_dir() and not (tmp_path / "checkpoint").exists()
    before = snapshot(tmp_path)
    message = refusal(run, argv(models, tmp_path, "--resume"))
    assert message == (
        f"albert.{command}: --resume: {tmp_path} holds only checkpoint.tmp, a checkpoint whose writing was cut short, "
        "so there is nothing to resume; run with --resume-or-start to start a new run there (it resumes instead "
        "whenever a complete checkpoint is there)."
    )
    assert snapshot(tmp_path) == before
    with caplog.at_level(logging.INFO, logger="albert.training"):
        run(argv(models, tmp_path, "--resume-or-start", "--stop-after-steps", "2"))  # starts
    assert f"--resume-or-start: no complete checkpoint in {tmp_path}, so a new run starts there" in caplog.text
    assert torch.load(tmp_path / "checkpoint" / "training_state.pt", weights_only=True)["step"] == 2
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="albert.training"):
        run(argv(models, tmp_path, "--resume-or-start", "--stop-after-steps", "4"))  # resumes
    assert f"resumed from {tmp_path / 'checkpoint'} at step 2" in caplog.text
    assert "no complete checkpoint" not in caplog.text
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows if r["split"] == "train"] == [2, 4]


def test_a_checkpoint_without_its_manifest_resumes_only_with_allow_unverified(
    models: dict[str, Path], tmp_path: Path
) -> None:
    main(finetune_argv(models, tmp_path, "--stop-after-steps", "2"))
    (tmp_path / "checkpoint" / CHECKSUMS_NAME).unlink()
    before = snapshot(tmp_path)
    message = refusal(main, finetune_argv(models, tmp_path, "--resume"))
    assert message.startswith(f"albert.finetune: {tmp_path / 'checkpoint'} has no {CHECKSUMS_NAME}")
    assert "--allow-unverified" in message
    assert snapshot(tmp_path) == before
    main(finetune_argv(models, tmp_path, "--resume", "--allow-unverified", "--stop-after-steps", "4"))
    assert torch.load(tmp_path / "checkpoint" / "training_state.pt", weights_only=True)["step"] == 4
    assert (tmp_path / "checkpoint" / CHECKSUMS_NAME).is_file()  # the new checkpoint has its manifest again


def test_a_flipped_byte_is_refused_on_resume_even_with_allow_unverified(
    models: dict[str, Path], tmp_path: Path
) -> None:
    main(finetune_argv(models, tmp_path, "--stop-after-steps", "2"))
    path = tmp_path / "checkpoint" / "model.safetensors"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    for extra in ((), ("--allow-unverified",)):
        message = refusal(main, finetune_argv(models, tmp_path, "--resume", *extra))
        assert f"{path} is damaged: its SHA-256 differs" in message


@pytest.mark.parametrize(
    "flags, fragment",
    [
        (("--overwrite", "--resume"), "give one"),
        (("--overwrite", "--resume-or-start"), "give one"),
        (("--resume", "--resume-or-start"), "not both"),
        (("--allow-unverified",), "only applies when resuming"),
    ],
)
def test_contradictory_run_flags_are_one_sentence(
    models: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture, flags: tuple[str, ...], fragment: str
) -> None:
    with pytest.raises(SystemExit) as error:
        main(finetune_argv(models, tmp_path / "out", *flags))
    assert error.value.code == 2  # argparse's usage error
    assert fragment in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


# ----- no silent NaN (issue 35) -------------------------------------------------------------------
def with_a_nan_weight(source: Path, target: Path) -> Path:
    """A copy of the model folder `source` whose word embeddings hold one NaN."""
    import shutil

    from safetensors import safe_open
    from safetensors.torch import save_file

    shutil.copytree(source, target)
    path = target / "model.safetensors"
    with safe_open(str(path), "pt") as stream:
        metadata, weights = stream.metadata(), {k: stream.get_tensor(k) for k in stream.keys()}  # noqa: SIM118
    name = next(k for k in weights if k.endswith("word_embeddings.weight"))
    weights[name][3, 1] = float("nan")
    save_file(weights, str(path), metadata=metadata)
    return target


def test_a_model_with_nan_weights_is_refused_by_both_commands(models: dict[str, Path], tmp_path: Path) -> None:
    from albert.commands.pretrain import main as pretrain

    broken = with_a_nan_weight(models["narrow"], tmp_path / "broken")
    message = refusal(main, finetune_argv({**models, "narrow": broken}, tmp_path / "finetuned"))
    assert message.startswith(f"albert.finetune: {broken / 'model.safetensors'}: ")
    assert "word_embeddings.weight holds 1 NaN or infinite values" in message
    assert "cannot give a meaningful answer" in message
    message = refusal(pretrain, pretrain_argv(models, tmp_path / "continued", init_from=broken))
    assert message.startswith(f"albert.pretrain: {broken / 'model.safetensors'}: ") and "NaN or infinite" in message
    assert not (tmp_path / "finetuned" / "checkpoint").exists() and not (tmp_path / "continued" / "checkpoint").exists()


def test_evaluation_with_non_finite_outputs_is_one_sentence_and_writes_no_metrics(
    models: dict[str, Path], tmp_path: Path
) -> None:
    from albert.data.tokenizer import load_tokenizer

    labels = {"id2label": {"0": "0", "1": "1"}, "label2id": {"0": 0, "1": 1}}  # the dev file's labels
    classifier = AlbertForSequenceClassification.from_pretrained(models["narrow"], num_labels=2, extra=labels)
    with torch.no_grad():  # finite weights whose logits overflow to infinity (as bf16 or a runaway weight can)
        classifier.albert.pooler.bias.fill_(10.0)  # every pooled value tanh(≈10) = 1 …
        classifier.classifier.weight.fill_(3e38)  # … so each logit sums 32 × 3e38: infinite
    classifier.save_pretrained(tmp_path / "overflows", tokenizer=load_tokenizer(models["narrow"]))
    argv = ["--eval-only", "--model", str(tmp_path / "overflows"), "--dev-file", str(models["dev"])]
    message = refusal(main, [*argv, "--output-dir", str(tmp_path / "out"), "--max-seq-length", "16"])
    assert message == (
        "albert.finetune: the model's outputs are NaN or infinite on examples 1-16 of 16, so no metrics were "
        "computed from them; check the model's weights (a run's last checkpoint stays as it was), or evaluate "
        "with --precision fp32 if it ran in bf16."
    )
    assert not (tmp_path / "out" / "eval_results.json").exists()


def test_held_out_pretraining_evaluation_refuses_non_finite_outputs() -> None:
    from albert import AlbertConfig, AlbertForPreTraining
    from albert.training.finetune_evaluation import NonFiniteOutputError
    from albert.training.pretraining_evaluation import evaluate

    torch.manual_seed(0)
    sizes = dict(embedding_size=16, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)
    model = AlbertForPreTraining(AlbertConfig(vocab_size=40, **sizes))
    ids = torch.randint(5, 40, (2, 8))
    batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids), "token_type_ids": torch.zeros_like(ids)}
    batch["mlm_labels"] = torch.where(torch.arange(8) % 3 == 0, ids, -100)
    assert evaluate(model, [batch], torch.device("cpu"), "fp32")["masked_positions"] == 6
    with torch.no_grad():
        model.albert.projection.weight.fill_(3e38)
    with pytest.raises(NonFiniteOutputError, match="on held-out batch 1 of 1, so no metrics were computed"):
        evaluate(model, [batch], torch.device("cpu"), "fp32")


# ----- command lines that name the wrong thing (issue 43) -----------------------------------------
def usage_error(command, argv: list[str], capsys: pytest.CaptureFixture) -> str:
    """The sentence of an argument error: exit code 2 (argparse's, as for every bad flag), before any work."""
    with pytest.raises(SystemExit) as error:
        command(argv)
    assert error.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()[-1].split(" error: ", 1)[1]


@pytest.mark.parametrize("command", ["pretrain", "finetune"])
def test_an_output_dir_that_is_a_file_is_an_argument_error(
    models: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture, command: str
) -> None:
    from albert.commands.pretrain import main as pretrain

    run, argv = (pretrain, pretrain_argv) if command == "pretrain" else (main, finetune_argv)
    taken = tmp_path / "notes.txt"
    taken.write_text("mine\n")
    assert usage_error(run, argv(models, taken), capsys) == (
        f"--output-dir {taken} is a file; give the path of a folder (a missing one is made)."
    )
    assert usage_error(run, argv(models, taken / "run"), capsys) == (
        f"--output-dir {taken / 'run'} lies under {taken}, which is a file; give the path of a folder (a missing one "
        "is made)."
    )
    if command == "pretrain":
        cached_in_a_file = pretrain_argv(models, tmp_path / "out", "--cache-dir", str(taken))
        assert usage_error(run, cached_in_a_file, capsys).startswith(f"--cache-dir {taken} is a file;")
    assert list(tmp_path.iterdir()) == [taken] and taken.read_text() == "mine\n"  # nothing made, nothing changed


def test_a_tokenizer_output_dir_that_is_a_file_is_an_argument_error(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """`python -m albert.tokenizer --output-dir <a file>` ended in Python's "[Errno 17] File exists" after training."""
    from albert.commands.tokenizer import main as tokenizer

    text = tmp_path / "text.txt"
    text.write_text("One sentence here.\n\nAnother one there.\n")
    taken = tmp_path / "notes.txt"
    taken.write_text("mine\n")
    assert usage_error(tokenizer, ["--files", str(text), "--output-dir", str(taken)], capsys) == (
        f"--output-dir {taken} is a file; give the path of a folder (a missing one is made)."
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "text.txt"] and taken.read_text() == "mine\n"


def test_a_new_run_never_appends_to_metrics_it_did_not_write(
    models: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A folder with a metrics.csv but no run in it (another program's, a run stopped before its first checkpoint)
    is refused; --overwrite replaces those files, and the new metrics.csv starts with its header."""
    from albert.commands.pretrain import main as pretrain

    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "metrics.csv").write_text("epoch,score\n1,0.5\n")
    before = snapshot(theirs)
    assert refusal(pretrain, pretrain_argv(models, theirs)) == (
        f"albert.pretrain: {theirs} already holds metrics.csv but no checkpoint to continue, so this run's rows "
        "would be mixed with rows it did not write; move it away, replace it with --overwrite, or choose another "
        "--output-dir."
    )
    assert snapshot(theirs) == before
    with caplog.at_level(logging.WARNING, logger="albert.training"):
        pretrain(pretrain_argv(models, theirs, "--overwrite", "--log-every", "2"))
    assert f"--overwrite: removing the earlier run's metrics.csv from {theirs}" in caplog.text
    lines = (theirs / "metrics.csv").read_text().splitlines()
    assert lines[0].startswith("step,tokens,split,loss,") and len(lines) == 3  # the header, then steps 2 and 4
    assert [json.loads(line)["step"] for line in (theirs / "metrics.jsonl").read_text().splitlines()] == [2, 4]

    stopped = tmp_path / "stopped"  # a run of ours, killed while writing its first checkpoint: its rows stay
    killed_during_the_first_checkpoint(pretrain, pretrain_argv(models, stopped, "--log-every", "2"), monkeypatch)
    before = snapshot(stopped)
    assert "metrics.jsonl" in before and "checkpoint/training_state.pt" not in before
    message = refusal(pretrain, pretrain_argv(models, stopped))
    assert "already holds metrics.jsonl and metrics.csv but no checkpoint" in message and "move them away" in message
    assert snapshot(stopped) == before


def test_vocab_size_beside_a_tokenizer_is_an_argument_error(
    models: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Refused whatever the size, even the tokenizer's own (40 here): the flag only sizes a tokenizer being trained."""
    from albert.commands.pretrain import PretrainConfig
    from albert.commands.pretrain import main as pretrain

    assert usage_error(pretrain, pretrain_argv(models, tmp_path / "out", "--vocab-size", "40"), capsys) == (
        "--vocab-size sizes the tokenizer trained on the corpus, but --tokenizer brings a tokenizer with its own "
        "vocabulary (the model takes its size); drop --vocab-size."
    )
    continued = pretrain_argv(models, tmp_path / "out", "--vocab-size", "8000", init_from=models["narrow"])
    assert "but --init-from brings a tokenizer with its own vocabulary" in usage_error(pretrain, continued, capsys)
    assert not (tmp_path / "out").exists()
    assert PretrainConfig(corpus=("books.txt",), vocab_size=8000).vocab_size == 8000  # no tokenizer: trained so
    assert PretrainConfig(corpus=("books.txt",)).vocab_size is None  # the default, 16000, when one is trained


@pytest.mark.parametrize("kind", ["folder", "runaway line"])
def test_a_corpus_folder_or_runaway_line_is_one_sentence_before_anything_is_tokenized(
    models: dict[str, Path], tmp_path: Path, kind: str
) -> None:
    from albert.commands.pretrain import main as pretrain
    from albert.data.corpus import MAX_LINE_CHARS

    if kind == "folder":
        corpus = tmp_path / "books"
        corpus.mkdir()
        (corpus / "one.txt").write_text("One book.\n")
        expected = (
            f"Corpus path {corpus} is a folder, not a file: give the text files in it (e.g. {corpus / '*.txt'} in a "
            "shell), each UTF-8 text, plain or compressed (.xz, .gz), or 'hf:NAME' for a Hugging Face dataset."
        )
    else:
        corpus = tmp_path / "one-line.txt"
        corpus.write_text("word " * (MAX_LINE_CHARS // 5) + "s\n")  # one line, one character past the bound
        expected = (
            f"{corpus}, line 1: the line is longer than 1,000,000 characters, the most one paragraph may hold; a "
            "corpus holds one paragraph a line and a blank line between documents."
        )
    argv = pretrain_argv(models, tmp_path / "out", "--cache-dir", str(tmp_path / "cache"))
    argv[argv.index("--corpus") + 1] = str(corpus)
    assert refusal(pretrain, argv) == f"albert.pretrain: {expected}"
    assert not [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]  # no tokenized corpus, whole or partial
