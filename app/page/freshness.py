"""Results that are never missing and never stale (issue 17, item 2).

For every model tab (its event found by `api_name` once the tab is built), `keep_fresh` wires:

- **opening the tab** runs its event for what the inputs hold, unless a result is already shown;
- **typing in a text box** clears the result (a sentence says which button shows the new one): a result
  for text that is no longer there would be read as the answer for the new text. Every edit counts: Gradio 6's
  Textbox reports one only on a key press, so pasting, cutting, deleting, dropping text or a phone's keyboard
  never did (`app.gradio_compat.EDITS_JS` passes those on);
- **moving a control** (top-k, head, token limit, compared model) runs the event again;
- **another model in the picker** runs again every tab that shows a result;
- **another language** (after the labels, `app.layout`) draws again every result on screen, in that language
  (and the "input changed" sentence of a cleared one);
- **typing** also cancels every run of the tab still on its way (`cancel_on_typing`): a result for the old text
  landing after the text changed would otherwise undo the clearing;
- **a result landing** for inputs that are no longer the ones on screen is drawn again for them (`run_if_stale`):
  runs overlap, so the language, a control or an example can change while one is on its way, and its answer
  comes after the redraw that the change started (a tab opened just before a switch to 中文 showed English).
  Every result says what it was drawn for: `drawn_for`, a digest of the inputs it answered, language
  included (`stamped`). A late result for a text no longer in its box is cleared, not run again, and the clearing
  is decided in the page (`late_js`): a clearing sent through the queue could land after the button's result.

"Shown" is read from the event's first output, its JSON result: empty until a result (or a refusal) came.
The wrappers never raise: the events they wrap are `app.page.results.guarded`.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import itertools
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import gradio as gr

from app import gradio_compat, hosting
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
    cost: str = "model"
    """Its cost group: every event that runs it again runs in the same one (`app.hosting.queue_options`)."""
    late: Any = None
    """The hidden mark by which the page clears a result that came late (`late_js`), once `keep_fresh` wired it."""

    def options(self, reason: str) -> dict[str, Any]:
        """An event that runs it again: `<api_name>_<reason>`, undocumented, in its cost group."""
        return {
            "api_name": f"{self.api_name}_{reason}",
            "api_visibility": "undocumented",
            **hosting.queue_options(self.cost),
        }


def find_event(demo: gr.Blocks, api_name: str, button: str, cost: str = "model") -> ModelEvent:
    """The event registered under `api_name` (raises KeyError when no tab registered it)."""
    fn, inputs, outputs = gradio_compat.event_named(demo, api_name)
    return ModelEvent(api_name, fn, inputs, outputs, button, cost)


def is_shown(raw: Any) -> bool:
    """The event's JSON output holds a result or a refusal (not None, not {})."""
    return isinstance(raw, dict) and bool(raw)


DRAWN_FOR = "drawn_for"
"""The JSON result's key naming the inputs it answers (`drawn_for`)."""
DRAWN_FOR_EACH = "drawn_for_each"
"""The JSON result's key holding one digest per input, so that a late result can tell which input changed."""


def drawn_for(values: Sequence[Any]) -> str:
    """A short digest of the values a result was drawn for (its event's inputs, in order, language included)."""
    text = json.dumps(list(values), sort_keys=True, separators=(",", ":"), default=repr)  # ASCII: a lone surrogate too
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:16]


def stamped(fn: Callable, writes: tuple[str, ...] = (), answers: tuple[str, ...] = ()) -> Callable:
    """`fn` with its JSON result (a dict) marked with `drawn_for` of the inputs it answers.

    For a tab's own event those are `fn`'s arguments. An event that also writes some of the tab's inputs
    (`/mask_word` the masked text, `/split_paragraph` sentences A and B) returns one value for each name in `writes`
    first and its JSON result after them; the inputs it answers are then those values followed by `fn`'s arguments
    named in `answers` (e.g. `writes=("text",), answers=("top_k", "model", "lang")`)."""
    edits = len(writes)
    signature = inspect.signature(fn)
    unknown = [name for name in answers if name not in signature.parameters]
    if unknown or (writes and not answers):
        raise TypeError(f"stamped({getattr(fn, '__name__', fn)}): answers must name its arguments, not {unknown}")

    @functools.wraps(fn)
    def wrapper(*args: Any) -> Any:
        outputs = fn(*args)
        if not isinstance(outputs, tuple) or len(outputs) <= edits or not is_shown(outputs[edits]):
            return outputs
        written = outputs[:edits]
        if any(isinstance(value, dict) for value in written):  # gr.skip(): the inputs on screen are not known
            return outputs
        if edits:
            bound = signature.bind_partial(*args)
            bound.apply_defaults()
            values = (*written, *(bound.arguments[name] for name in answers))
        else:
            values = args
        raw = {**outputs[edits], DRAWN_FOR: drawn_for(values), DRAWN_FOR_EACH: [drawn_for([v]) for v in values]}
        stamped_outputs = (*written, raw, *outputs[edits + 1 :])
        make = getattr(type(outputs), "_make", None)  # a handler's named outputs stay named
        return make(stamped_outputs) if make is not None else stamped_outputs

    return wrapper


