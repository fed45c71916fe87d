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


def held_out(step: int, losses: list[float], frequency: list[float] | None = None, probe: bool = False) -> dict:
    """An evaluation row with each example's loss (and the frequency guess's): its loss is their mean."""
    row = eval_row(step, sum(losses) / len(losses), probe=probe) | {"mlm_example_losses": losses}
    if frequency is not None:
        row |= {"mlm_frequency_loss": sum(frequency) / len(frequency), "mlm_example_frequency_losses": frequency}
    return row


NOISE = [0.3, -0.3] * 16
"""Per-example wobble of 32 held-out examples (a spread of 0.3: an interval of ±0.11 around a gap)."""
OTHER_NOISE = [0.3, -0.3, -0.3, 0.3] * 8
"""Another wobble of the same spread: the examples' gaps between two arms then vary as much."""


def test_the_sharing_verdict_reads_the_gap_with_its_interval_and_quotes_the_charts_last_points() -> None:
    lesson = LESSONS["sharing"]
    same = [6.1 + wobble for wobble in NOISE]
    rows = {
        "all": [
            *(train_row(5, 7.0, 1.0), train_row(25, 6.0, 5.0)),
            held_out(25, [x + 0.02 + w for x, w in zip(same, OTHER_NOISE, strict=True)], probe=True),
        ],
        "none": [train_row(5, 7.0, 1.0), train_row(20, 6.0, 6.0), held_out(20, same)],
    }
    verdict = views.sharing_verdict(lesson, rows, "en")
    assert verdict.startswith("**Verdict: the same within noise.** The shared model (all) ended at a held-out")
    assert (
        "loss of 6.12, the unshared one (none) at 6.10: a difference of +0.02 (95% interval -0.09 to +0.13" in verdict
    )
    assert "2.4× fewer parameters" in verdict and "25 steps at 5,000 tokens/s against 20 at 3,000" in verdict
    figure = views.curves_figure(lesson, rows, "en")
    markers = [trace for trace in figure.data if trace.meta == "held-out"]
    assert [f"{trace.y[-1]:.2f}" for trace in markers] == ["6.12", "6.10"]  # the verdict's figures
    rows["all"][-1] = held_out(25, [x - 0.3 for x in same])
    assert "ended *lower*: a held-out masked-word loss of 5.80 against the unshared one's (none) 6.10" in (
        views.sharing_verdict(lesson, rows, "en")
    )
    rows["all"][-1] = held_out(25, [x + 0.3 for x in same])
    assert "ended *higher*" in views.sharing_verdict(lesson, rows, "en")
    zh = views.sharing_verdict(lesson, rows, "zh")
    assert "共享模型（全部共享（ALBERT））最终 *更高*" in zh and "多 2.4 倍" in zh
    table = views.table_markdown(lesson, rows, "en")
    assert "| all | 289,664 | 25 | 5,000 | 6.40 |" in table
    assert "| 不共享（BERT） | 687,104 | 20 |" in views.table_markdown(lesson, rows, "zh")
    assert views.sharing_verdict(lesson, {"all": rows["all"], "none": []}, "en") == views.t(
        "training.verdict.pending", "en"
    )


def test_the_frequency_line_says_whether_the_models_read_the_context() -> None:
    lesson = LESSONS["sharing"]
    guess = [6.2 + wobble for wobble in NOISE]
    near = [x - 0.01 + w for x, w in zip(guess, OTHER_NOISE, strict=True)]
    rows = {"all": [held_out(50, near, guess)], "none": [held_out(50, guess, guess)]}
    verdict = views.sharing_verdict(lesson, rows, "en")
    assert "scores 6.20 on these blanks (the dotted line). Neither model is clearly below it" in verdict
    assert "all -0.01 [-0.12, +0.10]; none 0.00 [0.00, 0.00]" in verdict
    figure = views.curves_figure(lesson, rows, "en")
    assert figure.layout.shapes[0].y0 == pytest.approx(6.2)  # the dotted line is the same figure
    rows["all"] = [held_out(50, [x - 0.5 + w / 3 for x, w in zip(guess, NOISE, strict=True)], guess)]
    verdict = views.sharing_verdict(lesson, rows, "en")
    assert "all is clearly below it (all -0.50 [-0.54, -0.46]; none 0.00 [0.00, 0.00]" in verdict
    assert "Table 4" in verdict and "80.1" in verdict and "81.6" in verdict  # what the paper found, longer
    assert "表 4" in views.sharing_verdict(lesson, rows, "zh")


