"""`Translations.redraw`: every chart, table and example that follows the language, drawn again by one event."""

from __future__ import annotations

import logging

import gradio as gr
import pytest

from app.i18n import Translations


def test_the_refreshers_run_as_one_function_over_their_inputs_each_taken_once() -> None:
    text, lang, count = gr.Textbox(render=False), gr.Radio(["en", "zh"], render=False), gr.Number(render=False)
    shown, chart, table = gr.Textbox(render=False), gr.Markdown(render=False), gr.Markdown(render=False)
    tr = Translations()
    tr.refresh("example", lambda value, code: f"{value} in {code}", [text, lang], [shown])
    tr.refresh("views", lambda code, n: (f"chart {code}", f"table {n}"), [lang, count], [chart, table])
    fn, inputs, outputs = tr.redraw()
    assert inputs == [text, lang, count]  # the language, read by both, is sent once
    assert outputs == [shown, chart, table]
    assert fn("hello", "zh", 3) == ("hello in zh", "chart zh", "table 3")


def test_a_refresher_that_fails_keeps_its_outputs_and_the_others_still_redraw(caplog) -> None:
    lang, first, second, third = (gr.Textbox(render=False) for _ in range(4))

    def broken(code: str) -> tuple:
        raise RuntimeError("no chart today")

    tr = Translations()
    tr.refresh("broken", broken, [lang], [first, second])
    tr.refresh("fine", lambda code: code.upper(), [lang], [third])
    fn, _, _ = tr.redraw()
    with caplog.at_level(logging.ERROR, logger="app.i18n"):
        values = fn("zh")
    assert values[:2] == (gr.skip(), gr.skip()) and values[2] == "ZH"
    assert "broken" in caplog.text and "no chart today" in caplog.text


def test_two_refreshers_drawing_one_component_are_refused_when_the_page_is_built() -> None:
    lang, shared = gr.Textbox(render=False), gr.Markdown(render=False)
    tr = Translations()
    tr.refresh("one", lambda code: code, [lang], [shared])
    tr.refresh("two", lambda code: code, [lang], [shared])
    with pytest.raises(ValueError, match="'two' draws a component another refresher draws too"):
        tr.redraw()


def test_the_built_page_redraws_in_a_new_language_with_one_event() -> None:
    from tests.app.support import use_tiny_assets

    with pytest.MonkeyPatch.context() as monkeypatch:
        use_tiny_assets(monkeypatch)
        from app.layout import build_app

        demo = build_app()
    names = [fn.api_name for fn in demo.fns.values()]
    assert names.count("page_in_language") == 1
    # The page's own redraws are no longer events of their own: each would cost the page a pass over its layout.
    assert not [
        name
        for name in names
        if name.endswith("_in_language")
        and name.split("_in_language")[0]
        in {"parameters", "compute", "sharing_modes", "mask_example", "order_examples", "training"}
    ]
