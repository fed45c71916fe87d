"""The *Train it yourself* tab's endpoints: start a lesson, follow it, stop it, or show its recorded run.

Each answer is drawn from the arms' metrics rows (`app.tabs.training.runner.Snapshot`), live or recorded: the curves,
a table of parameters, tokens/s and scores, the probe sentence's top guesses, and a verdict computed from the last
held-out evaluation of each arm (never a canned sentence).
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, NamedTuple

import plotly.graph_objects as go

from app import gradio_compat, inputs
from app.i18n import t
from app.page.plots import PALETTE, base_layout, empty_figure, legend_below, plot_text
from app.tabs.training.lessons import LESSONS, WALL_SECONDS, Lesson, recorded_path
from app.tabs.training.readings import (
    arm_label,
    frequency_reading,
    half_interval,
    paired_gap,
    paper_reading,
    signed,
)
from app.tabs.training.runner import TRAINER, LineFull, Snapshot, read_rows

if TYPE_CHECKING:
    from albert.training.order_scoring import Proportion

logger = logging.getLogger(__name__)
DEFAULT_LESSON = "sharing"


class LessonAnswer(NamedTuple):
    """What every endpoint of the tab returns, in the tab's order."""

    raw: dict[str, Any]
    status: str
    curves: Any
    table: str
    verdict: str
    commands: str
    """The `python -m albert.pretrain` lines that train the lesson's arms as the page does."""
    ticket: str
    """The page's ticket ("" for the recorded run): the poll and Stop send it back."""
    polling: bool
    """Whether the page keeps polling (the timer's state)."""


def lesson_choices(lang: str = "en") -> list[tuple[str, str]]:
    return [(t(f"training.lesson.{lesson_id}", lang), lesson_id) for lesson_id in LESSONS]


def _lesson(value: Any, lang: str) -> Lesson:
    if not isinstance(value, str) or value not in LESSONS:
        raise inputs.InputError(t("training.err.lesson", lang, choices=", ".join(LESSONS)))
    return LESSONS[value]


def _ticket(value: Any, lang: str) -> str:
    if not isinstance(value, str) or len(value) > 64:
        raise inputs.InputError(t("training.err.ticket", lang))
    return value


# ----- reading the rows -----------------------------------------------------------------------------
def last(rows: list[dict[str, Any]], split: str, key: str) -> dict[str, Any] | None:
    """The last row of `split` that holds `key`."""
    return next((row for row in reversed(rows) if row.get("split") == split and key in row), None)


def order_proportion(row: dict[str, Any] | None, kind: str = "order") -> Proportion | None:
    """An evaluation row's order (or topic) preference as a proportion with its Wilson interval."""
    if row is None or f"{kind}_hits" not in row or not row.get("order_pairs"):
        return None
    from albert.training.order_scoring import Proportion  # imports torch: not while the page is being built

    return Proportion(float(row[f"{kind}_hits"]), int(row["order_pairs"]))


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def sharing_verdict(lesson: Lesson, rows: dict[str, list[dict[str, Any]]], lang: str, ended: bool = False) -> str:
    """The arms' last held-out MLM losses (the chart's last markers), their gap with its 95% interval ("the same
    within noise" when it holds 0), their parameters and speed; then what they learned beside the frequency-only
    line, and what the paper found on real data (`app.tabs.training.readings`). `ended`: the run will not evaluate
    again (stopped, finished, failed), so an arm without an evaluation gets no verdict, and the page says why."""
    shared, unshared = lesson.arms
    ends = {arm.name: last(rows.get(arm.name, []), "eval", "mlm_loss") for arm in lesson.arms}
    if any(end is None for end in ends.values()):
        return _unevaluated(lesson, rows, [name for name, end in ends.items() if end is None], lang, ended)
    a, b = ends[shared.name], ends[unshared.name]
    gap = paired_gap(a["mlm_loss"] - b["mlm_loss"], a.get("mlm_example_losses"), b.get("mlm_example_losses"))
    if gap is None:
        outcome, interval = ("lower" if a["mlm_loss"] < b["mlm_loss"] else "higher"), t("training.gap.none", lang)
    else:
        outcome = "noise" if gap.holds_zero else "lower" if gap.high < 0 else "higher"
        interval = t("training.gap", lang, low=signed(gap.low), high=signed(gap.high), n=gap.examples)
    speeds = {arm.name: _speed(rows.get(arm.name, [])) for arm in lesson.arms}
    verdict = t(
        f"training.verdict.{lesson.verdict}.{outcome}",
        lang,
        shared=arm_label(shared.name, lang),
        unshared=arm_label(unshared.name, lang),
        loss=f"{a['mlm_loss']:.2f}",
        other=f"{b['mlm_loss']:.2f}",
        gap=signed(a["mlm_loss"] - b["mlm_loss"]),
        interval=interval,
        ratio=f"{lesson.parameters(unshared) / lesson.parameters(shared):.1f}",
        steps=a["step"],
        other_steps=b["step"],
        speed=f"{speeds[shared.name]:,.0f}",
        other_speed=f"{speeds[unshared.name]:,.0f}",
    )
    readings = [frequency_reading(ends, lang), paper_reading(lesson.verdict, lang)]
    return "\n\n".join([verdict, *(reading for reading in readings if reading)])