def test_after_an_early_stop_the_verdict_says_none_will_come_and_why() -> None:
    lesson = LESSONS["sharing"]
    rows = {"all": [train_row(5, 7.0, 1.0), train_row(30, 6.5, 4.0)], "none": [train_row(25, 6.5, 4.0)]}
    assert views.sharing_verdict(lesson, rows, "en") == views.t("training.verdict.pending", "en")
    ended = views.sharing_verdict(lesson, rows, "en", ended=True)
    assert ended.startswith("**No verdict:** all stopped at step 30, before its first held-out evaluation (every 50")
    order = LESSONS["order-books"]
    assert views.order_verdict(order, {"sop": [train_row(10, 7.0, 1.0)], "nsp": []}, "zh", ended=True).startswith(
        "**没有结论：** SOP 在第 10 步停止"
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
    assert len(answer.curves.data) == 4 and answer.table.startswith("**Recorded run**")  # training and held-out
    assert answer.commands.count("python -m albert.pretrain") == 2
    assert answer.verdict.startswith("**Verdict: the same within noise.** The shared model (all) ended at ")
    assert "2.4× fewer parameters" in answer.verdict and "over the same 64 held-out examples" in answer.verdict
    assert "(the dotted line). Neither model is clearly below it" in answer.verdict


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
        "e16": [train_row(5, 7.0, 1.0), train_row(10, 6.0, 2.0), held_out(10, [6.5 + w for w in NOISE])],
        "e128": [train_row(5, 7.0, 1.0), train_row(10, 6.0, 3.0), held_out(10, [6.25 + w for w in NOISE])],
    }
    verdict = views.sharing_verdict(lesson, rows, "en")
    assert verdict.startswith("**Verdict:** the factorized model (E 16) ended *higher*: a held-out masked-word loss")
    assert "of 6.50 against the E = H one's (E 128) 6.25" in verdict and "**2.3× more parameters** paid" in verdict
    assert "Table 3" in verdict


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


def test_the_status_names_each_phase_of_a_running_lesson() -> None:
    from app.tabs.training.runner import Snapshot

    lesson = LESSONS["sharing"]
    assert views.running_phase(lesson, {"all": [], "none": []}) == "starting"
    assert views.running_phase(lesson, {"all": [train_row(5, 7.0, 1.0)], "none": []}) == "starting"
    rows = {"all": [train_row(45, 7.0, 1.0)], "none": [train_row(40, 7.0, 1.0)]}
    assert views.running_phase(lesson, rows) == "running"
    rows["all"].append(train_row(50, 6.9, 2.0))  # step 50: its held-out evaluation runs now
    assert views.running_phase(lesson, rows) == "evaluating"
    rows["all"].append(held_out(50, [6.9, 7.0]))
    assert views.running_phase(lesson, rows) == "running"
    snapshot = Snapshot("t", "sharing", "running", elapsed=3.2, rows={"all": [], "none": []})
    assert views.snapshot_answer(lesson, snapshot, "en").status.startswith("⏳ Starting: the two models are loading")
    assert "正在启动" in views.snapshot_answer(lesson, snapshot, "zh").status
    waiting = Snapshot("t", "sharing", "waiting", position=2, wait=95.4)
    assert "number **2** in line, starting within about 95 s" in views.snapshot_answer(lesson, waiting, "en").status
