"""The endpoints are declared once (`app.page.endpoints.Endpoint`, each tab's `ENDPOINTS`); the built app, its cost
groups, the API page and the example tables all follow from the declarations."""

from __future__ import annotations

import re
from pathlib import Path

import gradio as gr
import pytest

from app import gradio_compat, hosting
from app.page.endpoints import Endpoint, ExampleTable, endpoint_named
from tests.app.support import use_tiny_assets

ROOT = Path(__file__).resolve().parents[3]
FAMILY = re.compile(
    r"_(example|fails_example|example_pick|fails_example_pick|cleared|landed|opened|switched|recleared|new_model|"
    r"after_edit|after_preset)$"
)
"""The events that run a declared endpoint again for another reason, or start or clear a tab's run in the page
(app/page/runs.py)."""
IN_THE_PAGE = re.compile(r"_(cleared|landed|opened|switched|recleared|new_model)$")
"""A tab's run's events answered in the page alone (no function on the server): they start its run or clear it."""


@pytest.fixture(scope="module")
def built():
    with pytest.MonkeyPatch.context() as monkeypatch:
        use_tiny_assets(monkeypatch)
        from app.layout import ENDPOINTS, bound_queue, build_app

        demo = bound_queue(build_app())
        yield demo, ENDPOINTS, demo.config["dependencies"]


def test_every_registered_event_is_a_declared_endpoint_or_of_its_family(built) -> None:
    demo, endpoints, dependencies = built
    declared = {endpoint.name for endpoint in endpoints}
    orphans = []
    for dependency in dependencies:
        name = dependency["api_name"]
        if name in {"relabel", "drawn", "page_in_language"}:  # the language switch's steps
            if name == "page_in_language":  # one queued redraw of the examples, charts and tables (app.i18n)
                assert dependency["backend_fn"] and dependency["api_visibility"] == "undocumented"
                continue
            assert not dependency["backend_fn"] and dependency["js"] and dependency["api_visibility"] == "private"
            continue
        base = FAMILY.sub("", name)
        if name not in declared and base not in declared:
            orphans.append(name)
        if IN_THE_PAGE.search(name) and not re.search(r"_example", name):
            assert not dependency["backend_fn"] and dependency["js"] and dependency["api_visibility"] == "private"
            assert not dependency["cancels"], name  # nothing cancels a run (app/page/runs.py says why)
    assert orphans == [], orphans
    assert declared <= {dependency["api_name"] for dependency in dependencies}, "declared but never wired"
    assert len({dependency["api_name"] for dependency in dependencies}) == len(dependencies), "a name used twice"


def test_the_public_api_is_exactly_the_declared_public_endpoints_with_their_parameters(built) -> None:
    _, endpoints, dependencies = built
    public = {d["api_name"]: len(d["inputs"]) for d in dependencies if d.get("api_visibility") == "public"}
    assert public == {e.name: len(e.takes) for e in endpoints if e.public}
    assert {"parameters", "fill_mask", "mask_word", "sentence_order", "attention", "sentiment"} <= set(public)


def test_the_api_page_lists_every_public_endpoint_with_its_parameters(built) -> None:
    _, endpoints, _ = built
    page = (ROOT / "docs" / "usage" / "api.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `/(\w+)` \| `([^`]*)` \|", page, flags=re.M))
    assert rows == {e.name: ", ".join(e.takes) for e in endpoints if e.public}


def test_each_event_runs_in_the_group_its_endpoint_declares(built) -> None:
    demo, endpoints, _ = built
    cost = {endpoint.name: endpoint.cost for endpoint in endpoints}
    for block_fn in gradio_compat.events(demo):
        name = block_fn.api_name
        declared = cost.get(name, cost.get(FAMILY.sub("", name)))
        if declared is None or re.search(r"_pick$", name) or IN_THE_PAGE.search(name) or name.endswith("example"):
            continue  # answered at once, outside the queue: a row, or in the page alone
        if declared == "instant":
            assert not block_fn.queue, name
        else:
            assert gradio_compat.concurrency_group(block_fn) == declared, name
            assert block_fn.concurrency_limit == hosting.GROUPS[declared].limit(), name


def test_a_tab_declares_its_main_event_with_its_button(built) -> None:
    _, endpoints, _ = built
    from app.layout import model_events

    main = model_events()
    assert set(main) == {"sharing", "masked", "order", "attention", "sentiment"}
    assert main["masked"] is endpoint_named(endpoints, "fill_mask")
    assert all(e.button for e in main.values())
    assert endpoint_named(endpoints, "attention").cost == "heavy"  # every layer's attention: the heavy lane
    assert endpoint_named(endpoints, "measure_speed").cost == "measure"
    with pytest.raises(KeyError):
        endpoint_named(endpoints, "nothing")


def test_an_unknown_cost_is_refused_when_wired() -> None:
    with pytest.raises(ValueError, match="unknown cost 'cheap'"):
        Endpoint("x", print, "cheap").options()  # type: ignore[arg-type]


def test_an_example_click_fills_the_row_in_the_page_language_and_refuses_anything_else() -> None:
    rows = {"en": [["She bought a ticket.", "Then she left."]], "zh": [["我们到了车站。", "火车已经开走了。"]]}
    table = ExampleTable(dataset=None, inputs=[object(), object()], samples=lambda lang: rows[lang])
    assert table.pick(0, "zh") == ("我们到了车站。", "火车已经开走了。")
    assert table.pick(0, "en") == ("She bought a ticket.", "Then she left.")
    single = ExampleTable(dataset=None, inputs=[object()], samples=lambda lang: [["a"], ["b"]])
    assert single.pick(1, "en") == "b"
    for bad in (None, "0", 0.0, True, -1, 2, 10**400, [0]):
        with pytest.raises(gr.Error, match="whole number from 0 to 1"):
            single.pick(bad, "en")
    with pytest.raises(gr.Error, match="0 到 1"):
        single.pick(5, "zh")


def test_each_event_has_as_many_outputs_as_its_views_answer_names(built) -> None:
    """An endpoint's outputs are declared once, by its view's answer (a NamedTuple): every event that runs the view
    is wired to that many components, and the public ones' parameters are the view's own (`Endpoint.takes`)."""
    import inspect
    import typing

    demo, endpoints, _ = built
    answers = {}
    for endpoint in endpoints:
        answer = typing.get_type_hints(endpoint.view).get("return")
        if isinstance(answer, type) and issubclass(answer, tuple) and hasattr(answer, "_fields"):
            answers[endpoint.name] = answer
        if endpoint.parameters is None:
            assert endpoint.takes == tuple(inspect.signature(endpoint.view).parameters), endpoint.name
    assert {"fill_mask", "mask_word", "sentence_order", "attention", "sentiment", "layer_transitions"} <= set(answers)
    for block_fn in gradio_compat.events(demo):
        if block_fn.api_name in answers:
            assert len(block_fn.outputs) == len(answers[block_fn.api_name]._fields), block_fn.api_name
