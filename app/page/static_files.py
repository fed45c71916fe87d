"""Files the page loads from this server, under URLs that name no folder of the machine.

Gradio serves `gradio_api/file=<path>`; a path relative to the working directory resolves
there, so `app.py` runs from the repository root and the files the page needs (d3, jQuery, the
require stand-in, the sentiment model's card) are copied once into `cache/app-static/` (ignored
by git) and linked as `gradio_api/file=cache/app-static/<name>`: the page and `/config` never
show where Python, the packages or the models live. Files are copied byte for byte (`publish`); a page made here
(a model card rendered as HTML, `app.page.cards`) is written with `publish_text`. `portable_text` makes every
absolute path in a text relative: a card's build commands named the `--output-dir` of the machine that trained it
(issue 43).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
from pathlib import Path

logger = logging.getLogger(__name__)
REPO_ROOT = Path(__file__).resolve().parents[2]
SERVED_DIR = Path("cache") / "app-static"
"""Relative to the repository root (the server's working directory)."""


def publish(source: Path, name: str | None = None) -> str:
    """Copy `source` byte for byte into the served folder (once; again when it changed) and return its relative
    URL."""
    target_name = name or source.name
    try:
        _write(source.read_bytes(), target_name)
    except OSError as error:
        logger.warning("cannot copy %s into %s (%s); serving it from where it is", source.name, SERVED_DIR, error)
        return "gradio_api/file=" + str(source.resolve())
    return served_url(target_name)


def publish_text(text: str, name: str) -> str | None:
    """Write `text` (UTF-8) into the served folder as `name` (once; again when it changed) and return its relative
    URL; None, logged, when the folder cannot be written (there is no original to serve in its place)."""
    try:
        _write(text.encode("utf-8"), name)
    except OSError as error:
        logger.warning("cannot write %s into %s (%s)", name, SERVED_DIR, error)
        return None
    return served_url(name)


def served_url(name: str) -> str:
    """The URL, relative to the page, of the published file `name`."""
    return f"gradio_api/file={SERVED_DIR.as_posix()}/{name}"


def _write(content: bytes, name: str) -> None:
    target = REPO_ROOT / SERVED_DIR / name
    if target.is_file() and target.stat().st_size == len(content) and target.read_bytes() == content:
        return  # unchanged: not written again
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(content)
        os.replace(temp, target)  # atomic: a second process never serves half a file
    except OSError:
        Path(temp).unlink(missing_ok=True)
        raise


ABSOLUTE_PATH = re.compile(r"(?<![\w.:/~-])(?:[A-Za-z]:\\|/)(?:[\w.+@-]+[/\\])+[\w.+@-]*")
"""An absolute POSIX or Windows path of at least one folder, not part of a URL or of a relative path."""


def portable_text(text: str) -> str:
    """`text` with each absolute path made relative: to the repository when it lies inside it (the repository's
    runs/sst2 → `runs/sst2`), else to its last folder (a models/x folder elsewhere → `models/x`)."""
    root = REPO_ROOT.as_posix().rstrip("/") + "/"

    def relative(match: re.Match[str]) -> str:
        path = match.group(0).replace("\\", "/")
        if path.startswith(root):
            return path[len(root) :] or "."
        parts = [part for part in path.split("/") if part and not part.endswith(":")]
        return "/".join(parts[-2:])

    return ABSOLUTE_PATH.sub(relative, text)


def served_path(name: str) -> str:
    """The absolute path of a published file, for `launch(allowed_paths=…)` (the server side only)."""
    return str(REPO_ROOT / SERVED_DIR / name)


def unique_name(source: Path, suffix: str) -> str:
    """A stable name for a file that may come from several places (e.g. the card of the chosen sentiment model)."""
    digest = hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:12]
    return f"{source.stem}-{digest}{suffix}"
