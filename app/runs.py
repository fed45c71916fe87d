"""Recorded training curves of the ablation runs (`assets/runs/*.csv`) and their final metrics.

The folder can be moved with `ALBERT_LAB_RUNS` (tests use their own). Missing or malformed
files are skipped with a log line: the tab then says there are no recorded runs yet.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pandas as pd

from app.models import REPO_ROOT

logger = logging.getLogger(__name__)
RUNS_ENV = "ALBERT_LAB_RUNS"
CURVE_COLUMNS = ("step", "tokens", "split", "loss", "mlm_loss", "sop_loss", "mlm_accuracy", "sop_accuracy", "lr")
SUMMARY_COLUMNS = ("run", "sharing", "objective", "parameters", "tokens", "mlm_accuracy", "sop_accuracy",
                   "nsp_accuracy")


def runs_dir() -> Path:
    override = os.environ.get(RUNS_ENV, "").strip()
    return Path(override) if override else REPO_ROOT / "assets" / "runs"


def load_curves(directory: Path | None = None) -> dict[str, pd.DataFrame]:
    """Run name → its recorded curve (every `<run>.csv` except summary.csv)."""
    root = directory or runs_dir()
    curves: dict[str, pd.DataFrame] = {}
    for path in sorted(root.glob("*.csv")) if root.is_dir() else []:
        if path.name == "summary.csv":
            continue
        try:
            frame = pd.read_csv(path)
        except (OSError, ValueError) as error:
            logger.warning("skipping %s: %s", path, error)
            continue
        if "tokens" in frame:
            curves[path.stem] = frame
    return curves


def load_summary(directory: Path | None = None) -> pd.DataFrame | None:
    """summary.csv (one row per run, final held-out metrics), or None."""
    path = (directory or runs_dir()) / "summary.csv"
    if not path.is_file():
        return None
    try:
        frame = pd.read_csv(path)
    except (OSError, ValueError) as error:
        logger.warning("skipping %s: %s", path, error)
        return None
    return frame if "run" in frame else None
