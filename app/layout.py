"""The page: header, language switch, model picker and the tabs, plus how to launch it."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import gradio as gr

from app import gradio_compat, hosting, settings
from app.hosting import door
from app.i18n import LANG_CODES, LANGUAGES, Translations, t
from app.models import (
    AUTO_MODEL,
    ZH_MODEL,
    default_model,
    shipped_models,
)
from app.models.hub_picker import hub_choices, picker_default
from app.page import runs
from app.page.endpoints import Endpoint
from app.tabs import TabContext
from app.tabs.attention import bertviz
from app.tabs.attention import tab as attention_tab
from app.tabs.masked import tab as masked_tab
from app.tabs.order import tab as order_tab
from app.tabs.parameters import tab as parameters_tab
from app.tabs.sentiment import classifier as sentiment
from app.tabs.sentiment import tab as sentiment_tab
from app.tabs.sharing import tab as sharing_tab
from app.tabs.training import tab as training_tab

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
STATIC = Path(__file__).resolve().parent / "static"
CSS = (STATIC / "lab.css").read_text(encoding="utf-8")
"""Layout rules (narrow screens, the tab bar, wide tables): see app/static/lab.css."""
PAGE_JS = gradio_compat.page_js(
    gradio_compat.EDITS_JS,
    *((STATIC / name).read_text(encoding="utf-8") for name in ("fit_charts.js", "keep_language.js")),
)
"""Run once when the page loads: every edit of a text box reaches Gradio (`gradio_compat.EDITS_JS`), a chart drawn
while its tab was hidden fits its box (app/static/fit_charts.js), and the language is kept across reloads and in
links, ?lang=zh (app/static/keep_language.js)."""
TABS = (
    ("parameters", parameters_tab),
    ("sharing", sharing_tab),
    ("masked", masked_tab),
    ("order", order_tab),
    ("attention", attention_tab),
    ("sentiment", sentiment_tab),
    ("training", training_tab),
)
"""Each tab's id (its label is the string `tab.<id>`, its elem_id `tab-<id>`) and the module that builds it (its
`build(ctx)`) and declares its endpoints (its `ENDPOINTS`)."""
SET_LANGUAGE = Endpoint("set_language", hosting.cached_updates(Translations().updates), "language")
"""The page's labels in the other language (`build_app` wires it with its page's own `Translations.updates`)."""
ENDPOINTS: tuple[Endpoint, ...] = (SET_LANGUAGE, *(endpoint for _, module in TABS for endpoint in module.ENDPOINTS))
"""Every endpoint of the lab: the language switch and those the tabs declare."""


def model_events() -> dict[str, Endpoint]:
    """Each model tab's main endpoint (the one with a button), by tab id: run when the tab opens, cleared or run again
    when its inputs change, drawn again after a language switch."""
    return {name: endpoint for name, module in TABS for endpoint in module.ENDPOINTS if endpoint.button}


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
            shipped=tuple(models),
            default_model=default,
            compare_default=AUTO_MODEL if models else None,
        )
        # 'wrap' renders every tab button (no overflow menu); lab.css then makes that one row scroll sideways.
        with gr.Tabs(overflow_behavior="wrap", elem_id="lab-tabs"):
            tabs: dict[str, gr.Tab] = {}
            for name, module in TABS:
                with tr.add(gr.Tab, label=f"tab.{name}", id=name, elem_id=f"tab-{name}") as tabs[name]:
                    module.build(ctx)
        # Our own footer: Gradio's ("Use via API · Settings") stays in English whatever the app's language.
        tr.add(gr.Markdown, text="app.footer", elem_id="lab-footer")
        # Labels first, in the browser: the page holds both languages' label updates (`relabel_js`) and applies them
        # the moment the switch is clicked, with no request. Sent by the server, each of the ~100 components it
        # relabels (the tabs and accordions with all they hold) became part of every later event's loading status in
        # Gradio 6's frontend, which copies them all on each status change: every event of the page cost more.
        # /set_language still answers the same updates to API clients (no trigger of its own; app.hosting caches it).
        switch = replace(SET_LANGUAGE, view=hosting.cached_updates(tr.updates))  # this page's labels, from a cache
        switch.on([], [lang], tr.components, show_progress="hidden")
        event = lang.change(
            None,
            inputs=[lang],
            outputs=tr.components,
            js=relabel_js(tr),
            api_name="relabel",
            api_visibility="private",
            queue=False,
            show_progress="hidden",
            trigger_mode="multiple",
        )
        # Examples, charts and tables are drawn in a language: all drawn again in the new one, by one event.
        redraw, inputs, outputs = tr.redraw()
        languages = hosting.language_positions([getattr(component, "elem_id", None) for component in inputs])
        drawn = event.then(
            hosting.served(redraw, "language", languages),
            inputs=inputs,
            outputs=outputs,
            api_name="page_in_language",
            api_visibility="undocumented",
            # the switch's server work: in the language group's line (100 waiting), so a classroom switching at once
            # is drawn in turn; in the light group's (64) a third of 96 pages were told to retry
            **hosting.queue_options("language"),
        )
        # The page says when its charts and tables are drawn in the language (`<html data-lab-drawn="zh">`), then the
        # visible tab's result is asked again, for its example in the new language (`app.page.runs`).
        drawn.then(None, inputs=[lang], js=DRAWN_JS, api_name="drawn", api_visibility="private", queue=False)
        tab_of_run = {endpoint.name: tabs[name] for name, endpoint in model_events().items()}
        runs.wire_page(list(ctx.runs.values()), tab_of_run, drawn, lang, ctx.model)
    return demo


DRAWN_JS = "(lang) => { document.documentElement.dataset.labDrawn = lang; return []; }"
"""Marks the page drawn in `lang` once the language switch's charts and tables have come (tests wait for it)."""


