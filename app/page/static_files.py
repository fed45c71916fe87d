"""Files the page loads from this server, under URLs that name no folder of the machine.

Gradio serves `gradio_api/file=<path>`; a path relative to the working directory resolves
there, so `app.py` runs from the repository root and the files the page needs (d3, jQuery, the
require stand-in, the sentiment model's card) are copied once into `cache/app-static/` (ignored
by git) and linked as `gradio_api/file=cache/app-static/<name>`: the page and `/config` never
show where Python, the packages or the models live.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
from pathlib import Path

logger = logging.getLogger(__name__)
REPO_ROOT = Path(__file__).resolve().parents[2]
SERVED_DIR = Path("cache") / "app-static"
"""Relative to the repository root (the server's working directory)."""


def publish(source: Path, name: str | None = None) -> str:
    """Copy `source` into the served folder (once; again when it changed) and return its relative URL."""
    target_name = name or source.name
    target = REPO_ROOT / SERVED_DIR / target_name
    try:
        if (
            not target.is_file()
            or target.stat().st_size != source.stat().st_size
            or target.read_bytes() != source.read_bytes()
        ):
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            os.close(handle)
            shutil.copyfile(source, temp)
            os.replace(temp, target)  # atomic: a second process never serves half a file
    except OSError as error:
        logger.warning("cannot copy %s into %s (%s); serving it from where it is", source.name, SERVED_DIR, error)
        return "gradio_api/file=" + str(source.resolve())
    return f"gradio_api/file={SERVED_DIR.as_posix()}/{target_name}"


def served_path(name: str) -> str:
    """The absolute path of a published file, for `launch(allowed_paths=…)` (the server side only)."""
    return str(REPO_ROOT / SERVED_DIR / name)


def unique_name(source: Path, suffix: str) -> str:
    """A stable name for a file that may come from several places (e.g. the card of the chosen sentiment model)."""
    digest = hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:12]
    return f"{source.stem}-{digest}{suffix}"
