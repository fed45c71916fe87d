"""The page: header, language switch, model picker and the tabs, plus how to launch it."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import Any

import gradio as gr

from app import (
    attention_view,
    costs,
    door,
    freshness,
    hosting,
    model_views,
    queues,
    sentiment,
    sentiment_views,
    tab_attention,
    tab_masked,
    tab_order,
    tab_parameters,
    tab_sentiment,
    tab_sharing,
    views,
)
from app.i18n import LANGUAGES, Translations, t
from app.models import AUTO_MODEL, ZH_MODEL, comparison_model, default_model, shipped_models
from app.tabs import LabViews, TabContext

logger = logging.getLogger(__name__)
SYSTEM_FONTS = (
    "system-ui",
    "-apple-system",
    "'Segoe UI'",
    "Roboto",
    "'Helvetica Neue'",
    "Arial",
    "'Noto Sans'",
    "'Noto Sans SC'",
    "'PingFang SC'",
    "'Microsoft YaHei'",
    "sans-serif",
)
"""The operating system's own fonts. Soft's Montserrat draws E as "Ɛ" and M as "ᗰ" (formulas read V × Ɛ + Ɛ × H)."""
MONO_FONTS = ("ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "'DejaVu Sans Mono'", "monospace")
THEME = gr.themes.Soft(
    primary_hue="indigo", secondary_hue="amber", neutral_hue="slate", font=SYSTEM_FONTS, font_mono=MONO_FONTS
)
CSS = (Path(__file__).resolve().parent / "static" / "lab.css").read_text(encoding="utf-8")
"""Layout rules (narrow screens, the tab bar, wide tables): see app/static/lab.css."""
MODEL_EVENTS = {
    "sharing": ("layer_transitions", "sharing.button"),
    "masked": ("fill_mask", "mask.button"),
    "order": ("sentence_order", "order.button"),
    "attention": ("attention", "attention.button"),
    "sentiment": ("sentiment", "sentiment.button"),
}
"""Each model tab's main event and its button: run when the tab opens, cleared or run again when inputs change."""
EXAMPLE_STEPS = {
    "fill_mask": "mask_example",
    "sentence_order": "order_examples",
    "attention": "attention_example",
    "sentiment": "sentiment_example",
}
"""The language-switch step that puts a tab's example in the new language; its result is drawn after it."""


def lab_views() -> LabViews:
    """The functions the tabs wire to events: the app's own views, each model result marked with the inputs it
    answers (`freshness.stamped`), so that one landing after they changed is drawn again."""
    stamped = freshness.stamped
    sentence_order = stamped(model_views.sentence_order_view)
    return LabViews(
        parameters=views.parameters_view,
        preset=views.preset_view,
        preset_choices=views.preset_choices,
        preset_fields=views.preset_fields,
        compute=costs.compute_view,
        measure=costs.measure_view,
        sharing_configs=model_views.sharing_config_choices,
        sharing_modes=model_views.sharing_modes_view,
        layer_transitions=stamped(model_views.layer_transitions_view),
        fill_mask=stamped(model_views.fill_mask_view),
        mask_word=stamped(model_views.mask_word_view, edits=1, kept=3),  # the masked text; top-k, model, language
        sentence_order=sentence_order,
        split_paragraph=stamped(model_views.split_paragraph_view, edits=2, kept=3),  # A, B; model, language, other
        draw_other=model_views.draw_other_event(sentence_order),  # the other book's segment, then /sentence_order
        attention=stamped(model_views.attention_view),
        sentiment=stamped(sentiment_views.sentiment_view),
        sentiment_card=sentiment.card_markdown,
    )


TABS = (
    ("parameters", tab_parameters),
    ("sharing", tab_sharing),
    ("masked", tab_masked),
    ("order", tab_order),
    ("attention", tab_attention),
    ("sentiment", tab_sentiment),
)
"""Each tab's id (its label is the string `tab.<id>`, its elem_id `tab-<id>`) and the module that builds it."""