def relabel_js(tr: Translations) -> str:
    """The language switch as the page runs it: (lang) → every registered component's update in that language, as
    Gradio's server would send it (`gradio_compat.sent_updates`), written into the page once (~45 KB). It also sets
    `<html lang>`, so that a screen reader reads 中文 as Chinese and the browser picks Chinese glyphs."""
    sent = {code: gradio_compat.sent_updates(tr.components, tr.updates(code)) for code in LANG_CODES}
    tables = {code: json.dumps(updates, ensure_ascii=False, default=list) for code, updates in sent.items()}
    return (
        "(lang) => { const zh = lang === 'zh'; document.documentElement.lang = zh ? 'zh-CN' : 'en'; "
        "delete document.documentElement.dataset.labDrawn; "
        f"return zh ? {tables['zh']} : {tables['en']}; }}"
    )


def picker_choices(models: list[str], lang: str = "en") -> list[tuple[str, str]]:
    """The model picker's entries: "automatic" first when the Chinese model is shipped, then every shipped model,
    then the hub's real ALBERTs and BERTs that are cached here or downloadable now (`app.models.hub`)."""
    automatic = [(t("app.model.auto", lang), AUTO_MODEL)] if ZH_MODEL in models else []
    return automatic + [(name, name) for name in models] + hub_choices(lang)