def _unevaluated(
    lesson: Lesson, rows: dict[str, list[dict[str, Any]]], missing: list[str], lang: str, ended: bool
) -> str:
    """The verdict's place while arms (`missing`) have no held-out evaluation yet: it is coming, or, once the run has
    ended, it will not come, and why (the first evaluation is at step `eval_every`)."""
    if not ended:
        return t("training.verdict.pending", lang)
    step = max((row["step"] for row in rows.get(missing[0], [])), default=0)
    return t("training.verdict.none", lang, arm=arm_label(missing[0], lang), step=step, every=lesson.eval_every)


def order_verdict(lesson: Lesson, rows: dict[str, list[dict[str, Any]]], lang: str, ended: bool = False) -> str:
    """Each arm's held-out order preference with its 95% interval, then which arm reads order better (or neither);
    `ended` as in `sharing_verdict`."""
    found = {arm.name: order_proportion(last(rows.get(arm.name, []), "eval", "order_hits")) for arm in lesson.arms}
    if any(p is None for p in found.values()):
        return _unevaluated(lesson, rows, [name for name, p in found.items() if p is None], lang, ended)
    lines = []
    for arm in lesson.arms:
        order = found[arm.name]
        topic = order_proportion(last(rows[arm.name], "eval", "order_hits"), "topic")
        low, high = order.interval()
        lines.append(
            t(
                "training.verdict.order.arm",
                lang,
                arm=arm.name.upper(),
                rate=_percent(order.rate),
                n=order.total,
                low=_percent(low),
                high=_percent(high),
                where=t(f"training.ci.{order.verdict()}", lang),
                topic=_percent(topic.rate),
            )
        )
    first, second = (found[arm.name] for arm in lesson.arms)
    names = [arm.name.upper() for arm in lesson.arms]
    if first.interval()[0] > second.interval()[1]:
        lines.append(t("training.verdict.order.better", lang, better=names[0], worse=names[1]))
    elif second.interval()[0] > first.interval()[1]:
        lines.append(t("training.verdict.order.better", lang, better=names[1], worse=names[0]))
    else:
        lines.append(t("training.verdict.order.tie", lang))
    reached = {arm.name.upper(): first_step(rows[arm.name], SOON) for arm in lesson.arms}
    done = sorted((step, name) for name, step in reached.items() if step is not None)
    if done and (len(done) == 1 or done[0][0] < done[1][0]):
        later = t("training.verdict.order.later", lang, step=f"{done[1][0]:,}") if len(done) > 1 else ""
        lines[-1] += ("" if lang == "zh" else " ") + t(
            "training.verdict.order.sooner",
            lang,
            first=done[0][1],
            step=f"{done[0][0]:,}",
            share=_percent(SOON),
            other=next(name for name in reached if name != done[0][1]),
            later=later or t("training.verdict.order.never", lang),
        )
    return "\n\n".join(lines)


SOON = 0.9
"""The share of held-out pairs in the true order at which the order verdict says which arm got there first."""


def first_step(rows: list[dict[str, Any]], share: float) -> int | None:
    """The first evaluated step at which the arm preferred the true order in at least `share` of the pairs."""
    for row in rows:
        order = order_proportion(row) if row.get("split") == "eval" else None
        if order is not None and order.rate >= share:
            return int(row["step"])
    return None


