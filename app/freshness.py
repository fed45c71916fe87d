"""Results that are never missing and never stale (issue 17, item 2).

For every model tab (its event found by `api_name` once the tab is built), `keep_fresh` wires:

- **opening the tab** runs its event for what the inputs hold, unless a result is already shown;
- **typing in a text box** clears the result (a sentence says which button shows the new one): a result
  for text that is no longer there would be read as the answer for the new text;
- **moving a control** (top-k, head, token limit, compared model) runs the event again;
- **another model in the picker** runs again every tab that shows a result;
- **another language** (after the labels, `app.layout`) draws again every result on screen, in that language;
- **typing** also cancels every run of the tab still on its way (`cancel_on_typing`): a result for the old text
  landing after the text changed would otherwise undo the clearing.

"Shown" is read from the event's first output, its JSON result: empty until a result (or a refusal) came.
The wrappers never raise: the events they wrap are `app.model_views.guarded`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr

from app import queues
from app.i18n import t
from app.inputs import language

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModelEvent:
    """One tab's main event as built: what it runs, on which inputs, into which outputs."""

    api_name: str
    fn: Callable
    inputs: list[Any]
    outputs: list[Any]
    button: str
    """String key of the button that runs it (named in the 'input changed' sentence)."""


def find_event(demo: gr.Blocks, api_name: str, button: str) -> ModelEvent:
    """The event registered under `api_name` (raises KeyError when no tab registered it)."""
    for block_fn in demo.fns.values():
        if block_fn.api_name == api_name:
            return ModelEvent(api_name, block_fn.fn, list(block_fn.inputs), list(block_fn.outputs), button)
    raise KeyError(f"no event named {api_name!r}")


def is_shown(raw: Any) -> bool:
    """The event's JSON output holds a result or a refusal (not None, not {})."""
    return isinstance(raw, dict) and bool(raw)


def _named(wrapper: Callable, fn: Callable, how: str) -> Callable:
    """A readable name for logs. Not functools.wraps: Gradio reads the signature, and the wrapper takes one more
    argument (the JSON output) than `fn`."""
    wrapper.__name__ = wrapper.__qualname__ = f"{getattr(fn, '__name__', 'view')}_{how}"
    return wrapper


def run_unless_shown(fn: Callable, n_outputs: int) -> Callable:
    """(raw, *inputs) → fn(*inputs), or no change when `raw` is already a result."""

    def wrapper(raw: Any, *args: Any) -> tuple:
        return tuple(gr.skip() for _ in range(n_outputs)) if is_shown(raw) else fn(*args)

    return _named(wrapper, fn, "unless_shown")


def run_if_shown(fn: Callable, n_outputs: int) -> Callable:
    """(raw, *inputs) → fn(*inputs) when a result is on screen (to draw it again); otherwise no change."""

    def wrapper(raw: Any, *args: Any) -> tuple:
        return fn(*args) if is_shown(raw) else tuple(gr.skip() for _ in range(n_outputs))

    return _named(wrapper, fn, "if_shown")


def stale_outputs(outputs: list[Any], button: str, lang: Any) -> tuple:
    """The outputs of a result that no longer matches its input: all empty, and one sentence in the status."""
    values: list[Any] = []
    for i, component in enumerate(outputs):
        if i == 1:  # every model event's second output is its status line
            values.append("ℹ️ " + t("fresh.stale", language(lang), button=t(button, language(lang))))
        elif isinstance(component, gr.Radio):
            values.append(gr.update(choices=[], value=None))
        else:
            values.append(None)
    return tuple(values)


def stale_js(outputs: list[Any], button: str) -> str:
    """`stale_outputs` as a function run in the page: the result is cleared the moment the text changes, before
    any answer from the server could come back (a round trip could land after the next result and clear it)."""
    english, chinese = (stale_outputs(outputs, button, lang) for lang in ("en", "zh"))
    values = ["hint" if i == 1 else json.dumps(value) for i, value in enumerate(english)]
    return (
        f"(lang) => {{ const hint = lang === 'zh' ? {json.dumps(chinese[1], ensure_ascii=False)} : "
        f"{json.dumps(english[1], ensure_ascii=False)}; return [{', '.join(values)}]; }}"
    )


def keep_fresh(tabs: list[tuple[gr.Tab, ModelEvent]], lang: gr.Radio, model: gr.Dropdown) -> list[ModelEvent]:
    """Wire opening, typing, controls and the model picker for each (tab, event); call inside the Blocks.

    Returns the events, for the language switch to draw again (`rerun_events`)."""
    for tab, event in tabs:
        n = len(event.outputs)
        raw = event.outputs[0]
        tab.select(
            run_unless_shown(event.fn, n),
            inputs=[raw, *event.inputs],
            outputs=event.outputs,
            api_name=f"{event.api_name}_on_open",
            api_visibility="undocumented",
            **queues.MODEL,
        )
        for component in event.inputs:
            if component is lang or component is model:
                continue
            if isinstance(component, gr.Textbox):
                component.input(
                    None,
                    inputs=[lang],
                    outputs=event.outputs,
                    js=stale_js(event.outputs, event.button),
                    api_name=f"{event.api_name}_stale",
                    api_visibility="undocumented",
                    queue=False,
                    show_progress="hidden",
                )
            else:
                trigger = component.release if isinstance(component, gr.Slider) else component.input
                trigger(
                    event.fn,
                    inputs=event.inputs,
                    outputs=event.outputs,
                    api_name=f"{event.api_name}_again",
                    api_visibility="undocumented",
                    trigger_mode="always_last",
                    **queues.MODEL,
                )
        if model in event.inputs:
            model.input(
                run_if_shown(event.fn, n),
                inputs=[raw, *event.inputs],
                outputs=event.outputs,
                api_name=f"{event.api_name}_new_model",
                api_visibility="undocumented",
                trigger_mode="always_last",
                **queues.MODEL,
            )
    return [event for _, event in tabs]


def rerun_events(events: list[ModelEvent], after: Callable[[str], Any]) -> None:
    """Every result on screen drawn again in the new language: each event chained onto `after(api_name)`, the
    language switch's step that puts that tab's example in the new language (so the result is for the new text)."""
    for event in events:
        after(event.api_name).then(
            run_if_shown(event.fn, len(event.outputs)),
            inputs=[event.outputs[0], *event.inputs],
            outputs=event.outputs,
            api_name=f"{event.api_name}_in_language",
            api_visibility="undocumented",
            **queues.MODEL,
        )


RUN_SUFFIXES = ("", "_example", "_fails_example", "_on_open", "_again", "_new_model", "_in_language")
"""The api_name suffixes of the events that run a tab's model event: its button, a click in either example table,
opening the tab, a control, the model picker, the language switch."""


def cancel_on_typing(demo: gr.Blocks, events: list[ModelEvent]) -> None:
    """Typing in a tab's text box cancels that tab's runs in flight (call inside the Blocks, after every event is
    wired). Cancelling happens in the page (Gradio's frontend), so typing sends nothing when nothing runs."""
    for event in events:
        names = {event.api_name + suffix for suffix in RUN_SUFFIXES}
        runs = [fn.get_config() for fn in demo.fns.values() if fn.api_name in names]
        for component in event.inputs:
            if isinstance(component, gr.Textbox):
                component.input(
                    None,
                    cancels=runs,
                    api_name=f"{event.api_name}_cancel",
                    api_visibility="private",
                    queue=False,
                    show_progress="hidden",
                )
