"""What the repository holds travels: no file names a path of the machine it was made on, and no installer rides along.

A model card's build command, a metrics.json, a script or a page that says `/work/runs/x`, `/tmp/x` or `/home/x`
works on one machine only (issue 41 found 9 such files and a 2.9 MB py-spy wheel at the root). tests/ may name
such paths (its fixtures build them on purpose); everything else writes relative paths (`runs/...`, `../shared`).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MACHINE_PATH = re.compile(r"(?<![\w./:~-])(/work/|/tmp/[\w.-]|/home/[\w.-])")
"""An absolute path of this kind of machine: the workspace, a temporary folder, a home folder (not a URL's path)."""
INSTALLERS = (".whl", ".egg", ".deb", ".rpm")


def tracked_files() -> list[Path]:
    """The files git tracks (every file under the root when this is not a git checkout), outside tests/."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout.decode("utf-8")
        files = [ROOT / name for name in listed.split("\0") if name]
    except (OSError, subprocess.SubprocessError):
        skipped = {".git", "runs", "cache", ".venv"}
        files = [p for p in ROOT.rglob("*") if p.is_file() and not skipped & set(p.relative_to(ROOT).parts)]
    return [p for p in files if p.relative_to(ROOT).parts[0] != "tests" and p.is_file()]


def machine_paths(text: str) -> list[str]:
    """The lines of `text` that name a machine path."""
    return [line.strip()[:160] for line in text.splitlines() if MACHINE_PATH.search(line)]


def test_the_scan_finds_machine_paths_and_leaves_urls_and_relative_paths() -> None:
    found = machine_paths(
        "--output-dir /work/runs/x\n  cd /tmp/before\nsee /home/ann/notes\n"
        "https://example.org/work/tmp/a\nruns/work/x\n../shared/glue runs\n~/tmp/x\n"
    )
    assert found == ["--output-dir /work/runs/x", "cd /tmp/before", "see /home/ann/notes"]


def test_no_tracked_file_outside_tests_names_a_machine_path() -> None:
    offenders = {}
    for path in tracked_files():
        data = path.read_bytes()
        if b"\0" in data[:8192]:  # a binary file (weights, pictures): no text to read
            continue
        lines = machine_paths(data.decode("utf-8", errors="replace"))
        if lines:
            offenders[str(path.relative_to(ROOT))] = lines[:3]
    assert offenders == {}


def test_no_installer_is_tracked() -> None:
    assert [str(p.relative_to(ROOT)) for p in tracked_files() if p.name.endswith(INSTALLERS)] == []
