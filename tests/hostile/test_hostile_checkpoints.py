"""Checkpoints that prove their integrity: checksums verified on resume, a config mismatch, a crash
between the renames, a cut-short metrics line and a full disk each end in one sentence (issue 18)."""

from __future__ import annotations

import errno
import json
import logging
from pathlib import Path

import pytest
import torch

from albert import AlbertConfig, AlbertForPreTraining
from albert.commands.finetune import main
from albert.training import state as training
from albert.training.optim import OptimizerConfig, build_optimizer, build_scheduler
from albert.training.state import (
    CHECKSUMS_NAME,
    MetricsLog,
    TrainingStateError,
    resume_training_state,
    rng_state,
    save_training_state,
)
from tests.hostile.support import finetune_argv, pretrain_argv

CONFIG = dict(
    vocab_size=99,
    embedding_size=16,
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=4,
    intermediate_size=37,
    max_position_embeddings=64,
)


def trained(step: int, hidden_size: int = 32) -> tuple[torch.nn.Module, torch.optim.Optimizer, object]:
    """A tiny model after `step` optimizer steps (so its weights and Adam moments are not the initial ones)."""
    torch.manual_seed(0)
    model = AlbertForPreTraining(AlbertConfig(**{**CONFIG, "hidden_size": hidden_size}))
    optimizer = build_optimizer(model, OptimizerConfig(), torch.device("cpu"))
    scheduler = build_scheduler(optimizer, OptimizerConfig(), 10)
    ids = torch.randint(5, 99, (2, 8), generator=torch.Generator().manual_seed(1))
    for _ in range(step):
        model(ids, torch.ones_like(ids), torch.zeros_like(ids)).mlm_logits.square().mean().backward()
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
    return model, optimizer, scheduler


def save(directory: Path, step: int) -> torch.nn.Module:
    model, optimizer, scheduler = trained(step)
    save_training_state(
        directory,
        model,
        {"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(), "rng": rng_state(), "step": step},
    )
    return model


def resume(directory: Path, hidden_size: int = 32) -> tuple[dict, torch.nn.Module]:
    model, optimizer, scheduler = trained(0, hidden_size)
    return resume_training_state(directory, model, optimizer, scheduler), model


def same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True))


def test_every_file_has_a_checksum_and_a_round_trip_is_exact(tmp_path: Path) -> None:
    saved = save(tmp_path / "checkpoint", 3)
    listed = {line.split("  ", 1)[1] for line in (tmp_path / "checkpoint" / CHECKSUMS_NAME).read_text().splitlines()}
    assert {"model.safetensors", "config.json", training.STATE_NAME} <= listed
    state, model = resume(tmp_path / "checkpoint")
    assert state["step"] == 3 and same_weights(saved, model)


@pytest.mark.parametrize("name", ["model.safetensors", training.STATE_NAME, "config.json"])
def test_flipped_bytes_name_the_damaged_file(tmp_path: Path, name: str) -> None:
    save(tmp_path / "checkpoint", 2)
    path = tmp_path / "checkpoint" / name
    data = bytearray(path.read_bytes())
    middle = len(data) // 2 if name != "config.json" else data.index(b'"hidden_act"')
    data[middle : middle + 1] = bytes([data[middle] ^ 0x01])  # one bit: still a readable file
    path.write_bytes(bytes(data))
    with pytest.raises(TrainingStateError) as error:
        resume(tmp_path / "checkpoint")
    assert f"{path} is damaged: its SHA-256 differs" in str(error.value) and "--resume" in str(error.value)


def test_a_checkpoint_without_checksums_is_refused_unless_unverified_files_are_allowed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    saved = save(tmp_path / "checkpoint", 3)
    (tmp_path / "checkpoint" / CHECKSUMS_NAME).unlink()  # as the code before checksums wrote it, or deleted
    with pytest.raises(TrainingStateError) as error:
        resume(tmp_path / "checkpoint")
    message = str(error.value)
    assert f"has no {CHECKSUMS_NAME}" in message and "--allow-unverified" in message and "\n" not in message
    model, optimizer, scheduler = trained(0)
    with caplog.at_level(logging.WARNING, logger="albert.training"):
        state = resume_training_state(tmp_path / "checkpoint", model, optimizer, scheduler, allow_unverified=True)
    assert state["step"] == 3 and same_weights(saved, model)
    assert "carries no checksums" in caplog.text


def test_a_different_model_size_on_resume_is_one_sentence(tmp_path: Path) -> None:
    save(tmp_path / "checkpoint", 1)
    with pytest.raises(TrainingStateError) as error:
        resume(tmp_path / "checkpoint", hidden_size=48)
    message = str(error.value)
    assert "hidden_size 32 in the checkpoint but 48 now" in message and "\n" not in message


def test_command_line_resume_with_another_model_is_one_sentence(models: dict[str, Path], tmp_path: Path) -> None:
    main(finetune_argv(models, tmp_path, "--stop-after-steps", "2"))  # a clean stop: the checkpoint to resume
    with pytest.raises(SystemExit) as error:
        main(finetune_argv(models, tmp_path, "--resume", model="wide"))
    message = str(error.value.code)
    assert message.startswith("albert.finetune: ") and "hidden_size 32 in the checkpoint but 48 now" in message