def is_stale(raw: Any, values: Sequence[Any]) -> bool:
    """`raw` is a result drawn for other inputs than `values` (False when it does not say what it was drawn for)."""
    if not is_shown(raw) or not isinstance(raw.get(DRAWN_FOR), str):
        return False
    return raw[DRAWN_FOR] != drawn_for(values)


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


_MARKS = itertools.count(1)


def landing_check(text_positions: Sequence[int] = ()) -> Callable:
    """(raw, *inputs) → (redraw mark, late mark), checked outside the queue the moment a result lands (a digest, no
    model). A result for other inputs than these moves the hidden redraw trigger, which queues a run for the inputs
    on screen; one whose text is no longer in its box (a run typing could not cancel in time) moves the late mark
    instead, and the page clears it (`late_js`): typing asked for the button, so the new text is not run. Anything
    else: no change."""

    def check(raw: Any, *args: Any) -> tuple[Any, Any]:
        if not is_stale(raw, args):
            return gr.skip(), gr.skip()
        if text_changed(raw, args, text_positions):
            return gr.skip(), f"{raw[DRAWN_FOR]} {next(_MARKS)}"
        return next(_MARKS), gr.skip()

    check.__name__ = check.__qualname__ = "landing_check"
    return check


def text_changed(raw: Any, values: Sequence[Any], text_positions: Sequence[int]) -> bool:
    """`raw` answers another text than the one in a box at `text_positions` of `values` (False when not recorded)."""
    each = raw.get(DRAWN_FOR_EACH) if isinstance(raw, dict) else None
    if not isinstance(each, list) or len(each) != len(values):
        return False
    return any(each[i] != drawn_for([values[i]]) for i in text_positions)


def run_if_stale(fn: Callable, n_outputs: int, text_positions: Sequence[int] = ()) -> Callable:
    """(raw, *inputs) → fn(*inputs) when `raw` answers other inputs than these (it landed after they changed);
    otherwise no change. Never when the text itself changed: typing cleared the result and asked for the button,
    and a result for the old text is cleared by the page when it lands (`landing_check`). This run waits in the
    queue, so a clearing sent from here could land after the button's own result and wipe it."""

    def wrapper(raw: Any, *args: Any) -> tuple:
        if not is_stale(raw, args) or text_changed(raw, args, text_positions):
            return tuple(gr.skip() for _ in range(n_outputs))
        return fn(*args)

    return _named(wrapper, fn, "if_stale")


def redraw_in_language(event: ModelEvent) -> Callable:
    """(raw, status, *inputs) → the event again when a result is on screen; when the result was cleared by typing
    (the status holds the "input changed" sentence), a late mark naming no result, so that the page writes the
    sentence in the new language if still no result is shown (`late_js`: the button's result may land first);
    otherwise no change. One output more than the event: its late mark, last."""
    n = len(event.outputs)

    def wrapper(raw: Any, status: Any, *args: Any) -> tuple:
        if is_shown(raw):
            return (*event.fn(*args), gr.skip())
        if isinstance(status, str) and status.strip():
            return (*(gr.skip() for _ in range(n)), f" {next(_MARKS)}")
        return tuple(gr.skip() for _ in range(n + 1))

    return _named(wrapper, event.fn, "in_language")


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


def _stale_values_js(outputs: list[Any], button: str) -> str:
    """A JavaScript array of `stale_outputs`' values, for the page's language in the variable `lang`."""
    english, chinese = (stale_outputs(outputs, button, lang) for lang in ("en", "zh"))
    values = ["hint" if i == 1 else json.dumps(value) for i, value in enumerate(english)]
    return (
        f"(() => {{ const hint = lang === 'zh' ? {json.dumps(chinese[1], ensure_ascii=False)} : "
        f"{json.dumps(english[1], ensure_ascii=False)}; return [{', '.join(values)}]; }})()"
    )


def stale_js(outputs: list[Any], button: str) -> str:
    """`stale_outputs` as a function run in the page: the result is cleared the moment the text changes, before
    any answer from the server could come back (a round trip could land after the next result and clear it)."""
    return f"(lang) => {_stale_values_js(outputs, button)}"


def late_js(outputs: list[Any], button: str) -> str:
    """(late mark, raw, lang) → `stale_outputs` when what is on screen is still what the mark names, else no change
    (`undefined` leaves an output as it is). A mark names a late result (its `drawn_for`, from `landing_check`) or no
    result (an empty name, from `redraw_in_language`). Checked in the page when the mark arrives, so a result that
    landed in between (the button's) is never cleared."""
    return (
        "(mark, raw, lang) => { if (typeof mark !== 'string') return []; const named = mark.split(' ')[0]; "
        "const shown = !!raw && typeof raw === 'object' && Object.keys(raw).length > 0; "
        f"return (named ? shown && raw.{DRAWN_FOR} === named : !shown) ? {_stale_values_js(outputs, button)} : []; }}"
    )


