"""The files a training run keeps: atomic, verified, resumable checkpoints and the metrics log.

A training checkpoint is a `from_pretrained` directory plus `training_state.pt` and
`checksums.sha256` (the SHA-256 of every other file, in `sha256sum -c` format), written last, so
a checkpoint with a manifest is complete. Every file and the directory are fsynced before it is
renamed into place. Resume verifies it and names a damaged file; one without a manifest (written
before checksums existed, or with it deleted) is refused unless the run allows unverified files.
A crash between the two renames of `replace_directory` leaves `checkpoint.old` and
`checkpoint.tmp`: resume takes the newer one that is complete and verified. A full disk (any
OSError while writing) removes the partial `.tmp` and keeps the previous checkpoint current.

`claim_output_dir` decides, before a run writes anything, whether it resumes, starts, or is refused
because its output folder holds an earlier run's work (`earlier_work`) or metrics files that a new run's rows
would be mixed into; `check_output_folder` refuses, when the command line is read, a path where no folder can be.
"""

from __future__ import annotations

import csv
import dataclasses
import errno
import hashlib
import json
import logging
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch
from torch import nn

from albert.io import atomic_write, fsync_directory, fsync_tree
from albert.training.distributed import unwrap

logger = logging.getLogger(__name__)
STATE_NAME = "training_state.pt"
CHECKSUMS_NAME = "checksums.sha256"


class TrainingStateError(ValueError):
    """A checkpoint that cannot be written, verified or resumed; the message names the file and what to do.

    A ValueError so that every command's `run_command` reports it as one sentence."""


class MetricsLog:
    """Appends metric rows to `metrics.jsonl` and `metrics.csv` (rank 0 only)."""

    FILES = ("metrics.jsonl", "metrics.csv")
    """A new run starts them afresh (`claim_output_dir`); a resumed run keeps their rows up to its checkpoint."""
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
        "order_accuracy",
        "topic_accuracy",
        "accuracy",
        "lr",
        "tokens_per_second",
        "grad_norm",
        "elapsed_seconds",
    )

    def __init__(
        self,
        directory: Path,
        enabled: bool = True,
        truncate_after_step: int | None = None,
        columns: Sequence[str] = COLUMNS,
    ):
        self.jsonl, self.csv = (directory / name for name in self.FILES)
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
        new = not self.csv.exists() or self.csv.stat().st_size == 0  # an empty file gets its header too
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
    # Every byte and name of the new copy on the disk before it is renamed in: after a power cut the rename
    # must not name files whose data never reached the disk.
    fsync_tree(temp)
    if directory.exists():
        shutil.rmtree(old, ignore_errors=True)
        directory.rename(old)
    temp.rename(directory)
    fsync_directory(directory.parent)  # the renames themselves
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


def verify_checksums(directory: Path, allow_unverified: bool = False) -> bool:
    """True when every file listed in `directory`'s manifest has its recorded SHA-256; a damaged or missing file
    raises `TrainingStateError`. Without a manifest: `TrainingStateError`, or, when `allow_unverified`, False and
    a warning (a checkpoint written before ALBERT Lab recorded checksums)."""
    manifest = directory / CHECKSUMS_NAME
    if not manifest.is_file():
        if not allow_unverified:
            raise TrainingStateError(
                f"{directory} has no {CHECKSUMS_NAME}, so its files cannot be checked against what was written "
                "(a damaged byte would go unnoticed); restore the manifest from a copy, or resume without "
                "checking with --allow-unverified if you trust these files."
            )
        logger.warning("%s carries no checksums: resuming without verifying its files (--allow-unverified)", directory)
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
    directory: Path,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    scheduler: torch.optim.lr_scheduler.LRScheduler,
    allow_unverified: bool = False,
) -> dict[str, Any]:
    """Restore weights, optimizer, schedule and RNG from a checkpoint written by
    `save_training_state` (verified against its checksums; one without them only when
    `allow_unverified`); returns the rest of its state (step, data position, …)."""
    recover_checkpoint(directory)
    if not (directory / STATE_NAME).exists():
        raise TrainingStateError(
            f"{directory} holds no {STATE_NAME}, so it cannot be resumed; restore it from a copy, or start "
            "a new run with --overwrite."
        )
    verify_checksums(directory, allow_unverified)
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


# ----- the output folder: resume, start, or refuse ----------------------------------------------
RUN_PRODUCTS = ("checkpoint", "final", "best")
"""What a run leaves in its output folder that a new run would replace: the resumable checkpoint, pretraining's
final model and fine-tuning's best one."""


def check_output_folder(path: str | os.PathLike, flag: str = "--output-dir") -> None:
    """Refuse, with one sentence (ValueError), a folder path where no folder can be made: it names an existing file,
    or lies under one. A missing folder is fine (the run makes it)."""
    path = Path(path)
    for candidate in (path, *path.parents):
        if candidate.is_dir():
            return
        if candidate.exists() or candidate.is_symlink():  # a file, a device, a broken link: no folder there
            what = "a file" if candidate.is_file() else "not a folder"
            where = f"{path} is {what}" if candidate == path else f"{path} lies under {candidate}, which is {what}"
            raise ValueError(f"{flag} {where}; give the path of a folder (a missing one is made).")


