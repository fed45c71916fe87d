"""The *Train it yourself* tab's answers, drawn from recorded rows: curves, table, computed verdicts, refusals."""

from __future__ import annotations

import json

import pytest

from albert.cli import parse_config
from albert.commands.pretrain import PretrainConfig
from app.tabs.training import views
from app.tabs.training.lessons import LESSONS, recorded_path
from app.tabs.training.runner import read_rows


def eval_row(step: int, loss: float, hits: float = 0.0, pairs: int = 0, probe: bool = False) -> dict:
    row = {"step": step, "split": "eval", "mlm_loss": loss, "mlm_accuracy": 0.1, "tokens": step * 100}
    if pairs:
        row.update(order_hits=hits, topic_hits=pairs / 2, order_pairs=pairs)
    if probe:
        row["probe"] = [["▁the", 0.25], [",", 0.125]]
    return row


def train_row(step: int, loss: float, seconds: float) -> dict:
    return {"step": step, "split": "train", "mlm_loss": loss, "tokens": step * 1000, "elapsed_seconds": seconds}


@pytest.mark.parametrize("lesson_id", sorted(LESSONS))
def test_each_arm_is_a_command_the_library_accepts(lesson_id: str) -> None:
    lesson = LESSONS[lesson_id]
    for arm in lesson.arms:
        cfg = parse_config(PretrainConfig, lesson.argv(arm, "runs/x"))
        assert cfg.threads == 1 and cfg.max_minutes == 0.75 and cfg.seed == 0
        assert lesson.command(arm).startswith("python -m albert.pretrain --corpus assets/training/")
    configs = [lesson.config(arm) for arm in lesson.arms]
    assert configs[0].vocab_size == (2000 if lesson.text == "books" else 48)


def test_sharing_counts_fewer_parameters_for_the_shared_arm() -> None:
    lesson = LESSONS["sharing"]
    shared, unshared = (lesson.parameters(arm) for arm in lesson.arms)
    assert (shared, unshared) == (289_664, 687_104)


def test_the_sharing_verdict_is_computed_from_the_rows() -> None:
    lesson = LESSONS["sharing"]
    rows = {
        "all": [train_row(5, 7.0, 1.0), train_row(25, 6.0, 5.0), eval_row(25, 6.25, probe=True)],
        "none": [train_row(5, 7.0, 1.0), train_row(20, 6.0, 6.0), eval_row(20, 6.0)],
    }
    verdict = views.sharing_verdict(lesson, rows, "en")
    assert "6.25, within 0.25 of the unshared one's 6.00" in verdict
    assert "2.4× fewer parameters" in verdict and "25 steps at 5,000 tokens/s against 20 at 3,000" in verdict
    rows["all"][-1]["mlm_loss"] = 5.5
    assert "*below* the unshared" in views.sharing_verdict(lesson, rows, "en")
    assert "少 2.4 倍" in views.sharing_verdict(lesson, rows, "zh")
    rows["all"][-1]["mlm_loss"] = 5.998
    assert "reached the same held-out masked-word loss as the unshared one (6.00 against 6.00)" in (
        views.sharing_verdict(lesson, rows, "en")
    )
    rows["all"][-1]["mlm_loss"] = 5.5
    table = views.table_markdown(lesson, rows, "en")
    assert "| all | 289,664 | 25 | 5,000 | 5.50 | ▁the 25%, , 12% |" in table
    assert views.sharing_verdict(lesson, {"all": rows["all"], "none": []}, "en") == views.t(
        "training.verdict.pending", "en"
    )


def test_the_order_verdict_reads_the_wilson_intervals() -> None:
    lesson = LESSONS["order-ordinals"]
    rows = {"sop": [eval_row(50, 3.0, 120, 128)], "nsp": [eval_row(50, 3.0, 66, 128)]}
    verdict = views.order_verdict(lesson, rows, "en")
    assert "**SOP** prefers the true order in 93.8% of 128 held-out pairs (95% interval 88.2%–96.8%: above chance)" in (
        verdict
    )
    assert "not distinguishable from chance" in verdict and "SOP reads sentence order better than NSP" in verdict
    assert "SOP got there first: 90.0% of the pairs at step 50, NSP not within this run." in verdict
    rows["nsp"] = [eval_row(50, 3.0, 66, 128), eval_row(100, 3.0, 118, 128)]
    verdict = views.order_verdict(lesson, rows, "en")
    assert "cannot be told apart (their intervals overlap). SOP got there first" in verdict
    assert "90.0% of the pairs at step 50, NSP at step 100." in verdict