def crash_at_second_rename(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kill the save between `checkpoint -> checkpoint.old` and `checkpoint.tmp -> checkpoint`."""
    rename = Path.rename

    def dying(self: Path, target: Path) -> Path:
        if self.name.endswith(".tmp"):
            raise KeyboardInterrupt("killed between the renames")
        return rename(self, target)

    monkeypatch.setattr(Path, "rename", dying)


@pytest.mark.parametrize("damage_tmp", [False, True])
def test_resume_recovers_from_old_and_tmp_left_between_renames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage_tmp: bool
) -> None:
    directory = tmp_path / "checkpoint"
    save(directory, 1)
    with monkeypatch.context() as patch:
        crash_at_second_rename(patch)
        with pytest.raises(KeyboardInterrupt):
            save(directory, 2)
    newer = trained(2)[0]
    assert not directory.exists() and (tmp_path / "checkpoint.old").is_dir() and (tmp_path / "checkpoint.tmp").is_dir()
    if damage_tmp:  # e.g. the disk lost part of it: the verified previous checkpoint is taken instead
        with (tmp_path / "checkpoint.tmp" / "model.safetensors").open("r+b") as stream:
            stream.seek(200)
            stream.write(b"\0" * 64)
    state, model = resume(directory)
    assert state["step"] == (1 if damage_tmp else 2)
    assert same_weights(model, trained(1)[0] if damage_tmp else newer)


def test_a_cut_short_metrics_line_is_dropped_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    log = MetricsLog(tmp_path)
    for step in (1, 2, 3):
        log.write({"step": step, "split": "train", "loss": 1.0 / step})
    with (tmp_path / "metrics.jsonl").open("a") as stream:
        stream.write('{"step": 4, "split": "tr')  # the process died in the middle of this write
    with caplog.at_level(logging.WARNING, logger="albert.training"):
        MetricsLog(tmp_path, truncate_after_step=3)
    assert f"{tmp_path / 'metrics.jsonl'}, line 4: dropped an unreadable metrics row" in caplog.text
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1, 2, 3]
    assert (tmp_path / "metrics.csv").read_text().count("\n") == 4  # header + 3 rows, rebuilt


def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """torch.save writes part of the state, then the disk is full."""

    def save_then_fail(state: object, path: Path) -> None:
        Path(path).write_bytes(b"partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(training.torch, "save", save_then_fail)


def test_a_full_disk_keeps_the_previous_checkpoint_current(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    directory = tmp_path / "checkpoint"
    save(directory, 1)
    before = {p.name: p.read_bytes() for p in directory.iterdir()}
    full_disk(monkeypatch)
    with pytest.raises(TrainingStateError) as error:
        save(directory, 2)
    message = str(error.value)
    assert "could not be written (the disk is full)" in message and f"{directory} is still the current one" in message
    assert {p.name: p.read_bytes() for p in directory.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint"]  # no checkpoint.tmp, no .old
    monkeypatch.undo()
    assert resume(directory)[0]["step"] == 1


def test_command_line_full_disk_is_one_sentence(
    models: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full_disk(monkeypatch)
    with pytest.raises(SystemExit) as error:
        main(finetune_argv(models, tmp_path))
    message = str(error.value.code)
    assert message.startswith("albert.finetune: ") and "the disk is full" in message and "\n" not in message
    assert not (tmp_path / "checkpoint").exists() and not (tmp_path / "checkpoint.tmp").exists()


def test_pretrain_resume_with_another_hidden_size_is_one_sentence(models: dict[str, Path], tmp_path: Path) -> None:
    from albert.commands.pretrain import main as pretrain

    pretrain(pretrain_argv(models, tmp_path / "run", "--stop-after-steps", "2"))
    assert (tmp_path / "run" / "checkpoint" / CHECKSUMS_NAME).is_file()
    with pytest.raises(SystemExit) as error:
        pretrain(pretrain_argv(models, tmp_path / "run", "--resume", hidden_size=48))
    message = str(error.value.code)
    assert message.startswith("albert.pretrain: ") and "hidden_size 32 in the checkpoint but 48 now" in message
    assert "\n" not in message


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads which file a descriptor is from /proc")
def test_every_file_and_folder_is_on_disk_before_the_checkpoint_is_renamed_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    events: list[tuple[str, str]] = []
    fsync, rename = os.fsync, Path.rename

    def recording_fsync(descriptor: int) -> None:
        events.append(("fsync", os.readlink(f"/proc/self/fd/{descriptor}")))
        fsync(descriptor)

    def recording_rename(self: Path, target: Path) -> Path:
        events.append(("rename", f"{self} -> {target}"))
        return rename(self, target)

    save(tmp_path / "checkpoint", 1)
    monkeypatch.setattr(os, "fsync", recording_fsync)
    monkeypatch.setattr(Path, "rename", recording_rename)
    save(tmp_path / "checkpoint", 2)  # the second save: the previous checkpoint is renamed away, then the new one in
    temp = str(tmp_path / "checkpoint.tmp")
    swap = events.index(("rename", f"{temp} -> {tmp_path / 'checkpoint'}"))
    synced_before = {path for kind, path in events[:swap] if kind == "fsync"}
    written = {str(p).replace(str(tmp_path / "checkpoint"), temp) for p in (tmp_path / "checkpoint").rglob("*")}
    assert written | {temp} <= synced_before, (written | {temp}) - synced_before
    assert ("fsync", str(tmp_path)) in events[swap:]  # the renames themselves reach the disk
