"""Every app API name answers as before: the built app registers exactly the endpoints in tests/app/api_names.json.

The list was recorded from the app before it was reorganized by feature (issue 33, item 2): each endpoint's name, how
many values it takes and returns, and whether it is public, undocumented or private. A new or renamed endpoint fails
here until it is added to the list on purpose.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.app.support import use_tiny_assets

RECORDED = Path(__file__).resolve().parent / "api_names.json"


def _registered() -> dict[str, dict[str, object]]:
    from app.layout import build_app

    rows: dict[str, dict[str, object]] = {}
    for dependency in build_app().config["dependencies"]:
        name = dependency.get("api_name")
        assert name, f"an event without an api_name: {dependency.get('targets')}"
        assert name not in rows, f"two events named {name}"
        rows[name] = {
            "inputs": len(dependency["inputs"]),
            "outputs": len(dependency["outputs"]),
            "visibility": dependency.get("api_visibility"),
        }
    return rows


def test_the_app_registers_exactly_the_recorded_endpoints(monkeypatch) -> None:
    use_tiny_assets(monkeypatch)
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))["endpoints"]
    registered = _registered()
    assert sorted(set(registered) - set(recorded)) == [], "new endpoints: add them to tests/app/api_names.json"
    assert sorted(set(recorded) - set(registered)) == [], "endpoints gone: every recorded name must still answer"
    assert registered == recorded
    # the public ones the README documents, by name
    public = {name for name, row in recorded.items() if row["visibility"] == "public"}
    assert {"parameters", "fill_mask", "mask_word", "sentence_order", "attention", "sentiment"} <= public
    assert len(recorded) == 94  # issue 32 added sharing_example_in_language