def _speed(rows: list[dict[str, Any]]) -> float:
    """Tokens per second over the arm's training rows after the first (the first includes warming up)."""
    train = [row for row in rows if row.get("split") == "train"]
    if len(train) < 2:
        return float(train[0]["tokens_per_second"]) if train else 0.0
    seconds = train[-1]["elapsed_seconds"] - train[0]["elapsed_seconds"]
    return (train[-1]["tokens"] - train[0]["tokens"]) / seconds if seconds > 0 else 0.0


def table_markdown(lesson: Lesson, rows: dict[str, list[dict[str, Any]]], lang: str) -> str:
    """Parameters, steps, tokens/s and the last scores of each arm; the probe's top guesses in the sharing lesson."""
    lines = [t(f"training.table.{lesson.kind}", lang), "|" + "---|" * (6 if lesson.kind == "sharing" else 6)]
    for arm in lesson.arms:
        arm_rows = rows.get(arm.name, [])
        step = max((row["step"] for row in arm_rows), default=0)
        ev = last(arm_rows, "eval", "mlm_loss")
        loss = f"{ev['mlm_loss']:.2f}" if ev else "–"
        cells = [
            arm_label(arm.name, lang),
            f"{lesson.parameters(arm):,}",
            f"{step:,}",
            f"{_speed(arm_rows):,.0f}",
            loss,
        ]
        if lesson.kind == "sharing":
            probe = last(arm_rows, "eval", "probe")
            guesses = ", ".join(f"{code_span(p[:20])} {100 * q:.0f}%" for p, q in probe["probe"]) if probe else "–"
            cells.append(guesses)
        else:
            order = order_proportion(last(arm_rows, "eval", "order_hits"))
            cells.append(_percent(order.rate) if order else "–")
        lines.append("| " + " | ".join(cells) + " |")
    if lesson.kind == "sharing":
        lines.append("")
        lines.append(t("training.probe", lang, text=code_span(lesson.probe[:120])))
    return "\n".join(lines)


def code_span(piece: str) -> str:
    """A model's piece (or the lessons' probe sentence) as literal text in Markdown: a code span (longer fences
    around text that holds backticks), its pipes escaped so that a table cell stays one cell, line breaks as spaces."""
    text = piece.replace("\n", " ").replace("\r", " ").replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def curves_figure(lesson: Lesson, rows: dict[str, list[dict[str, Any]]], lang: str) -> go.Figure:
    """Sharing: each arm's training MLM loss by step. Order: each arm's held-out order accuracy by step, with its
    95% interval, against chance."""
    if not any(rows.values()):
        return empty_figure(t("training.curves.none", lang))
    figure = go.Figure()
    for colour, arm in zip(PALETTE, lesson.arms, strict=False):
        arm_rows = rows.get(arm.name, [])
        if lesson.kind == "sharing":
            label = arm_label(arm.name, lang)
            training = [row for row in arm_rows if row.get("split") == "train"]
            figure.add_scatter(
                x=[row["step"] for row in training],
                y=[row["mlm_loss"] for row in training],
                mode="lines",
                name=plot_text(t("training.trace.training", lang, arm=label)),
                line=dict(color=colour, width=1),
                opacity=0.45,
            )
            held = [row for row in arm_rows if row.get("split") == "eval" and "mlm_loss" in row]
            figure.add_scatter(
                x=[row["step"] for row in held],
                y=[row["mlm_loss"] for row in held],
                error_y=dict(type="data", array=[_half_interval(row) for row in held], visible=True),
                mode="lines+markers",
                name=plot_text(t("training.trace.held_out", lang, arm=label)),
                line=dict(color=colour, width=3),
                meta="held-out",
            )
            continue
        points = [row for row in arm_rows if row.get("split") == "eval" and order_proportion(row)]
        shares = [order_proportion(row) for row in points]
        bounds = [p.interval() for p in shares]
        figure.add_scatter(
            x=[row["step"] for row in points],
            y=[p.rate for p in shares],
            error_y=dict(
                type="data",
                symmetric=False,
                array=[high - p.rate for p, (_, high) in zip(shares, bounds, strict=True)],
                arrayminus=[p.rate - low for p, (low, _) in zip(shares, bounds, strict=True)],
            ),
            mode="lines+markers",
            name=plot_text(arm.name.upper()),
            line=dict(color=colour),
        )
    if lesson.kind == "order":
        figure.add_hline(y=0.5, line_dash="dot", line_color="#6b7280")
    frequency = _frequency_line(lesson, rows)
    if frequency is not None:
        figure.add_hline(
            y=frequency,
            line_dash="dot",
            line_color="#6b7280",
            annotation_text=plot_text(f"{t('training.curves.frequency', lang)} {frequency:.2f}"),
            annotation_position="bottom right",
        )
    title, axis = (
        ("training.curves.loss", "training.axis.loss")
        if lesson.kind == "sharing"
        else ("training.curves.order", "training.axis.order")
    )
    figure.update_layout(
        **base_layout(
            title=t(title, lang),
            xaxis=dict(title=t("training.axis.step", lang)),
            yaxis=dict(title=t(axis, lang), **({"range": [0, 1.02]} if lesson.kind == "order" else {})),
            **legend_below(len(lesson.arms)),
        )
    )
    return figure


