"""A model tab runs its model when its user asks, and only then (issue 52).

Each model tab has **one run event** (`wire_run`). Its button, Enter in a text box, a control it reads (a slider's
release, a picker), a click in one of its example tables and the page actions below all start that one event, with
Gradio's `trigger_mode="always_last"`: a run asked for while one is on its way waits for it, then runs once, for what
the inputs hold by then. One event per tab, one run at a time per page: a result can only land after every run asked
before it, so no result is ever replaced by an older one, and nothing has to check what a result was drawn for.

Besides the tab's own controls, decided in the page (no request unless a run starts):
- **opening the tab** runs it when it never ran, or when the result it shows was asked for another model or
  language;
- **a language switch** (after the page's examples are in the new language) and **another model in the picker** run
  the *visible* tab again when its result was asked for another model or language. Hidden tabs catch up when opened;
- **typing** in a text box clears the result in the page (one sentence says which button shows the new one). A run
  on its way is not cancelled: a cancel ends the run's pending state in the page at once, so the button pressed next
  would run beside it instead of after it, and the older result could land last. It lands, and is cleared again in
  the page when it does (unless a run was asked for since). After a language switch the sentence is written in the
  new language.

The page keeps one value per tab, what its last run was asked for (`window.labRuns[name]`: the JSON of
[model, language], or "cleared" after typing). That is all the consistency state there is.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import gradio as gr

from app import hosting
from app.i18n import t
from app.inputs import language

if TYPE_CHECKING:
    from app.page.endpoints import Endpoint, ExampleTable
    from app.tabs import TabContext

CLEARED = "cleared"
"""`window.labRuns[name]` after typing cleared the tab's result."""


@dataclass(frozen=True)
class TabRun:
    """A model tab's run event as wired: what the page needs to start it again."""

    name: str
    """The endpoint's API name, and the tab's key in `window.labRuns`."""
    button: str
    """String key of the button that runs it (named in the "input changed" sentence)."""
    inputs: list[Any]
    outputs: list[Any]
    trigger: Any
    """A hidden number: moving it starts the run event (`bump_js`)."""
    keys: list[Any]
    """The inputs a result is asked for besides the text: [model picker, language] (the language alone when the tab
    reads no model)."""
    event: Any
    """The run event."""

    @property
    def bump_inputs(self) -> list[Any]:
        """What `bump_js` reads: the keys, the trigger."""
        return [*self.keys, self.trigger]


def _key(keys: Sequence[str]) -> str:
    """JavaScript: what a run is asked for, from the variables named `keys` ([model, lang] or [lang])."""
    return f"JSON.stringify([{', '.join(keys) if len(keys) == 2 else 'null, ' + keys[0]}])"


def _record_js(name: str, inputs: list[Any], keys: list[Any]) -> str:
    """Run in the page before each run: note what it is asked for, then send the inputs unchanged."""
    names = [f"args[{inputs.index(key)}]" for key in keys]
    return (
        f"(...args) => {{ window.labRuns = window.labRuns || {{}}; window.labRuns[{json.dumps(name)}] = "
        f"{_key(names)}; return args; }}"
    )


def bump_js(run: TabRun, when: str = "opened", tab_id: str = "") -> str:
    """(*keys, n) → n + 1 (which starts the run) when the tab should run again, else no change. `when`:
    "opened" (never ran, or its result was asked for other keys), "switched" (the same, only while the tab of
    elem_id `tab_id` is shown, and never when it has not run yet), "always" (an example was picked)."""
    names = ["model", "lang"] if len(run.keys) == 2 else ["lang"]
    was = f"window.labRuns[{json.dumps(run.name)}]"
    differs = f"(typeof was === 'string' && was !== {json.dumps(CLEARED)} && was !== key)"
    visible = f"(() => {{ const el = document.getElementById({json.dumps(tab_id)}); "
    visible += "return !!el && el.offsetParent !== null; })()"
    condition = {
        "opened": f"(was === undefined || {differs})",
        "switched": f"({differs} && {visible})",
        "always": "true",
    }[when]
    return (
        f"({', '.join(names)}, n) => {{ window.labRuns = window.labRuns || {{}}; const key = {_key(names)}; "
        f"const was = {was}; if (!{condition}) return []; {was} = key; return (n || 0) + 1; }}"
    )


def cleared_outputs(outputs: list[Any], button: str, lang: Any) -> tuple:
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


def _cleared_values_js(outputs: list[Any], button: str) -> str:
    """A JavaScript array of `cleared_outputs`' values, for the page's language in the variable `lang`."""
    english, chinese = (cleared_outputs(outputs, button, code) for code in ("en", "zh"))
    values = ["hint" if i == 1 else json.dumps(value) for i, value in enumerate(english)]
    return (
        f"(() => {{ const hint = lang === 'zh' ? {json.dumps(chinese[1], ensure_ascii=False)} : "
        f"{json.dumps(english[1], ensure_ascii=False)}; return [{', '.join(values)}]; }})()"
    )


