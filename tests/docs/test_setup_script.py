"""scripts/lab.sh, README's two commands, on the machines a newcomer has: what it would run (LAB_PLAN=1 prints each
step) on a fresh Debian as root (no sudo there), as a user with sudo, on Debian 12's externally managed Python, inside
a virtual environment, and on CI's machine, with stand-ins for `id`, `sudo`, `python3`, `chromium` and `fc-list`
on PATH."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "lab.sh"
FAKE_PYTHON = """#!/bin/sh
# A stand-in python3: FAKE_OLD, FAKE_EXTERNAL, FAKE_NO_PIP, FAKE_NO_VENV say what this machine's Python lacks.
case "$*" in
  *"version_info < (3, 10)"*) [ -z "$FAKE_OLD" ] ;;
  *EXTERNALLY-MANAGED*) [ -n "$FAKE_EXTERNAL" ] ;;
  *"-m pip --version"*) [ -z "$FAKE_NO_PIP" ] ;;
  *"import ensurepip, venv"*) [ -z "$FAKE_NO_VENV" ] ;;
  *) exit 0 ;;
esac
"""
INSTALL_TEST = "-m pip install -q -r requirements.txt -r requirements-dev.txt"


def _tool(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def plan(
    tmp_path: Path,
    mode: str = "test",
    uid: int = 0,
    tools: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    *args: str,
) -> subprocess.CompletedProcess:
    """Run a copy of scripts/lab.sh with LAB_PLAN=1 and a PATH of stand-ins only (`tools`: which of sudo, python3 and
    chromium this machine has; `id -u` says `uid`)."""
    project = tmp_path / "project"
    (project / "scripts").mkdir(parents=True, exist_ok=True)
    shutil.copy(SCRIPT, project / "scripts" / "lab.sh")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    _tool(bin_dir, "id", f'#!/bin/sh\n[ "$1" = -u ] && echo {uid} || echo uid={uid}\n')
    _tool(bin_dir, "dirname", f'#!/bin/sh\nexec {shutil.which("dirname")} "$@"\n')
    for name in tools:
        body = FAKE_PYTHON if name == "python3" else '#!/bin/sh\nexec "$@"\n'
        fonts = {"fc-list": "#!/bin/sh\necho 'Noto Sans CJK SC'\n", "fc-match": "#!/bin/sh\necho 'Liberation Sans'\n"}
        _tool(bin_dir, name, fonts.get(name, body))
    full = {"PATH": str(bin_dir), "LAB_PLAN": "1", "HOME": str(tmp_path), **(env or {})}
    return subprocess.run(
        [shutil.which("bash") or "/bin/bash", str(project / "scripts" / "lab.sh"), mode, *args],
        env=full,
        capture_output=True,
        text=True,
        timeout=60,
    )


def steps(result: subprocess.CompletedProcess) -> list[str]:
    assert result.returncode == 0, result.stderr
    return [line.removeprefix("+ ") for line in result.stdout.splitlines()]


def test_a_fresh_debian_as_root_installs_python_and_chromium_without_sudo(tmp_path: Path) -> None:
    assert steps(plan(tmp_path, uid=0)) == [
        "apt-get update -qq",
        "apt-get install -y -qq --no-install-recommends python3 python3-venv chromium fonts-noto-cjk fonts-liberation",
        "python3 -m venv .venv",
        f".venv/bin/python {INSTALL_TEST}",
        ".venv/bin/python -m ruff check .",
        ".venv/bin/python -m ruff format --check .",
        ".venv/bin/python -m pytest -n 3 --dist loadfile",
    ]


def test_a_user_with_sudo_on_debian_12_gets_a_virtual_environment(tmp_path: Path) -> None:
    env = {"FAKE_EXTERNAL": "1", "FAKE_NO_VENV": "1"}
    found = steps(plan(tmp_path, "test", 1000, ("sudo", "python3"), env, "-m", "not slow"))
    assert found[:3] == [
        "sudo apt-get update -qq",
        "sudo apt-get install -y -qq --no-install-recommends python3-venv chromium fonts-noto-cjk fonts-liberation",
        "python3 -m venv .venv",
    ]
    assert found[-1] == ".venv/bin/python -m pytest -n 3 --dist loadfile -m not slow"  # the arguments go to pytest


def test_a_user_without_sudo_is_told_what_to_do_in_one_sentence(tmp_path: Path) -> None:
    result = plan(tmp_path, "test", 1000, ("python3",))
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "lab.sh: installing apt-get update -qq needs root; run this as root, or as a user who has sudo."
    )


def test_on_ci_and_in_a_virtual_environment_nothing_is_installed_from_apt(tmp_path: Path) -> None:
    ci = steps(
        plan(tmp_path, "test", 0, ("python3", "chromium", "fc-list", "fc-match"))
    )  # CI's Python, Chromium, fonts
    assert ci == [
        f"python3 {INSTALL_TEST}",
        "python3 -m ruff check .",
        "python3 -m ruff format --check .",
        "python3 -m pytest -n 3 --dist loadfile",
    ]
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    _tool(venv / "bin", "python", FAKE_PYTHON)
    inside = steps(
        plan(
            tmp_path,
            "test",
            1000,
            ("chromium", "fc-list", "fc-match"),
            {"VIRTUAL_ENV": str(venv), "FAKE_EXTERNAL": "1"},
        )
    )
    assert inside[0] == f"{venv}/bin/python {INSTALL_TEST}"


def test_serving_installs_the_app_only_and_runs_it(tmp_path: Path) -> None:
    found = steps(plan(tmp_path, "serve", 0, ("python3",), {"FAKE_EXTERNAL": "1"}))
    assert found == [
        "python3 -m venv .venv",
        ".venv/bin/python -m pip install -q -r requirements.txt",
        ".venv/bin/python app.py",
    ]


@pytest.mark.parametrize("mode", ["", "deploy"])
def test_an_unknown_mode_is_refused_in_one_sentence(tmp_path: Path, mode: str) -> None:
    result = plan(tmp_path, mode, 0, ("python3",))
    assert result.returncode == 2 and "'bash scripts/lab.sh serve'" in result.stderr
    assert result.stderr.count("\n") == 1


def test_the_script_is_valid_bash() -> None:
    bash = shutil.which("bash") or "/bin/bash"
    assert subprocess.run([bash, "-n", str(SCRIPT)], capture_output=True, timeout=30).returncode == 0
    assert os.access(SCRIPT, os.R_OK)