def _half_interval(row: dict[str, Any]) -> float:
    """Half the 95% interval of an evaluation's loss, from its examples' losses (0 when it holds none)."""
    return half_interval(row.get("mlm_example_losses") or [])


def _frequency_line(lesson: Lesson, rows: dict[str, list[dict[str, Any]]]) -> float | None:
    """The held-out loss of guessing by frequency alone (the same blanks for both arms), for a sharing-kind lesson."""
    if lesson.kind != "sharing":
        return None
    row = last(rows.get(lesson.arms[0].name, []), "eval", "mlm_frequency_loss")
    return row["mlm_frequency_loss"] if row else None


def render(lesson: Lesson, snapshot: Snapshot | None, lang: str, status: str, polling: bool) -> LessonAnswer:
    """The tab's outputs for `snapshot` (None: the lesson's recorded run)."""
    recorded = snapshot is None or snapshot.state == "waiting"
    rows = recorded_rows(lesson) if recorded else snapshot.rows
    verdict = sharing_verdict if lesson.kind == "sharing" else order_verdict
    label = t("training.recorded.label", lang) if recorded else ""
    raw = {
        "lesson": lesson.id,
        "state": snapshot.state if snapshot else "recorded",
        "position": snapshot.position if snapshot else 0,
        "elapsed_seconds": round(snapshot.elapsed, 1) if snapshot else 0.0,
        "reason": snapshot.reason if snapshot else "",
        "recorded": recorded,
        "rows": rows,
        "commands": [lesson.command(arm) for arm in lesson.arms],
    }
    return LessonAnswer(
        raw,
        status,
        curves_figure(lesson, rows, lang),
        label + table_markdown(lesson, rows, lang),
        verdict(lesson, rows, lang, ended=not recorded and snapshot.state in ("finished", "stopped", "failed")),
        commands_markdown(lesson.id, lang),
        snapshot.ticket if snapshot else "",
        polling,
    )


def recorded_rows(lesson: Lesson) -> dict[str, list[dict[str, Any]]]:
    """The shipped recording of `lesson` (empty rows when it is not shipped)."""
    return {arm.name: read_rows(recorded_path(lesson, arm)) for arm in lesson.arms}


def _refusal(error: Exception, lang: str) -> LessonAnswer:
    return LessonAnswer({"error": str(error)}, f"⚠️ {error}", empty_figure(str(error)), "", "", "", "", False)


def recorded_view(lesson: Any = DEFAULT_LESSON, lang: Any = "en") -> LessonAnswer:
    """/train_recorded: the lesson's shipped recording, and the commands that made it."""
    lang = inputs.language(lang)
    try:
        chosen = _lesson(lesson, lang)
    except inputs.InputError as error:
        return _refusal(error, lang)
    return render(chosen, None, lang, t("training.status.idle", lang, cap=f"{WALL_SECONDS:g}"), False)