def build_app() -> gr.Blocks:
    """The whole app. Models are found now, but loaded only when a tab first needs one."""
    tr = Translations()
    models, default = shipped_models(), default_model()
    with gr.Blocks(title=t("app.title"), analytics_enabled=False) as demo:
        with gr.Row(equal_height=True):
            tr.add(gr.Markdown, text="app.intro", elem_id="lab-header")
            lang = tr.add(
                gr.Radio, LANGUAGES, value="en", label="app.language", elem_id="language", scale=0, min_width=200
            )
        ctx = TabContext(
            tr=tr,
            lang=lang,
            model=_model_picker(tr, models, default),
            views=lab_views(),
            shipped=tuple(models),
            default_model=default,
            compare_default=comparison_model(),
        )
        # 'wrap' renders every tab button (no overflow menu); lab.css then makes that one row scroll sideways.
        with gr.Tabs(overflow_behavior="wrap", elem_id="lab-tabs"):
            tabs: dict[str, gr.Tab] = {}
            for name, module in TABS:
                with tr.add(gr.Tab, label=f"tab.{name}", id=name, elem_id=f"tab-{name}") as tabs[name]:
                    module.build(ctx)
        # Our own footer: Gradio's ("Use via API · Settings") stays in English whatever the app's language.
        tr.add(gr.Markdown, text="app.footer", elem_id="lab-footer")
        events = freshness.keep_fresh(
            [(tabs[name], freshness.find_event(demo, api, button)) for name, (api, button) in MODEL_EVENTS.items()],
            lang,
            ctx.model,
        )
        # Labels first, alone and unqueued (a few ms of string look-ups): they show in well under a second.
        # "multiple": a second switch relabels at once, without waiting for the first one's redrawing to finish.
        event = lang.change(
            tr.updates,
            inputs=lang,
            outputs=tr.components,
            api_name="set_language",
            queue=False,
            show_progress="hidden",
            preprocess=False,
            trigger_mode="multiple",
        )
        steps: dict[str, Any] = {}
        for name, fn, inputs, outputs in tr.refreshers:
            # Charts and tables are drawn in a language; draw them again in the new one.
            steps[name] = event.then(
                fn,
                inputs=inputs,
                outputs=outputs,
                api_name=f"{name}_in_language",
                api_visibility="undocumented",
                **queues.LIGHT,
            )
        # Then each result on screen, after its tab's example has followed the language.
        freshness.rerun_events(events, lambda api: steps.get(EXAMPLE_STEPS.get(api, ""), event), lang)
        freshness.cancel_on_typing(demo, events)
    return demo


def picker_choices(models: list[str], lang: str = "en") -> list[tuple[str, str]]:
    """The model picker's entries: "automatic" first when the Chinese model is shipped, then every shipped model."""
    automatic = [(t("app.model.auto", lang), AUTO_MODEL)] if ZH_MODEL in models else []
    return automatic + [(name, name) for name in models]


def _model_picker(tr: Translations, models: list[str], default: str | None) -> gr.Dropdown:
    """With albert-lab-zh shipped the picker starts on "automatic" (the model for the text's language,
    `app.models.model_for`); without it, on the default model, as "automatic" would pick that one anyway."""
    info = "app.model.none" if not models else "app.model.info.auto" if ZH_MODEL in models else "app.model.info"
    value = AUTO_MODEL if ZH_MODEL in models else default
    return tr.add(
        gr.Dropdown,
        value=value,
        allow_custom_value=True,
        label="app.model",
        info=info,
        elem_id="model-picker",
        choices=lambda lang: picker_choices(models, lang),
    )


MAX_UPLOAD = "1mb"
"""No tab takes a file: the upload routes are closed (`app.door`); any other multipart body is bounded by this."""
SESSIONS_KEPT = 64
"""Sessions whose last output values Gradio keeps in memory (its default is 10,000, and every request over
the HTTP API is a session of its own: a leak under load). The least recently used go first; this app keeps
nothing a session needs there (no gr.State), so a page whose values went simply sends its inputs again."""
UNREAD_SECONDS = 30.0
"""An answer nobody has read for this long (two sweeps apart; a request abandoned over the HTTP API) is
dropped. Gradio would keep the unread answers of its last 2,000 sessions for good."""


def launch_options() -> dict[str, Any]:
    """Keyword arguments for `Blocks.launch`: address from the environment (as Spaces sets it), theme, CSS,
    the local copies of d3 / jQuery that the attention views load, the sentiment model's card, the
    bounds on uploads and kept sessions, and the page script that reports every edit of a text box."""
    port = os.environ.get("GRADIO_SERVER_PORT", "").strip()
    return {
        "server_name": os.environ.get("GRADIO_SERVER_NAME", "").strip() or "127.0.0.1",
        "server_port": int(port) if port else 7860,
        "theme": THEME,
        "css": CSS,
        "allowed_paths": attention_view.allowed_paths() + sentiment.allowed_paths(),
        "footer_links": [],
        "max_file_size": MAX_UPLOAD,
        "state_session_capacity": SESSIONS_KEPT,
        "js": freshness.EDITS_JS,
        "app_kwargs": door.app_kwargs(),  # request bodies capped, uploads closed (app.door)
    }


