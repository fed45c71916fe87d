"""Every environment variable the app reads is declared once, in app/settings.py (issue 52), and listed on
docs/usage/hosting.md with its default and what it does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app import settings

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*(ROOT / "app").rglob("*.py"), ROOT / "app.py"])


def test_every_variable_named_in_the_app_is_a_declared_setting() -> None:
    named = {
        name
        for path in SOURCES
        if path.name != "settings.py"
        for name in re.findall(r"\bALBERT_LAB_[A-Z_]+\b", path.read_text(encoding="utf-8"))
    }
    declared = {setting.name for setting in settings.SETTINGS}
    assert named <= declared, sorted(named - declared)
    assert len(declared) == len(settings.SETTINGS) >= 12


def test_no_module_but_settings_reads_the_environment_for_a_setting() -> None:
    """Child processes get a copy of the environment (`{**os.environ, …}`); reading one is settings' alone."""
    readers = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in SOURCES
        if path.name != "settings.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"os\.environ\.get\(|os\.getenv\(|os\.environ\[", line) and "PYTHONPATH" not in line
    ]
    assert readers == [], readers


def test_the_hosting_page_lists_every_setting_with_its_default() -> None:
    page = (ROOT / "docs" / "usage" / "hosting.md").read_text(encoding="utf-8")
    rows = {name: value.strip() for name, value in re.findall(r"^\| `([A-Z_]+)` \| ([^|]+) \|", page, flags=re.M)}
    assert rows == {s.name: f"`{s.default}`" if s.default else "(empty)" for s in settings.SETTINGS}


def test_a_setting_reads_the_environment_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(settings.MODEL_WORKERS.name, raising=False)
    assert settings.MODEL_WORKERS.read() == "2" and settings.MODEL_WORKERS.number(9) == 2.0
    monkeypatch.setenv(settings.MODEL_WORKERS.name, "  3 ")
    assert settings.MODEL_WORKERS.read() == "3"
    monkeypatch.setenv(settings.MODEL_WORKERS.name, "three")
    assert settings.MODEL_WORKERS.number(2) == 2
    monkeypatch.setenv(settings.MODEL_WORKERS.name, "")
    assert settings.MODEL_WORKERS.read() == "2"  # empty counts as unset
    monkeypatch.setenv(settings.SPACE.name, "Spaces")
    assert settings.on_space()
