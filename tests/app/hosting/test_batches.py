"""Batches (issue 53): a class's concurrent masked-word, sentence-order and sentiment requests are answered in one
call of their event (Gradio's `batch=True`), each exactly as it would be alone; a refused request among them does
not take the others down, and a request with too few values never joins a batch."""

from __future__ import annotations

import asyncio
from typing import Any, NamedTuple

import gradio as gr
import pytest

from app import hosting
from app.page.endpoints import BATCH


class Pair(NamedTuple):
    result: Any
    status: Any


def _doubled(text: Any, lang: str = "en") -> Pair:
    return Pair({"text": text * 2}, f"{lang}: ok")


def test_a_batch_is_answered_request_by_request_in_order() -> None:
    each = hosting.in_batches(hosting.checked_values(_doubled, (1,)), lambda message: Pair({"error": message}, message))
    assert each(["a", "b", "c"], ["en", "zh", "en"]) == (
        [{"text": "aa"}, {"text": "bb"}, {"text": "cc"}],
        ["en: ok", "zh: ok", "en: ok"],
    )


def test_a_refused_request_among_others_gets_its_sentence_and_the_others_their_answers() -> None:
    each = hosting.in_batches(hosting.checked_values(_doubled, (1,)), lambda message: Pair({"error": message}, message))
    results, statuses = each(["a", "b\ud800", "c"], ["en", "en", "fr"])
    assert results[0] == {"text": "aa"}
    assert "lone surrogate" in results[1]["error"] and "\ud800" not in results[1]["error"]
    assert results[2]["error"].startswith('The language (lang) must be "en" or "zh"')
    assert statuses[1] == results[1]["error"]


def test_a_refused_request_alone_is_an_error_as_before() -> None:
    each = hosting.in_batches(hosting.checked_values(_doubled, (1,)), lambda message: Pair({"error": message}, message))
    with pytest.raises(gr.Error, match="lone surrogate"):
        each(["b\ud800"], ["en"])


def _event(demo, name: str) -> Any:
    return next(fn for fn in demo.fns.values() if fn.api_name == name)


def _answers(demo, name: str, requests: list[list[Any]]) -> list[list[Any]]:
    """Each request's outputs as Gradio sends them, for `requests` answered in one batch."""
    from gradio.state_holder import SessionState

    block_fn = _event(demo, name)
    columns = [list(column) for column in zip(*requests, strict=True)]
    data = asyncio.run(demo.process_api(block_fn=block_fn, inputs=columns, state=SessionState(demo)))["data"]
    return [[_plain(output) for output in outputs] for outputs in zip(*data, strict=True)]


def _plain(output: Any) -> Any:
    """An output as the page receives it (Gradio's data models dumped to JSON values)."""
    return output.model_dump() if hasattr(output, "model_dump") else output


BATCHED = {
    "fill_mask": [
        ["the [MASK] of the text", 5, "", "en", ""],
        ["a [MASK] model reads every token", 3, "", "en", ""],
        ["no mask here", 5, "", "en", ""],  # refused by the view: a result of its own
        ["the [MASK] and the [MASK]", 5, "albert-lab-none", "en", "the"],
    ],
    "sentence_order": [
        ["the model reads the text.", "then it learns the order.", "", "en", ""],
        ["then it learns the order.", "the model reads the text.", "", "en", "another book's words."],
        ["the data is small.", "", "", "en", ""],
    ],
    "sentiment": [["a fine and good film", "en"], ["a dull and bad film", "en"], ["", "en"]],
}


@pytest.mark.parametrize("name", sorted(BATCHED))
def test_the_short_model_events_answer_a_batch_exactly_as_one_request_at_a_time(demo, name: str) -> None:
    block_fn = _event(demo, name)
    assert block_fn.batch and block_fn.max_batch_size == BATCH == 16
    requests = BATCHED[name]
    together = _answers(demo, name, requests)
    alone = [_answers(demo, name, [request])[0] for request in requests]
    assert together == alone
    assert any("error" in outputs[0] for outputs in alone) and any("error" not in outputs[0] for outputs in alone)


def test_a_refused_value_in_a_batch_answers_that_request_with_its_sentence_only(demo) -> None:
    good = BATCHED["fill_mask"][0]
    answers = _answers(demo, "fill_mask", [good, ["the [MASK]", 10**400, "", "en", ""], good])
    assert answers[0] == answers[2] and "error" not in answers[0][0]
    assert "401 digits" in answers[1][0]["error"]


def test_a_request_with_too_few_values_is_completed_or_refused_when_it_joins_the_queue() -> None:
    """Gradio gathers a batch column by column (zip): one request short of a value would cut every other request of
    its batch short. So the count is settled at the queue's door: optional values filled in, too few refused (422)."""
    from types import SimpleNamespace

    from app import gradio_compat

    with gr.Blocks() as blocks:
        boxes = [gr.Textbox() for _ in range(3)]
        boxes[0].submit(lambda *values: values[0], inputs=boxes, outputs=boxes[0], api_name="three", batch=True)
    blocks.queue()
    joined: list[list[Any]] = []

    async def push(body: Any, *args: Any, **kwargs: Any) -> tuple[bool, str, str]:
        joined.append(body.data)
        return True, "event", "success"

    blocks._queue.push = push
    sentence = "/{0} takes {2} values, got {3}.".format
    assert gradio_compat.name_input_counts(blocks, sentence, lambda name: ("filled",) if name == "three" else ())
    index = next(iter(blocks.fns))
    assert asyncio.run(blocks._queue.push(SimpleNamespace(fn_index=index, data=["a", "b"]))) == (
        True,
        "event",
        "success",
    )
    assert joined == [["a", "b", "filled"]]
    refused = asyncio.run(blocks._queue.push(SimpleNamespace(fn_index=index, data=["a"])))
    assert refused == (False, "/three takes 3 values, got 1.", "validator_error") and len(joined) == 1
