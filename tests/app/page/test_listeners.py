"""No trigger of the page has two deferrable listeners (issue 17).

Gradio 6 defers an "always_last" listener while it runs and later sends it again by re-dispatching its whole
trigger, which re-sends every other listener of that trigger too. Two deferrable listeners of one trigger, both
running, defer each other for ever: the model picker's did, then the calculator's fields (three listeners each:
69 requests in 2 minutes after four keystrokes). Each trigger gets one, the rest chained with `.then`.
"""

from __future__ import annotations

import collections

from app.layout import build_app


def test_every_trigger_has_at_most_one_deferrable_listener(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ALBERT_LAB_MODELS", str(tmp_path))
    monkeypatch.setenv("ALBERT_LAB_RUNS", str(tmp_path))
    config = build_app().get_config_file()
    deferrable: dict[tuple[int, str], list[str]] = collections.defaultdict(list)
    for dependency in config["dependencies"]:
        if dependency.get("trigger_mode") == "always_last":
            for target in dependency["targets"]:
                deferrable[tuple(target)].append(dependency.get("api_name") or str(dependency["id"]))
    assert deferrable, "the calculator's and the model tabs' listeners are deferrable: none found"
    assert {trigger: names for trigger, names in deferrable.items() if len(names) > 1} == {}