def _model_picker(tr: Translations, models: list[str], default: str | None) -> gr.Dropdown:
    """With albert-lab-zh shipped the picker starts on "automatic" (the model for the text's language,
    `app.models.model_for`); without it, on the default model, as "automatic" would pick that one anyway."""
    info = "app.model.none" if not models else "app.model.info.auto" if ZH_MODEL in models else "app.model.info"
    value = picker_default(models, AUTO_MODEL if ZH_MODEL in models else default)  # a Space's ALBERT_LAB_DEFAULT_MODEL
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
"""No tab takes a file; Gradio's upload route still exists, so anything bigger is refused (HTTP 413)."""
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
    bounds on uploads and kept sessions, the page's scripts (`PAGE_JS`), and Gradio's
    monitoring dashboard off."""
    return {
        "server_name": settings.SERVER_NAME.read(),
        "server_port": int(settings.SERVER_PORT.number(7860)),
        "theme": THEME,
        "css": CSS,
        "allowed_paths": bertviz.allowed_paths() + sentiment.allowed_paths(),
        "footer_links": [],
        "max_file_size": MAX_UPLOAD,
        "state_session_capacity": SESSIONS_KEPT,
        "js": PAGE_JS,
        "app_kwargs": door.app_kwargs(),  # request bodies capped, uploads closed (app.hosting.door)
        # Gradio's /monitoring dashboard: any visitor's GET /gradio_api/monitoring printed its URL, with the key that
        # opens it, into the server's log (issue 43). Off: the route answers 403 and nothing is printed.
        "enable_monitoring": False,
    }


QUEUE_ANALYTICS = {"GRADIO_ANALYTICS_CACHE_FREQUENCY": "1000000000", "GRADIO_ANALYTICS_MAX_EVENTS": "2000"}
"""Gradio's queue keeps the last GRADIO_ANALYTICS_MAX_EVENTS events (default 10,000) and, after every
GRADIO_ANALYTICS_CACHE_FREQUENCY-th one (default: each), builds a pandas table of them all for its process-time
summary: 16% of the server's time under 32 users here (issue 35), then every 500th event a pause of the whole
server in the middle of a class's burst (issue 53). Only Gradio's monitoring dashboard reads the summary, and it is
off (`launch_options`): now it is never built. A value set in the environment is kept."""


QUEUE_POLL_SECONDS = 0.01
"""How often the queue looks for an event it can start while it has none (idle, or every slot of a waiting event's
cost group taken). Gradio looks every 1 ms: an idle `python app.py` spent ~3.7% of a core on it (measured through
/proc over 20 s), CPU a 2-vCPU Space's models and the test suite's other servers lack. An event may now start up to
10 ms later, against answers of 0.1 s and more."""


def bound_queue(
    demo: gr.Blocks, max_queued: int = hosting.MAX_QUEUED, unread_seconds: float = UNREAD_SECONDS
) -> gr.Blocks:
    """Queue at most `max_queued` requests, answer a full queue with our "busy" sentence, drop answers
    left unread (swept every `unread_seconds`) and name the count of values an endpoint takes. The last three
    adjust Gradio's internals (`app.gradio_compat`), which have no option for them; each is skipped (with a
    warning) if a Gradio version lays it out differently. `app.py` keeps the defaults; the two bounds are
    arguments so that a test can fill a small queue and watch a quick sweep on a launched app."""
    for name, value in QUEUE_ANALYTICS.items():  # read when the queue is made, just below
        os.environ.setdefault(name, value)
    # api_open=False: a queued event answers only through the queue. Gradio leaves its direct routes
    # (/gradio_api/run/predict, /gradio_api/api/<name>) open off Hugging Face Spaces, and a request sent there skipped
    # every cost group and waiting line (issue 35); the unqueued label switches still answer there.
    demo.queue(max_size=max_queued, default_concurrency_limit=2, api_open=False)
    gradio_compat.cache_component_signatures()  # a new session's state costs ~half
    gradio_compat.poll_queue_every(demo, QUEUE_POLL_SECONDS)
    optional = {endpoint.name: endpoint.optional for endpoint in ENDPOINTS if endpoint.optional}
    gradio_compat.name_input_counts(
        demo,
        lambda name, fewest, most, got: t(
            "api.err.arity", "en", name=name, n=most if fewest == most else f"{fewest} or {most}", got=got
        ),
        lambda name: optional.get(name, ()),
    )
    gradio_compat.answer_full_queue(
        demo,
        t("app.busy", "en", n=max_queued),
        on_first_request=lambda queue: gradio_compat.drop_unread_results(queue, unread_seconds),
    )
    return hosting.isolate(demo)  # each group's own busy answer (outside the one above)