def test_recorded_view_draws_the_shipped_recording_with_its_commands() -> None:
    answer = views.recorded_view("sharing", "en")
    assert answer.raw["recorded"] and not answer.polling and answer.ticket == ""
    assert len(answer.curves.data) == 2 and answer.table.startswith("**Recorded run**")
    assert answer.commands.count("python -m albert.pretrain") == 2
    assert answer.verdict.startswith("**Verdict:** the shared model (all) reached ")
    assert "2.4× fewer parameters" in answer.verdict


def test_the_shipped_order_recording_shows_sop_learning_order_where_the_text_holds_it() -> None:
    lesson = LESSONS["order-ordinals"]
    ends = {arm.name: views.last(read_rows(recorded_path(lesson, arm)), "eval", "order_hits") for arm in lesson.arms}
    sop = views.order_proportion(ends["sop"])
    assert sop.total >= 100 and sop.interval()[0] > 0.5, sop.as_dict()
    rows = {arm.name: read_rows(recorded_path(lesson, arm)) for arm in lesson.arms}
    nsp_step = views.first_step(rows["nsp"], views.SOON)
    assert views.first_step(rows["sop"], views.SOON) < (nsp_step or 10**9)  # SOP reads the order first
    assert "SOP" in views.recorded_view("order-ordinals", "en").verdict


@pytest.mark.parametrize("lesson", [7, "nope", None, ["sharing"]])
def test_a_bad_lesson_is_refused_with_one_sentence(lesson) -> None:
    answer = views.recorded_view(lesson, "en")
    assert answer.status.startswith(
        "⚠️ Unknown lesson; the lessons are: sharing, embedding, order-ordinals, order-books."
    )
    assert json.dumps(answer.raw) and not answer.polling
    assert views.start_view(lesson, "", "zh").status.startswith("⚠️ 没有这一课")


def test_a_bad_or_unknown_ticket() -> None:
    assert views.poll_view(["x"], "sharing", "en").status.startswith("⚠️ The ticket must be the text /train_start")
    unknown = views.poll_view("0" * 32, "sharing", "en")
    assert unknown.status.startswith("ℹ️ That training is no longer known") and unknown.raw["recorded"]
    assert views.poll_view("", "sharing", "zh").status.startswith("ℹ️ 这是本课的一次录制结果")  # after a switch


def test_the_embedding_lesson_says_what_the_small_e_saves() -> None:
    lesson = LESSONS["embedding"]
    assert [lesson.config(arm).embedding_size for arm in lesson.arms] == [16, 128]
    rows = {
        "e16": [train_row(5, 7.0, 1.0), train_row(10, 6.0, 2.0), eval_row(10, 6.5)],
        "e128": [train_row(5, 7.0, 1.0), train_row(10, 6.0, 3.0), eval_row(10, 6.25)],
    }
    verdict = views.sharing_verdict(lesson, rows, "en")
    assert verdict.startswith("**Verdict:** the factorized model (e16) reached a held-out masked-word loss of 6.50")
    assert "within 0.25 of the E = H one's 6.25, with **2.3× fewer parameters**" in verdict


def test_the_page_asks_every_half_second_until_each_arm_has_logged_two_rows() -> None:
    from app.tabs.training import tab

    recorded = views.recorded_view("sharing", "en")
    running = recorded._replace(
        raw={**recorded.raw, "state": "running", "rows": {"all": [train_row(5, 7.0, 1.0)], "none": []}}, polling=True
    )
    timer = tab._for_page(running)[-1]
    assert (timer.value, timer.active) == (tab.FIRST_POLL_SECONDS, True) and tab.FIRST_POLL_SECONDS == 0.5
    lines = {name: [train_row(5, 7.0, 1.0), train_row(10, 6.5, 2.0)] for name in ("all", "none")}
    assert tab.poll_interval(running._replace(raw={**running.raw, "rows": lines})) == tab.POLL_SECONDS == 1.5
    waiting = running._replace(raw={**running.raw, "state": "waiting"})  # in line, the recorded run is shown
    assert tab.poll_interval(waiting) == tab.POLL_SECONDS
    assert tab._for_page(recorded)[-1].active is False
