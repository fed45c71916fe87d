"""The *Train it yourself* tab: pick a lesson, press Train, watch two tiny ALBERTs learn side by side for a minute.

Train takes a ticket (`/train_start`); a timer then asks where it stands every `POLL_SECONDS` (`/train_poll`) until it
ends, and stops asking after; until each arm has logged two rows (a line to draw) it asks every `FIRST_POLL_SECONDS`,
so that the first curves are drawn within half a second of being logged, not up to 1.5 s after. While it waits in
line the page shows the lesson's recorded run; Stop (`/train_stop`) ends it. Choosing another lesson shows that
lesson's recorded run (`/train_recorded`).
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from app.page.endpoints import Endpoint
from app.tabs import TabContext
from app.tabs.training import views

POLL_SECONDS = 1.5
"""How often a training page asks for its progress: a light request that reads two small files."""
FIRST_POLL_SECONDS = 0.5
"""How often it asks while a running lesson's arms have not yet logged two rows each (a few seconds per lesson)."""


def poll_interval(answer: views.LessonAnswer) -> float:
    """`FIRST_POLL_SECONDS` while the lesson runs and an arm has logged fewer than two rows, else `POLL_SECONDS`."""
    rows = answer.raw.get("rows", {}).values()
    starting = answer.raw.get("state") == "running" and any(len(arm_rows) < 2 for arm_rows in rows)
    return FIRST_POLL_SECONDS if starting else POLL_SECONDS


def _for_page(answer: views.LessonAnswer) -> tuple[Any, ...]:
    """The answer with its last value, whether to keep polling, as the timer's state (and its interval)."""
    return (*answer[:-1], gr.Timer(poll_interval(answer), active=answer.polling))


def recorded(lesson: Any = views.DEFAULT_LESSON, lang: Any = "en") -> tuple[Any, ...]:
    return _for_page(views.recorded_view(lesson, lang))


def start(lesson: Any = views.DEFAULT_LESSON, previous: Any = "", lang: Any = "en") -> tuple[Any, ...]:
    return _for_page(views.start_view(lesson, previous, lang))


def poll(ticket: Any = "", lesson: Any = views.DEFAULT_LESSON, lang: Any = "en") -> tuple[Any, ...]:
    return _for_page(views.poll_view(ticket, lesson, lang))


def stop(ticket: Any = "", lesson: Any = views.DEFAULT_LESSON, lang: Any = "en") -> tuple[Any, ...]:
    return _for_page(views.stop_view(ticket, lesson, lang))


def in_language(ticket: Any = "", lesson: Any = views.DEFAULT_LESSON, lang: Any = "en") -> tuple[Any, ...]:
    """What the page shows (raw to commands) drawn again in `lang` for the ticket it held when the language changed;
    never the ticket or the timer. The redraw waits in its own queue, so a Train pressed after the switch can answer
    first: a redraw that wrote the old ticket back (and stopped the timer, that lesson having ended) lost the page
    its new lesson, whose status then stayed "stopped". Whatever it draws, the running lesson's next poll redraws."""
    answer = views.poll_view(ticket, lesson, lang)
    return (answer.raw, answer.status, answer.curves, answer.table, answer.verdict, answer.commands)


for _page, _view in (
    (recorded, views.recorded_view),
    (start, views.start_view),
    (poll, views.poll_view),
    (stop, views.stop_view),
):
    _page.__doc__ = _view.__doc__

TRAIN_RECORDED = Endpoint("train_recorded", recorded, "light")
TRAIN_START = Endpoint("train_start", start, "light")
TRAIN_POLL = Endpoint("train_poll", poll, "light")
TRAIN_STOP = Endpoint("train_stop", stop, "light")
ENDPOINTS = (TRAIN_RECORDED, TRAIN_START, TRAIN_POLL, TRAIN_STOP)


def build(ctx: TabContext) -> None:
    """The training tab; its endpoints are `ENDPOINTS`."""
    tr, lang = ctx.tr, ctx.lang
    first = views.recorded_view(views.DEFAULT_LESSON, "en")
    # On a projector the results take the first screen (issue 54): the verdict above the controls and the status on
    # the left, the table above the curves on the right; the explanation and the commands below. A phone stacks the
    # two columns in that order.
    with gr.Row():
        with gr.Column(scale=2, min_width=320):
            verdict = gr.Markdown(first.verdict, elem_id="training-verdict")
            lesson = tr.add(
                gr.Radio,
                value=views.DEFAULT_LESSON,
                label="training.lesson",
                choices=views.lesson_choices,
                elem_id="training-lesson",
            )
            with gr.Row():
                train = tr.add(gr.Button, text="training.button", variant="primary", elem_id="training-button")
                halt = tr.add(gr.Button, text="training.stop", variant="stop", elem_id="training-stop")
            status = gr.Markdown(first.status, elem_id="training-status")
        with gr.Column(scale=3, min_width=320):
            table = gr.Markdown(first.table, elem_id="training-table")
            curves = gr.Plot(first.curves, show_label=False, elem_id="training-curves")
    tr.add(gr.Markdown, text="training.explain")
    commands = gr.Markdown(first.commands, elem_id="training-commands")
    ticket = gr.Textbox("", visible=False, elem_id="training-ticket")
    with tr.add(gr.Accordion, label="common.raw", open=False):
        raw = gr.JSON(first.raw, show_label=False)
    timer = gr.Timer(POLL_SECONDS, active=False)

    outputs = [raw, status, curves, table, verdict, commands, ticket, timer]
    tr.refresh("training", in_language, [ticket, lesson, lang], [raw, status, curves, table, verdict, commands])
    TRAIN_RECORDED.on(lesson.input, [lesson, lang], outputs)
    TRAIN_START.on(train.click, [lesson, ticket, lang], outputs)
    TRAIN_POLL.on(timer.tick, [ticket, lesson, lang], outputs, show_progress="hidden")
    TRAIN_STOP.on(halt.click, [ticket, lesson, lang], outputs)