def start_view(lesson: Any = DEFAULT_LESSON, previous: Any = "", lang: Any = "en") -> LessonAnswer:
    """/train_start: take a ticket for `lesson` (train at once or wait in line); poll it with /train_poll. The page's
    `previous` ticket, if it still waits or runs, is stopped first ("" for none)."""
    lang = inputs.language(lang)
    try:
        chosen = _lesson(lesson, lang)
        previous = _ticket(previous, lang)
        if previous:
            TRAINER.stop(previous)
        ticket = TRAINER.start(chosen.id, getattr(gradio_compat.current_request(), "session_hash", None))
    except inputs.InputError as error:
        return _refusal(error, lang)
    except LineFull:
        return render(LESSONS.get(lesson, LESSONS[DEFAULT_LESSON]), None, lang, t("training.busy", lang), False)
    return snapshot_answer(chosen, TRAINER.poll(ticket), lang)


def poll_view(ticket: Any = "", lesson: Any = DEFAULT_LESSON, lang: Any = "en") -> LessonAnswer:
    """/train_poll: where the ticket stands (its place in line and the recorded run, or the live rows). A page that
    stops asking for ~15 s loses its ticket: the lesson is cancelled."""
    lang = inputs.language(lang)
    try:
        chosen = _lesson(lesson, lang)
        ticket = _ticket(ticket, lang)
    except inputs.InputError as error:
        return _refusal(error, lang)
    snapshot = TRAINER.poll(ticket)
    if snapshot.state == "unknown":
        idle = t("training.status.idle", lang, cap=f"{WALL_SECONDS:g}")
        return render(chosen, None, lang, t("training.status.unknown", lang) if ticket else idle, False)
    return snapshot_answer(LESSONS[snapshot.lesson], snapshot, lang)


def stop_view(ticket: Any = "", lesson: Any = DEFAULT_LESSON, lang: Any = "en") -> LessonAnswer:
    """/train_stop: leave the line or end the training; what it had learned stays on the page."""
    lang = inputs.language(lang)
    try:
        ticket = _ticket(ticket, lang)
    except inputs.InputError as error:
        return _refusal(error, lang)
    TRAINER.stop(ticket)
    return poll_view(ticket, lesson, lang)


def snapshot_answer(lesson: Lesson, snapshot: Snapshot, lang: str) -> LessonAnswer:
    """The outputs for a live ticket: its place in line, its progress, or how it ended."""
    cap = f"{WALL_SECONDS:g}"
    if snapshot.state == "waiting":
        status = t("training.status.waiting", lang, n=snapshot.position, wait=f"{snapshot.wait:.0f}")
        return render(lesson, snapshot, lang, status, True)
    steps = " · ".join(
        f"{arm_label(name, lang)} {max((row['step'] for row in rows), default=0)}"
        for name, rows in snapshot.rows.items()
    )
    if snapshot.state == "running":
        phase = running_phase(lesson, snapshot.rows)
        status = t(f"training.status.{phase}", lang, s=f"{snapshot.elapsed:.0f}", cap=cap, steps=steps)
        return render(lesson, snapshot, lang, status, True)
    key = {
        "finished": "training.status.finished",
        "stopped": "training.status.stopped",
        "failed": "training.status.failed",
    }[snapshot.state]
    status = t(key, lang, s=f"{snapshot.elapsed:.0f}", cap=cap, steps=steps)
    if snapshot.reason == "wall":
        status += " " + t("training.status.capped", lang, cap=cap)
    return render(lesson, snapshot, lang, status, False)


def running_phase(lesson: Lesson, rows: dict[str, list[dict[str, Any]]]) -> str:
    """What a running lesson is doing, from its rows: "starting" (an arm has logged nothing yet: Python, torch and
    the text load), "evaluating" (an arm's last training row is at an evaluation step whose held-out row has not
    come yet) or "running" (training)."""
    arm_rows = [rows.get(arm.name, []) for arm in lesson.arms]
    if any(not found for found in arm_rows):
        return "starting"
    for found in arm_rows:
        step = max(row["step"] for row in found)
        evaluated = any(row.get("split") == "eval" and row["step"] == step for row in found)
        if step % lesson.eval_every == 0 and not evaluated:
            return "evaluating"
    return "running"


def commands_markdown(lesson: Any = DEFAULT_LESSON, lang: Any = "en") -> str:
    """The command lines that train the lesson's arms as the page does."""
    lang = inputs.language(lang)
    chosen = LESSONS.get(lesson) if isinstance(lesson, str) else None
    if chosen is None:
        return ""
    lines = "\n".join(chosen.command(arm) for arm in chosen.arms)
    return t("training.commands", lang, commands=f"```bash\n{lines}\n```")