def bound_queue(
    demo: gr.Blocks, max_queued: int = queues.MAX_QUEUED, unread_seconds: float = UNREAD_SECONDS
) -> gr.Blocks:
    """Queue at most `max_queued` requests, answer a full queue with our "busy" sentence, drop answers
    left unread (swept every `unread_seconds`) and name the count of values an endpoint takes. The last three
    adjust Gradio's queue object, which has no option for them; each is skipped (with a warning) if a Gradio
    version lays it out differently. `app.py` keeps the defaults; the two bounds are arguments so that a test
    can fill a small queue and watch a quick sweep on a launched app."""
    demo.queue(max_size=max_queued, default_concurrency_limit=2)
    queue = getattr(demo, "_queue", None)
    _clear_arity_errors(demo)
    push = getattr(queue, "push", None)
    if push is None:
        logger.warning("this Gradio's queue has no push(); a full queue answers with Gradio's own message")
        return hosting.isolate(demo)

    sweeper: list[asyncio.Task] = []

    async def push_or_busy(*args: Any, **kwargs: Any) -> Any:
        if not sweeper:  # the first request: now there is a running event loop to sweep in
            sweeper.append(asyncio.get_running_loop().create_task(drop_unread_results(queue, unread_seconds)))
        success, detail, state = await push(*args, **kwargs)
        if state == "queue_full":
            detail = t("app.busy", "en", n=max_queued)
        return success, detail, state

    queue.push = push_or_busy
    return hosting.isolate(demo)  # each event in its cost group, its own busy answer (outside the one above)


def _clear_arity_errors(demo: gr.Blocks) -> None:
    """A request with fewer values than the endpoint takes is answered with a sentence naming the count,
    instead of Gradio's anonymous {"error": null} and a traceback in the log."""
    validate = getattr(demo, "validate_inputs", None)
    if validate is None:
        logger.warning("this Gradio checks input counts its own way; too few values get its generic error")
        return

    def validate_or_say(block_fn: Any, inputs: list[Any]) -> None:
        wanted = len(getattr(block_fn, "inputs", []) or [])
        if isinstance(inputs, list) and len(inputs) < wanted:
            raise gr.Error(
                t(
                    "api.err.arity",
                    "en",
                    name=getattr(block_fn, "api_name", None) or "this endpoint",
                    n=wanted,
                    got=len(inputs),
                ),
                print_exception=False,
            )
        validate(block_fn, inputs)

    demo.validate_inputs = validate_or_say


async def drop_unread_results(queue: Any, every: float = UNREAD_SECONDS) -> None:
    """Every `every` seconds, drop the messages of sessions whose waiting messages nobody read since the last
    sweep. A listening page or client empties its session's messages within milliseconds (heartbeats
    included), so only answers of requests sent and never collected stay unchanged that long.

    A session with a request still queued or running is kept until that request has finished: Gradio sends
    its next message to the session without checking that it still exists, and the KeyError stopped the
    queue's processing loop, so that no request of anyone was answered again (seen with a launched app,
    `tests/hostile/test_hostile_app_server.py`)."""
    pending, events = (
        getattr(queue, "pending_messages_per_session", None),
        getattr(queue, "pending_event_ids_session", None),
    )
    if not isinstance(pending, dict) or not isinstance(events, dict):
        logger.warning("this Gradio keeps unread answers its own way; abandoned answers are not dropped")
        return
    live = getattr(queue, "event_ids_to_events", None)
    live = live if isinstance(live, dict) else {}
    last: dict[str, int] = {}
    while True:
        await asyncio.sleep(every)
        waiting, dropped = {}, 0
        for session, messages in list(pending.items()):
            size = messages.qsize() if hasattr(messages, "qsize") else 0
            unfinished = any(event in live for event in events.get(session) or ())
            if size and last.get(session) == size and not unfinished:
                pending.pop(session, None)
                events.pop(session, None)
                dropped += 1
            elif size:
                waiting[session] = size
        last = waiting
        if dropped:
            logger.info("dropped the unread answers of %d abandoned request session(s)", dropped)
