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


@pytest.fixture(scope="module")
def built():
    from tests.app.support import use_tiny_assets

    with pytest.MonkeyPatch.context() as monkeypatch:
        use_tiny_assets(monkeypatch)
        from app.layout import bound_queue, build_app

        yield bound_queue(build_app())


def test_the_built_page_redraws_in_a_new_language_with_one_event(built) -> None:
    names = [fn.api_name for fn in built.fns.values()]
    assert names.count("page_in_language") == 1
    # The page's own redraws are no longer events of their own: each would cost the page a pass over its layout.
    own = {"parameters", "compute", "sharing_modes", "mask_example", "order_examples", "training"}
    assert not [name for name in names if name.endswith("_in_language") and name[: -len("_in_language")] in own]


def test_the_redraw_never_writes_what_tracks_work_in_flight(built) -> None:
    """The redraw waits in its own queue, so a Train pressed after a switch can answer first: a redraw that wrote the
    training ticket it was sent back, and that lesson's stopped timer, took the page's new lesson away."""
    from app import gradio_compat

    (redraw,) = gradio_compat.events(built, "page_in_language")
    drawn = {getattr(component, "elem_id", None) for component in redraw.outputs}
    assert {"training-status", "training-curves"} <= drawn  # the lesson is still shown in the new language
    assert "training-ticket" not in drawn
    assert not [component for component in redraw.outputs if isinstance(component, gr.Timer)]


def test_the_page_relabels_itself_with_what_set_language_answers(built) -> None:
    """The language switch's labels come from the page (no request); /set_language answers API clients the same."""
    import asyncio
    import json

    from gradio.state_holder import SessionState

    from app import gradio_compat

    (switch,) = gradio_compat.events(built, "set_language")
    (relabel,) = [d for d in built.config["dependencies"] if d["api_name"] == "relabel"]
    assert [list(target) for target in relabel["targets"]] == [[switch.inputs[0]._id, "change"]]
    assert relabel["queue"] is False
    assert relabel["outputs"] == [component._id for component in switch.outputs]
    assert switch.get_config()["targets"] == []  # the page never sends it
    js = relabel["js"]
    decoder, start = json.JSONDecoder(), js.index("return zh ? ") + len("return zh ? ")
    tables = {"zh": decoder.raw_decode(js, start)[0]}
    tables["en"] = decoder.raw_decode(js, decoder.raw_decode(js, start)[1] + len(" : "))[0]
    for code in ("zh", "en"):
        answer = asyncio.run(built.process_api(block_fn=switch, inputs=[code], state=SessionState(built)))
        assert tables[code] == json.loads(json.dumps(answer["data"], ensure_ascii=False, default=list)), code
    assert "document.documentElement.lang = zh ? 'zh-CN' : 'en'" in js
    assert len(js) < 120_000  # written into the page once
