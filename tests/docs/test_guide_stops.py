"""Each guide against its stops (docs/teaching/stops.py), without a browser: every figure a stop reads off the page is
quoted in the guide, every control a step presses or reads is named there by the page's own label, and each stop's
heading names its tab as the page does. tests/app/test_guide_walk.py does the same stops in Chromium."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from app.i18n import t

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("guide_stops", ROOT / "docs" / "teaching" / "stops.py")
assert _SPEC is not None and _SPEC.loader is not None
stops = importlib.util.module_from_spec(_SPEC)
sys.modules["guide_stops"] = stops  # dataclasses look their module up while the class is built
_SPEC.loader.exec_module(stops)
GUIDES = {"en": ROOT / "docs" / "teaching" / "guide.md", "zh": ROOT / "docs" / "teaching" / "guide.zh.md"}


def _flat(text: str) -> str:
    """Text with every run of white space one space (a guide wraps its lines; the page keeps no-break spaces)."""
    return re.sub(r"\s+", " ", text)


def _section(guide: str, number: int) -> str:
    """Stop `number`'s section of a guide: from its "### n." heading to the next heading of that level or above."""
    found = re.search(rf"^### {number}\. .*?(?=^#{{2,3}} )", guide + "\n## end", re.MULTILINE | re.DOTALL)
    assert found, f"the guide has no stop {number}"
    return found.group(0)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_stop_is_in_its_guide_as_the_page_shows_it(lang: str) -> None:
    missing = _problems(GUIDES[lang].read_text(encoding="utf-8"), lang)
    assert not missing, "\n".join(missing)


def _problems(guide: str, lang: str) -> list[str]:
    """What a guide says otherwise than its stops (one line each)."""
    table = stops.STOPS[lang]
    assert [stop.number for stop in table] == list(range(1, len(table) + 1))
    missing = []
    for stop in table:
        section = _flat(_section(guide, stop.number))
        heading = section.split("\n", 1)[0]
        if t(f"tab.{stop.tab}", lang) not in heading:
            missing.append(f"stop {stop.number}: heading does not name the tab {t(f'tab.{stop.tab}', lang)!r}")
        seen = [step.text for step in stop.steps if step.do == "see"]
        for text in [*seen, *(text for _, text in stop.shows)]:
            if _flat(text) not in section:
                missing.append(f"stop {stop.number}: the page shows {text!r}, the guide does not quote it")
        for key in stop.labels:
            if t(key, lang) not in section:
                missing.append(f"stop {stop.number}: the guide does not name {t(key, lang)!r} ({key})")
        for step in stop.steps:
            if step.do in ("fill", "example") and _flat(step.text) not in section:
                missing.append(f"stop {stop.number}: the guide does not give the text {step.text!r}")
            if step.do == "model" and step.text not in section:
                missing.append(f"stop {stop.number}: the guide does not say to pick {step.text!r}")
    return missing


def test_the_check_sees_a_guide_that_forgets_a_step() -> None:
    """The Chinese guide as it was (issue 42): stop 5 never switched the model back from the reviews model."""
    guide = GUIDES["zh"].read_text(encoding="utf-8")
    forgetful = guide.replace("先把页面上方的“模型”换回“自动”（上一站选了 `albert-lab-zh-sop-reviews`）。", "")
    assert forgetful != guide
    assert _problems(forgetful, "zh") == ["stop 5: the guide does not say to pick '自动'"]
    cosines = GUIDES["en"].read_text(encoding="utf-8").replace("26.9°", "0.89")  # the guide quoting cosines again
    assert _problems(cosines, "en") == ["stop 2: the page shows '26.9°', the guide does not quote it"]