def clear_js(run: TabRun) -> str:
    """(lang) → `cleared_outputs`, in the page the moment the text changes (no round trip that could land after the
    next result), and the tab noted as cleared."""
    return (
        f"(lang) => {{ window.labRuns = window.labRuns || {{}}; window.labRuns[{json.dumps(run.name)}] = "
        f"{json.dumps(CLEARED)}; return {_cleared_values_js(run.outputs, run.button)}; }}"
    )


def reclear_js(run: TabRun) -> str:
    """(lang) → `cleared_outputs` in `lang` when typing cleared the tab's result, else no change."""
    return (
        f"(lang) => (window.labRuns || {{}})[{json.dumps(run.name)}] === {json.dumps(CLEARED)} ? "
        f"{_cleared_values_js(run.outputs, run.button)} : []"
    )


def _in_the_page(trigger: Any, inputs: list[Any], outputs: list[Any], js: str, api_name: str, **options: Any) -> Any:
    """`trigger` answered by `js` in the page alone, with no request (a private `api_name`)."""
    return trigger(
        None,
        inputs=inputs,
        outputs=outputs,
        js=js,
        api_name=api_name,
        api_visibility="private",
        queue=False,
        show_progress="hidden",
        **options,
    )


def wire_run(
    ctx: TabContext,
    endpoint: Endpoint,
    actions: list[Any],
    inputs: list[Any],
    outputs: list[Any],
    examples: Sequence[tuple[ExampleTable, str]] = (),
) -> TabRun:
    """The tab's run event: `endpoint` on `actions` (the button's click, a text box's submit), on every control
    among `inputs` (not a text box, the language or the model picker), on a click in each example table of
    `examples` (after `/<name>_<family>_pick` filled its inputs) and on its hidden trigger. Typing in a text box among
    `inputs` clears the result. Call inside the tab; the run is noted in `ctx.runs`
    for the page's part (`wire_page`)."""
    if endpoint.button is None:
        raise ValueError(f"/{endpoint.name} has no button: only a tab's main model event is run this way")
    lang, model = ctx.lang, ctx.model
    keys = [model, lang] if model in inputs else [lang]
    trigger = gr.Number(visible=False, precision=0, elem_classes="lab-run")
    controls = [
        component.release if isinstance(component, gr.Slider) else component.input
        for component in inputs
        if not isinstance(component, gr.Textbox) and component is not lang and component is not model
    ]
    event = gr.on(
        [*actions, *controls, trigger.change],
        endpoint.fn,
        inputs=inputs,
        outputs=outputs,
        js=_record_js(endpoint.name, inputs, keys),
        trigger_mode="always_last",
        **endpoint.options(),
    )
    run = TabRun(endpoint.name, endpoint.button, inputs, outputs, trigger, keys, event)
    # A result that lands after typing cleared the tab, with no run asked for since, is cleared again, in the page.
    _in_the_page(event.then, [lang], outputs, reclear_js(run), f"{run.name}_landed")
    typing = [component.input for component in inputs if isinstance(component, gr.Textbox)]
    if typing:
        _in_the_page(functools.partial(gr.on, typing), [lang], outputs, clear_js(run), f"{run.name}_cleared")
    for table, family in examples:
        picked = table.dataset.click(
            hosting.served(table.pick, "instant", (1,)),
            inputs=[table.dataset, lang],
            outputs=table.inputs,
            api_name=f"{endpoint.name}_{family}_pick",
            api_visibility="undocumented",
            show_progress="hidden",
            **hosting.queue_options("instant"),
        )
        _in_the_page(picked.then, run.bump_inputs, [trigger], bump_js(run, "always"), f"{endpoint.name}_{family}")
    ctx.runs[endpoint.name] = run
    return run


def wire_page(runs: Sequence[TabRun], tabs: dict[str, Any], switched: Any, lang: Any, model: Any) -> None:
    """The page's part, for each tab's run: opening the tab, the language switch (`switched`: its step after the
    examples are in the new language) and the model picker. `tabs`: each run's gr.Tab, by the run's name."""
    for run in runs:
        tab, inputs, trigger = tabs[run.name], run.bump_inputs, [run.trigger]
        _in_the_page(tab.select, inputs, trigger, bump_js(run, "opened"), f"{run.name}_opened")
        _in_the_page(switched.then, inputs, trigger, bump_js(run, "switched", tab.elem_id), f"{run.name}_switched")
        _in_the_page(switched.then, [lang], run.outputs, reclear_js(run), f"{run.name}_recleared")
        if model in run.keys:
            # the picker sends .input twice per pick (on the option, on blur): the second finds the key noted
            new_model = bump_js(run, "switched", tab.elem_id)
            _in_the_page(model.input, inputs, trigger, new_model, f"{run.name}_new_model")
