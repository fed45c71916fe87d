"""Atomic, durable file writes: a reader never sees a half-written file, whatever happens mid-write, and a
file that was renamed into place survives a power cut (its bytes and its directory entry are on disk)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def fsync_file(path: str | os.PathLike) -> None:
    """Flush a file's bytes to the disk (a rename alone may reach the disk before the data it names)."""
    with open(path, "rb") as stream:
        os.fsync(stream.fileno())


def fsync_directory(path: str | os.PathLike) -> None:
    """Flush a directory's entries (the names created or renamed in it) to the disk; a no-op where the
    system cannot open a directory (Windows), whose renames are journaled by the file system instead."""
    if os.name == "nt":
        return
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def fsync_tree(root: str | os.PathLike) -> None:
    """fsync every file under `root`, then every directory, deepest first, `root` last."""
    directories = []
    for folder, _, files in os.walk(root):
        directories.append(folder)
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                fsync_file(path)
    for folder in reversed(directories):
        fsync_directory(folder)


def atomic_write(path: str | os.PathLike, write: Callable[[Path], None]) -> Path:
    """Call `write(temp_path)` on a temporary file beside `path`, fsync it, rename it into place and fsync the
    directory, so that after a crash `path` holds either its previous content or the whole new one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    temp_path = Path(temp_name)
    try:
        write(temp_path)
        # mkstemp makes the file 0600; give the result the usual permissions (umask applied).
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp_path, 0o666 & ~umask)
        fsync_file(temp_path)  # the bytes first: a rename that reached the disk before them would name an empty file
        os.replace(temp_path, path)
    except BaseException:
        temp_path.unlink(missing_ok=True)
        raise
    fsync_directory(path.parent)  # the rename itself
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    return atomic_write(path, lambda temp: temp.write_text(text, encoding="utf-8"))