def _in_the_page(trigger: Callable, inputs: list[Any], outputs: list[Any], js: str, api_name: str) -> None:
    """`trigger` answered by `js` in the page alone, with no request (an undocumented `api_name`)."""
    trigger(
        None,
        inputs=inputs,
        outputs=outputs,
        js=js,
        api_name=api_name,
        api_visibility="undocumented",
        queue=False,
        show_progress="hidden",
    )


def keep_fresh(tabs: list[tuple[gr.Tab, ModelEvent]], lang: gr.Radio, model: gr.Dropdown) -> list[ModelEvent]:
    """Wire opening, typing, controls and the model picker for each (tab, event); call inside the Blocks.

    Returns the events with their late marks, for the language switch to draw again (`rerun_events`)."""
    wired: list[ModelEvent] = []
    for tab, event in tabs:
        n = len(event.outputs)
        raw = event.outputs[0]
        tab.select(
            run_unless_shown(event.fn, n),
            inputs=[raw, *event.inputs],
            outputs=event.outputs,
            **event.options("on_open"),
        )
        for component in event.inputs:
            if component is lang or component is model:
                continue
            if isinstance(component, gr.Textbox):
                js = stale_js(event.outputs, event.button)
                _in_the_page(component.input, [lang], event.outputs, js, f"{event.api_name}_stale")
            else:
                trigger = component.release if isinstance(component, gr.Slider) else component.input
                trigger(
                    event.fn,
                    inputs=event.inputs,
                    outputs=event.outputs,
                    trigger_mode="always_last",
                    **event.options("again"),
                )
        if model in event.inputs:
            # "once", not "always_last": a deferred run is sent again by re-dispatching its trigger, which in Gradio
            # 6 also re-sends every other tab's listener of the picker, and those still running are deferred in
            # turn, for ever (the picker sends .input twice per pick: on the option and on blur). A pick made while
            # one runs is caught when that result lands (`_landed`).
            model.input(
                run_if_shown(event.fn, n),
                inputs=[raw, *event.inputs],
                outputs=event.outputs,
                trigger_mode="once",
                **event.options("new_model"),
            )
        # Whatever drew it, a result that answers inputs no longer on screen is drawn again for them: each landing
        # is checked at once, and only a stale one takes a place in the model queue. One for a text no longer in its
        # box is cleared in the page instead, if it is still the one shown when the check answers.
        redraw = gr.Number(visible=False, precision=0, elem_classes="lab-redraw")
        late = gr.Textbox(visible=False, elem_classes="lab-redraw")
        texts = [i for i, component in enumerate(event.inputs) if isinstance(component, gr.Textbox)]
        raw.change(
            landing_check(texts),
            inputs=[raw, *event.inputs],
            outputs=[redraw, late],
            api_name=f"{event.api_name}_landed",
            api_visibility="undocumented",
            trigger_mode="multiple",  # never deferred: see the picker's listeners above (attention has two here)
            queue=False,
            show_progress="hidden",
            preprocess=False,
        )
        redraw.change(
            run_if_stale(event.fn, n, texts),
            inputs=[raw, *event.inputs],
            outputs=event.outputs,
            trigger_mode="always_last",
            **event.options("fresh"),
        )
        js = late_js(event.outputs, event.button)
        _in_the_page(late.change, [late, raw, lang], event.outputs, js, f"{event.api_name}_late")
        wired.append(replace(event, late=late))
    return wired


def rerun_events(events: list[ModelEvent], after: Any) -> None:
    """Every result on screen drawn again in the new language: each event chained onto `after`, the language switch's
    step that puts the examples in the new language (so the result is for the new text). A result still on its way
    is drawn again when it lands (`run_if_stale`)."""
    for event in events:
        after.then(
            redraw_in_language(event),
            inputs=[event.outputs[0], event.outputs[1], *event.inputs],
            outputs=[*event.outputs, event.late],
            **event.options("in_language"),
        )


RUN_SUFFIXES = ("", "_example", "_fails_example", "_on_open", "_again", "_new_model", "_in_language", "_fresh")
"""The api_name suffixes of the events that run a tab's model event: its button, a click in either example table,
opening the tab, a control, the model picker, the language switch, a late result's redraw."""


def cancel_on_typing(demo: gr.Blocks, events: list[ModelEvent]) -> None:
    """Typing in a tab's text box cancels that tab's runs in flight (call inside the Blocks, after every event is
    wired). Cancelling happens in the page (Gradio's frontend), so typing sends nothing when nothing runs."""
    for event in events:
        names = {event.api_name + suffix for suffix in RUN_SUFFIXES}
        runs = gradio_compat.event_configs(demo, names)
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
