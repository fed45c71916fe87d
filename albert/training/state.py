"""The files a training run keeps: atomic, verified, resumable checkpoints and the metrics log.

A training checkpoint is a `from_pretrained` directory plus `training_state.pt` and
`checksums.sha256` (the SHA-256 of every other file, in `sha256sum -c` format), written last, so
a checkpoint with a manifest is complete. Resume verifies it and names a damaged file; one
written before checksums existed resumes with a warning. A crash between the two renames of
`replace_directory` leaves `checkpoint.old` and `checkpoint.tmp`: resume takes the newer one
that is complete and verified. A full disk (any OSError while writing) removes the partial
`.tmp` and keeps the previous checkpoint current.
"""

from __future__ import annotations

import csv
import dataclasses
import errno
import hashlib
import json
import logging
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch
from torch import nn

from albert.io import atomic_write
from albert.training.distributed import unwrap

logger = logging.getLogger(__name__)
STATE_NAME = "training_state.pt"
CHECKSUMS_NAME = "checksums.sha256"


class TrainingStateError(ValueError):
    """A checkpoint that cannot be written, verified or resumed; the message names the file and what to do.

    A ValueError so that every command's `run_command` reports it as one sentence."""


class MetricsLog:
    """Appends metric rows to `metrics.jsonl` and `metrics.csv` (rank 0 only)."""

    COLUMNS = (
        "step",
        "tokens",
        "split",
        "loss",
        "mlm_loss",
        "sop_loss",
        "mlm_accuracy",
        "sop_accuracy",
        "nsp_accuracy",
        "accuracy",
        "lr",
        "tokens_per_second",
        "grad_norm",
        "order_accuracy",
        "topic_accuracy",
        "elapsed_seconds",
    )

    def __init__(
        self,
        directory: Path,
        enabled: bool = True,
        truncate_after_step: int | None = None,
        columns: Sequence[str] = COLUMNS,
    ):
        self.jsonl, self.csv = directory / "metrics.jsonl", directory / "metrics.csv"
        self.enabled, self.columns = enabled, tuple(columns)
        if enabled and truncate_after_step is not None:
            self._truncate(truncate_after_step)

    def _truncate(self, step: int) -> None:
        """On resume, drop rows written after the checkpoint (they will be written again)."""
        if not self.jsonl.exists():
            return
        rows = []
        for number, line in enumerate(self.jsonl.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            try:
                row = json.loads(line) if line.strip() else None
            except json.JSONDecodeError:
                row = "unreadable"
            if isinstance(row, dict):
                rows.append(row)
            elif row is not None:  # a crash in the middle of a write leaves a partial last line
                logger.warning(
                    "%s, line %d: dropped an unreadable metrics row (a write cut short?): %.60r",
                    self.jsonl,
                    number,
                    line,
                )
        kept = [row for row in rows if row.get("step", 0) <= step]
        atomic_write(self.jsonl, lambda temp: temp.write_text("".join(json.dumps(r) + "\n" for r in kept)))
        self.csv.unlink(missing_ok=True)
        for row in kept:
            self._append_csv(row)

    def _append_csv(self, row: dict[str, Any]) -> None:
        new = not self.csv.exists()
        with self.csv.open("a", newline="") as stream:
            writer = csv.DictWriter(stream, fieldnames=self.columns, extrasaction="ignore")
            if new:
                writer.writeheader()
            writer.writerow(row)

    def write(self, row: dict[str, Any]) -> None:
        if not self.enabled:
            return
        row = {k: (round(v, 6) if isinstance(v, float) else v) for k, v in row.items()}
        try:
            with self.jsonl.open("a") as stream:
                stream.write(json.dumps(row) + "\n")
            self._append_csv(row)
        except OSError as error:
            reason = "the disk is full" if error.errno == errno.ENOSPC else (error.strerror or str(error))
            raise TrainingStateError(
                f"{self.jsonl} could not be appended to ({reason}); the last checkpoint is "
                "kept, so free some space and run again with --resume."
            ) from error


def replace_directory(directory: Path, write: Callable[[Path], None]) -> Path:
    """Build a directory beside `directory` with `write(temp)`, then swap it in: a kill at any
    moment leaves either the previous directory or the new one, never a half-written one.

    An OSError while writing (a full disk, a permission) removes the partial `.tmp`, leaves the
    previous directory current and is raised as one `TrainingStateError` sentence."""
    temp = directory.with_name(directory.name + ".tmp")
    old = directory.with_name(directory.name + ".old")
    shutil.rmtree(temp, ignore_errors=True)
    try:
        write(temp)
    except OSError as error:
        shutil.rmtree(temp, ignore_errors=True)
        reason = "the disk is full" if error.errno == errno.ENOSPC else (error.strerror or str(error))
        kept = f"{directory} is still the current one" if directory.exists() else "none was kept"
        raise TrainingStateError(
            f"{directory} could not be written ({reason}); the partial copy was removed and "
            f"{kept}; free some space (or fix the cause) and run again (a training run "
            "continues from its checkpoint with --resume)."
        ) from error
    if directory.exists():
        shutil.rmtree(old, ignore_errors=True)
        directory.rename(old)
    temp.rename(directory)
    shutil.rmtree(old, ignore_errors=True)
    return directory


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def write_checksums(directory: Path) -> Path:
    """`checksums.sha256` for every file under `directory` (`sha256sum -c checksums.sha256` checks it)."""
    files = sorted(p for p in directory.rglob("*") if p.is_file() and p.name != CHECKSUMS_NAME)
    lines = "".join(f"{file_sha256(p)}  {p.relative_to(directory).as_posix()}\n" for p in files)
    path = directory / CHECKSUMS_NAME
    path.write_text(lines, encoding="utf-8")
    return path


def verify_checksums(directory: Path) -> bool:
    """True when every file listed in `directory`'s manifest has its recorded SHA-256; False (and a
    warning) when there is no manifest; a damaged or missing file raises `TrainingStateError`."""
    manifest = directory / CHECKSUMS_NAME
    if not manifest.is_file():
        logger.warning(
            "%s carries no checksums (written before ALBERT Lab recorded them): resuming without verifying its files",
            directory,
        )
        return False
    for number, line in enumerate(manifest.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        expected, _, name = line.partition("  ")
        if len(expected) != 64 or not name or Path(name).is_absolute() or ".." in Path(name).parts:
            raise TrainingStateError(
                f"{manifest}, line {number} is not a 'sha256  file' line: the checksum "
                "manifest is damaged, so the checkpoint cannot be trusted; start again without "
                "--resume or restore the checkpoint from a copy."
            )
        path = directory / name
        if not path.is_file():
            raise TrainingStateError(
                f"{path} is missing from the checkpoint (listed in {CHECKSUMS_NAME}); restore "
                "it from a copy or start again without --resume."
            )
        if file_sha256(path) != expected:
            raise TrainingStateError(
                f"{path} is damaged: its SHA-256 differs from the one recorded when the "
                "checkpoint was written; restore it from a copy or start again without --resume."
            )
    return True


def save_training_state(directory: Path, model: nn.Module, state: dict[str, Any], tokenizer: Any = None) -> None:
    """Write `directory` (model + optimizer/scheduler/RNG/data position + checksums) atomically."""

    def write(temp: Path) -> None:
        unwrap(model).save_pretrained(temp, tokenizer=tokenizer)
        torch.save(state, temp / STATE_NAME)
        write_checksums(temp)  # last: a directory with a manifest is complete

    replace_directory(directory, write)


def load_training_state(directory: Path) -> dict[str, Any]:
    path = directory / STATE_NAME
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:
        raise ValueError(f"{path} could not be read as a training state ({type(error).__name__}: {error}).") from error


def _complete(candidate: Path) -> bool:
    """A leftover `.tmp`/`.old` that is a whole checkpoint: its files match its manifest."""
    if not (candidate / STATE_NAME).is_file() or not (candidate / CHECKSUMS_NAME).is_file():
        return False
    try:
        return verify_checksums(candidate)
    except TrainingStateError as error:
        logger.warning("%s", error)
        return False


def recover_checkpoint(directory: Path) -> None:
    """After a crash between the two renames of `replace_directory` there is no `directory`, only
    `.old` (the previous checkpoint) and `.tmp` (the new one): move the newest complete one back."""
    if directory.exists():
        return
    temp = directory.with_name(directory.name + ".tmp")
    old = directory.with_name(directory.name + ".old")
    # `.tmp` is only whole when it has a manifest; a `.old` was a complete checkpoint when it was
    # renamed (replace_directory renames only after writing), with or without a manifest.
    checks: tuple[tuple[Path, Callable[[], bool]], ...] = (
        (temp, lambda: _complete(temp)),
        (old, lambda: (old / STATE_NAME).is_file() and (not (old / CHECKSUMS_NAME).exists() or _complete(old))),
    )
    for candidate, whole in checks:
        if whole():
            candidate.rename(directory)
            logger.warning("%s was missing (a crash between renames?): recovered it from %s", directory, candidate)
            return


def _config_differences(saved: Any, current: Any) -> str:
    if not (dataclasses.is_dataclass(saved) and dataclasses.is_dataclass(current)):
        return ""
    pairs = [
        (f.name, getattr(saved, f.name), getattr(current, f.name))
        for f in dataclasses.fields(saved)
        if f.name != "extra" and hasattr(current, f.name)
    ]
    return ", ".join(f"{name} {a} in the checkpoint but {b} now" for name, a, b in pairs if a != b)


def resume_training_state(
    directory: Path, model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: torch.optim.lr_scheduler.LRScheduler
) -> dict[str, Any]:
    """Restore weights, optimizer, schedule and RNG from a checkpoint written by
    `save_training_state` (verified against its checksums); returns the rest of its state
    (step, data position, …)."""
    recover_checkpoint(directory)
    if not (directory / STATE_NAME).exists():
        raise FileNotFoundError(f"--resume: no checkpoint in {directory}.")
    verify_checksums(directory)
    state = load_training_state(directory)
    saved = type(model).from_pretrained(directory)
    try:
        model.load_state_dict(saved.state_dict())
        optimizer.load_state_dict(state["optimizer"])
    except (RuntimeError, ValueError, KeyError) as error:
        differences = _config_differences(saved.config, getattr(model, "config", None))
        reason = differences or str(error).strip().splitlines()[0][:200]
        raise TrainingStateError(
            f"{directory} was written by a different model or optimizer setup ({reason}); "
            "resume with the options the run was started with, or start a new --output-dir."
        ) from None
    scheduler.load_state_dict(state["scheduler"])
    restore_rng_state(state["rng"])
    logger.info("resumed from %s at step %d", directory, state["step"])
    return state


def rng_state() -> dict[str, Any]:
    state = {"torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng_state(state: dict[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
