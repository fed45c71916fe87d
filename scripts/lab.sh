#!/usr/bin/env bash
# Set-up that runs verbatim on a fresh Debian/Ubuntu machine, as root or as a user with sudo (README's two commands).
# Usage: bash scripts/lab.sh serve | bash scripts/lab.sh test [pytest arguments]   (.ci/run runs README's test command)
# Guide: docs/usage/testing.md
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
mode=${1:-}
if [ $# -gt 0 ]; then shift; fi
case "$mode" in serve | test) ;; *)
  echo "lab.sh: say what to do: 'bash scripts/lab.sh serve' (install and serve the app) or 'bash scripts/lab.sh test [pytest arguments]'." >&2
  exit 2 ;;
esac

# LAB_PLAN=1 prints each step instead of running it (tests/docs/test_setup_script.py reads the plan).
run() { if [ "${LAB_PLAN:-}" = 1 ]; then echo "+ $*"; else "$@"; fi; }
as_root() {
  if [ "$(id -u)" -eq 0 ]; then run "$@"
  elif command -v sudo >/dev/null 2>&1; then run sudo "$@"
  else
    echo "lab.sh: installing $* needs root; run this as root, or as a user who has sudo." >&2
    exit 1
  fi
}
python_ok() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 10))' >/dev/null 2>&1; }
externally_managed() {  # PEP 668 (Debian 12, Ubuntu 23.04 and later): pip refuses the system Python
  "$1" -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))' 2>/dev/null
}

# 1. The machine's packages: Python >= 3.10 with venv, Chromium for the browser tests (skipped without it) and a
#    Chinese font for them.
py=${PYTHON:-}
if [ -z "$py" ]; then
  if [ -n "${VIRTUAL_ENV:-}" ] && [ -x "$VIRTUAL_ENV/bin/python" ]; then py=$VIRTUAL_ENV/bin/python
  elif command -v python3 >/dev/null 2>&1; then py=python3
  elif command -v python >/dev/null 2>&1; then py=python
  fi
fi
venv=no
if [ -z "${VIRTUAL_ENV:-}" ] && { [ -z "$py" ] || externally_managed "$py" || ! "$py" -m pip --version >/dev/null 2>&1; }; then
  venv=yes  # the system's Python: a virtual environment of the project's own (.venv)
fi
packages=()
if [ -z "$py" ] || ! python_ok "$py"; then packages+=(python3); fi
if [ "$venv" = yes ] && ! { [ -n "$py" ] && "$py" -c 'import ensurepip, venv' >/dev/null 2>&1; }; then
  packages+=(python3-venv)
fi
if [ "$mode" = test ] && ! command -v chromium >/dev/null 2>&1; then packages+=(chromium); fi
# A Chinese font, so that the browser tests measure 中文 as a Chinese phone draws it (without one every character is
# a one-em box, and a chart whose Chinese names ran off a phone's screen passed).
cjk_font() { command -v fc-list >/dev/null 2>&1 && [ -n "$(fc-list :lang=zh family 2>/dev/null)" ]; }
if [ "$mode" = test ] && ! cjk_font; then packages+=(fonts-noto-cjk); fi
# Arial's metrics (Liberation Sans), which Plotly's font stack names before sans-serif: without it Chromium draws the
# charts in the wider DejaVu Sans and the phone-layout tests measure titles and ticks no phone shows.
arial_font() {
  command -v fc-match >/dev/null 2>&1 || return 1
  case "$(fc-match -f '%{family}' Arial 2>/dev/null)" in *Arial* | *Liberation*) return 0 ;; *) return 1 ;; esac
}
if [ "$mode" = test ] && ! arial_font; then packages+=(fonts-liberation); fi
if [ ${#packages[@]} -gt 0 ]; then
  as_root apt-get update -qq
  if ! as_root apt-get install -y -qq --no-install-recommends "${packages[@]}"; then
    # Ubuntu ships Chromium as a snap only: without it the browser tests are skipped, the rest run.
    others=()
    for package in "${packages[@]}"; do [ "$package" = chromium ] || others+=("$package"); done
    if [ ${#others[@]} -gt 0 ]; then as_root apt-get install -y -qq --no-install-recommends "${others[@]}"; fi
    echo "lab.sh: Chromium could not be installed from apt; the browser tests will be skipped." >&2
  fi
fi
py=${py:-python3}
if ! python_ok "$py" && [ "${LAB_PLAN:-}" != 1 ]; then
  echo "lab.sh: $py is older than Python 3.10, which ALBERT Lab needs; set PYTHON=/path/to/python3.10-or-later." >&2
  exit 1
fi

# 2. The project's Python packages, in .venv when the system's Python is not ours to change.
if [ "$venv" = yes ]; then
  [ -x .venv/bin/python ] || run "$py" -m venv .venv
  py=.venv/bin/python
fi
requirements=(-r requirements.txt)
[ "$mode" = test ] && requirements+=(-r requirements-dev.txt)
run "$py" -m pip install -q "${requirements[@]}"

# 3. Serve, or lint and test (offline: the tests never download; conftest switches the hub off as well).
if [ "$mode" = serve ]; then
  run "$py" app.py
  exit 0
fi
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 GRADIO_ANALYTICS_ENABLED=False
# Python may cache compiled modules (__pycache__/, ignored by git and by scripts/deploy_space.py): the suite starts ~100
# interpreters (servers, lesson arms, commands) that import the same app/ and albert/, and each pytest worker rewrites
# the same test modules' asserts. Where PYTHONDONTWRITEBYTECODE is set (this project's build machines set it), each
# compiled them afresh: collecting took 11.0 s of CPU per worker against 8.0 s with the cache.
unset PYTHONDONTWRITEBYTECODE
run "$py" -m ruff check .            # lint (pinned in requirements-dev.txt)
run "$py" -m ruff format --check .   # the code is ruff-formatted (run `ruff format .` before committing)
# Three workers (pytest-xdist), a test file each at a time, handed out longest kinds first (tests/scheduling.py): on
# two cores the suite is CPU-bound, and two workers left the cores idle while browser tests waited; tests/conftest.py
# puts them all at one priority.
# LAB_TEST_WORKERS=0 runs in one process; arguments after `test` go to pytest (`-n 0` there works too).
run "$py" -m pytest -n "${LAB_TEST_WORKERS:-3}" --dist loadfile "$@"