def _leftovers(checkpoint: Path) -> tuple[Path, Path]:
    return checkpoint.with_name(checkpoint.name + ".old"), checkpoint.with_name(checkpoint.name + ".tmp")


def checkpoint_found(checkpoint: Path) -> bool:
    """Whether there is a checkpoint to resume: `checkpoint` itself, or what a crash between the renames of
    `replace_directory` leaves of one (`.old`, or a `.tmp` written to its manifest). A `.tmp` without its
    manifest is a write cut short, not a checkpoint."""
    old, temp = _leftovers(checkpoint)
    return (
        checkpoint.is_dir()
        or (old / STATE_NAME).is_file()
        or ((temp / STATE_NAME).is_file() and (temp / CHECKSUMS_NAME).is_file())
    )


def earlier_work(out: Path) -> list[Path]:
    """The products of an earlier run in `out` (`RUN_PRODUCTS` and the checkpoint's crash leftovers)."""
    checkpoint = out / "checkpoint"
    found = [out / name for name in RUN_PRODUCTS if (out / name).exists()]
    found += [p for p in _leftovers(checkpoint) if p.exists()]
    return found


def _describe(out: Path, paths: list[Path]) -> str:
    """'checkpoint (step 40) and final model' for a message or a log line."""
    names = {"checkpoint": "checkpoint", "final": "final model", "best": "best model"}
    parts = []
    for path in paths:
        if path.name not in names:
            continue
        part = names[path.name]
        if path.name == "checkpoint":
            step = checkpoint_step(path)
            part += f" (step {step})" if step is not None else ""
        parts.append(part)
    if not parts:  # only crash leftovers
        return ", ".join(p.name for p in paths)
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def checkpoint_step(checkpoint: Path) -> int | None:
    """The step a checkpoint was written at, read without loading its tensors (None when unreadable)."""
    try:
        state = torch.load(checkpoint / STATE_NAME, map_location="cpu", weights_only=True, mmap=True)
        return int(state["step"])
    except Exception:  # a damaged or foreign file: the step is only informative here
        return None


def claim_output_dir(out: Path, resume: bool, resume_or_start: bool, overwrite: bool) -> tuple[bool, list[Path]]:
    """Before a run writes anything: (whether it resumes, the earlier products it replaces when it starts).

    A folder holding an earlier run's checkpoint or final/best model is refused (`TrainingStateError`, one
    sentence) unless the run resumes it or `overwrite` replaces it; `resume` with no complete checkpoint is
    refused too, naming `--resume-or-start`, which resumes when a checkpoint is there and starts when none is.
    A new run in a folder that holds metrics files but no checkpoint (a run stopped before its first one, or
    another program's `metrics.csv`) is refused as well: its rows would be appended to rows it did not write.
    What a new run replaces (with `overwrite`, or `resume_or_start` finding no checkpoint) includes those files."""
    checkpoint = out / "checkpoint"
    earlier = earlier_work(out)
    metrics = [out / name for name in MetricsLog.FILES if (out / name).exists()]
    if overwrite:
        return False, earlier + metrics
    if resume or resume_or_start:
        recover_checkpoint(checkpoint)  # a crash between the renames: the checkpoint is moved back first
        if checkpoint_found(checkpoint):
            return True, []
        if resume:
            _, temp = _leftovers(checkpoint)
            why = (
                f"only {temp.name}, a checkpoint whose writing was cut short"
                if temp.exists()
                else "no checkpoint"
                if out.is_dir()
                else "nothing: the folder does not exist"
            )
            raise TrainingStateError(
                f"--resume: {out} holds {why}, so there is nothing to resume; run with --resume-or-start to "
                "start a new run there (it resumes instead whenever a complete checkpoint is there)."
            )
        return False, earlier + metrics
    if checkpoint_found(checkpoint) or any(p.name in ("final", "best") for p in earlier):
        raise TrainingStateError(
            f"{out} already holds an earlier run's {_describe(out, earlier)}; continue it with --resume, "
            "replace it with --overwrite, or choose another --output-dir."
        )
    if metrics:
        names, them = " and ".join(p.name for p in metrics), "it" if len(metrics) == 1 else "them"
        raise TrainingStateError(
            f"{out} already holds {names} but no checkpoint to continue, so this run's rows would be mixed with "
            f"rows it did not write; move {them} away, replace {them} with --overwrite, or choose another --output-dir."
        )
    return False, []  # at most a checkpoint write cut short, which the first checkpoint replaces


def replace_earlier_work(out: Path, earlier: list[Path], reason: str) -> None:
    """Remove the earlier run's products a new run replaces (`claim_output_dir`), saying in the log what goes."""
    earlier = [path for path in earlier if path.exists()]
    if not earlier:
        return
    logger.warning(
        "%s: removing the earlier run's %s from %s; this run starts at step 1", reason, _describe(out, earlier), out
    )
    for path in earlier:
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
