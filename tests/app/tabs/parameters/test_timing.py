"""app/tabs/parameters/timing.py and /measure_speed's summary: interleaved rounds after a warm-up, median and
range per mode, per-round ratios, and the "within noise" verdict — driven by a fake clock, so every number is known."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from app.tabs.parameters.timing import RoundsPlan, Spread, compare, interleaved_times


class FakeClock:
    """A clock that moves only when a fake pass runs: each pass takes the next duration from its own list."""

    def __init__(self, durations: dict[str, list[float]]) -> None:
        self.now = 0.0
        self.durations = {name: list(values) for name, values in durations.items()}
        self.calls: list[str] = []

    def __call__(self) -> float:
        return self.now

    def runner(self, name: str) -> Callable[[], None]:
        def run() -> None:
            self.calls.append(name)
            self.now += self.durations[name].pop(0)

        return run


def test_rounds_are_interleaved_after_an_untimed_warm_up() -> None:
    # warm-up durations first (10 s each: would dominate every number if they were timed)
    clock = FakeClock({"a": [10, 1, 2, 3], "b": [10, 4, 5, 6]})
    samples = interleaved_times({"a": clock.runner("a"), "b": clock.runner("b")}, RoundsPlan(3, 3, 100), clock)
    assert samples == {"a": [1, 2, 3], "b": [4, 5, 6]}
    assert clock.calls == ["a", "b", "a", "b", "b", "a", "a", "b"]  # warm-ups, then A B, B A, A B


def test_rounds_stop_once_the_time_is_spent_but_never_before_the_minimum() -> None:
    clock = FakeClock({"a": [0] + [2.0] * 10, "b": [0] + [2.0] * 10})
    samples = interleaved_times({"a": clock.runner("a"), "b": clock.runner("b")}, RoundsPlan(7, 2, 5.0), clock)
    assert len(samples["a"]) == 2  # two rounds took 8 s > 5 s: no third
    clock = FakeClock({"a": [0] + [2.0] * 10, "b": [0] + [2.0] * 10})
    samples = interleaved_times({"a": clock.runner("a"), "b": clock.runner("b")}, RoundsPlan(7, 3, 1.0), clock)
    assert len(samples["b"]) == 3  # the minimum wins over the time limit
    with pytest.raises(ValueError, match="min_rounds"):
        RoundsPlan(rounds=2, min_rounds=3)


def test_median_range_and_ratio_within_each_round() -> None:
    samples = {"all": [0.010, 0.030, 0.012, 0.011, 0.020], "none": [0.011, 0.020, 0.010, 0.010, 0.040]}
    result = compare(samples, "none")
    assert result["all"].seconds == Spread(median=0.012, low=0.010, high=0.030)
    # per-round ratios 0.909, 1.5, 1.2, 1.1, 0.5 → median 1.1, range 0.5–1.5, which holds 1: within noise
    ratio = result["all"].ratio
    assert ratio.median == pytest.approx(1.1) and ratio.low == pytest.approx(0.5) and ratio.high == pytest.approx(1.5)
    assert result["all"].within_noise
    assert result["none"].ratio == Spread(1.0, 1.0, 1.0)


def test_a_difference_every_round_agrees_on_is_not_noise() -> None:
    # a busy spell (round 2) slows both modes alike: the per-round ratio stays at 0.8–0.9
    samples = {"all": [0.008, 0.040, 0.009], "none": [0.010, 0.050, 0.010]}
    result = compare(samples, "none")["all"]
    assert result.ratio.low == pytest.approx(0.8) and result.ratio.high == pytest.approx(0.9)
    assert not result.within_noise
    assert result.seconds.median == pytest.approx(0.009)  # the busy round moves the range, not the median
    with pytest.raises(ValueError, match="timings"):
        compare({"all": [1.0], "none": [1.0, 2.0]}, "none")


def _fake_measure(monkeypatch: pytest.MonkeyPatch, seconds: dict[str, list[float]]) -> dict:
    """`costs.measure` on a tiny config with fake passes: mode m's k-th timed call takes seconds[m][k]."""
    from albert.core.config import AlbertConfig
    from app.tabs.parameters import costs, timing

    clock = FakeClock({mode: [0.0, *values] for mode, values in seconds.items()})
    monkeypatch.setattr(costs.compute, "forward_pass", lambda config, b, t: clock.runner(config.sharing))
    monkeypatch.setattr(timing, "interleaved_times", lambda passes, plan: interleaved_times(passes, plan, clock))
    config = AlbertConfig(
        vocab_size=100, embedding_size=16, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64,
    )  # fmt: skip
    return costs.measure(config, 16)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_measure_reports_median_spread_and_says_when_it_is_noise(monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    from app.tabs.parameters.costs import measure_markdown, measure_render

    noisy = {
        "all": [0.010, 0.012, 0.030, 0.011, 0.010, 0.011, 0.012],
        "attention": [0.010] * 7,
        "ffn": [0.010] * 7,
        "none": [0.011, 0.010, 0.020, 0.012, 0.009, 0.012, 0.011],
    }
    result = _fake_measure(monkeypatch, noisy)
    assert result["rounds"] == 7
    row = result["modes"][0]
    assert (
        row["sharing"] == "all"
        and row["seconds"] == pytest.approx(0.011)
        and row["seconds_max"] == pytest.approx(0.030)
    )
    assert row["time_vs_none_min"] < 1 < row["time_vs_none_max"] and row["within_noise"]
    text = measure_markdown(result, lang)
    assert ("Within noise" if lang == "en" else "在噪声范围内") in text
    assert "11.0 ms (10.0–30.0)" in text  # median, then the range over the rounds
    status, _, figure = measure_render(result, lang)
    assert status == "" and figure.data[1].error_y.array[0] == pytest.approx(
        row["time_vs_none_max"] - row["time_vs_none"]
    )

    steady = {mode: [0.010] * 7 for mode in ("all", "attention", "ffn")} | {"none": [0.0125] * 7}
    text = measure_markdown(_fake_measure(monkeypatch, steady), lang)
    assert ("0.80 and 0.80" if lang == "en" else "0.80 到 0.80") in text and "Within noise" not in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_empty_chart_before_the_first_timing(lang: str) -> None:
    from app.tabs.parameters.costs import measure_render

    _, _, figure = measure_render(None, lang)
    (note,) = figure.layout.annotations
    assert ("No timing yet" if lang == "en" else "尚未测量") in note.text
