"""Each stop of the teacher's guides, once: what a teacher does on the page and what the page then shows.

One table per guide (`guide.md`: English, a 1,400 × 1,000 desktop; `guide.zh.md`: 中文, a 390 × 844 phone). Two
checks read it, so the guide and the page cannot drift apart:
- `tests/docs/test_guide_stops.py` (no browser): every figure a stop shows is quoted in its guide, every control a
  step uses is named there by the page's own label (`app/i18n`), and the stop's heading names its tab;
- `tests/app/test_guide_walk.py` (Chromium on `python app.py` with the shipped models): the steps done literally,
  stop after stop in one page, and every figure read off the page (a chart's figures from its drawn traces).

`check_examples.py` checks the same figures against the library; this table checks them against the page.
"""

from __future__ import annotations

from dataclasses import dataclass

CHARTS = "charts"
"""A `shows` target: the figures of every chart on the open tab (each trace's values, "7.69, 3.49, …" with two
decimals and "26.9°, 17.9°, …" with one), as the page draws them."""


@dataclass(frozen=True)
class Step:
    """One action on the page."""

    do: str
    """"tab" (open the tab `target`), "example" (click the example row holding `text`), "fill" (type `text` into
    the box #`target`), "click" (press the button #`target`), "model" (pick `text` in the page's model picker) or
    "see" (the page shows `text` in #`target`, or in its charts: `CHARTS`, before the next step)."""
    target: str = ""
    text: str = ""


@dataclass(frozen=True)
class Stop:
    number: int
    tab: str
    """The tab's id (its label is the string `tab.<id>`)."""
    steps: tuple[Step, ...]
    shows: tuple[tuple[str, str], ...]
    """(element id or `CHARTS`, a text the page shows there once the steps ran), each quoted by the guide."""
    labels: tuple[str, ...] = ()
    """String keys of the controls the guide names (its text must use the page's label)."""


SAILOR = "The old sailor walked along the river and remembered the distant lighthouse."
CAT = "The cat sat on the mat because it was tired."
_PARAMETERS = Stop(
    1,
    "parameters",
    (Step("tab", "parameters"),),
    (("parameters-totals", "11,683,584"), ("embedding-arithmetic", "23,040,000"), ("embedding-arithmetic", "98,304")),
)
_SHARING = Stop(
    2,
    "sharing",
    (Step("tab", "sharing"), Step("fill", "sharing-text", SAILOR), Step("click", "sharing-button")),
    (
        (CHARTS, "7.69, 3.49, 2.76, 1.94, 1.65, 1.48"),
        (CHARTS, "7.87, 7.65, 3.27, 2.22, 3.79, 6.04"),
        (CHARTS, "26.9°"),
        (CHARTS, "7.5°"),
        (CHARTS, "31.0°"),
    ),
    ("sharing.button",),
)
_ATTENTION = (
    (CHARTS, "0.77, 0.88, 0.95, 0.98, 0.99"),
    (CHARTS, "0.43, 0.68, 0.75, 0.65, 0.59"),
)
_TRAINING = (
    ("training-table", "289,664"),
    ("training-table", "687,104"),
    ("training-table", "6.01"),
    ("training-verdict", "-0.02"),
    ("training-verdict", "+0.02"),
    ("training-verdict", "6.02"),
    ("training-verdict", "80.1"),
    ("training-verdict", "81.6"),
)
"""Stop 7 reads the lesson's recorded run (its live run differs a little each time): the table, the verdict with its
interval, the frequency line and the paper's Table 4."""
STOPS: dict[str, tuple[Stop, ...]] = {
    "en": (
        _PARAMETERS,
        _SHARING,
        Stop(
            3,
            "masked",
            (
                Step("tab", "masked"),
                Step("example", "masked", "She opened the [MASK] and walked into the garden."),
                Step("see", "mask-chart", "39.3%"),
                Step("fill", "mask-text", "The capital of France is [MASK]."),
                Step("click", "mask-button"),
                Step("see", "mask-chart", "3.0%"),
                Step("fill", "mask-expected", "paris"),
                Step("click", "mask-button"),
            ),
            (("mask-chart", "destroyed"), ("mask-chart", "3.0%"), ("mask-status", "2,703"), ("mask-status", "746")),
            ("mask.button", "common.examples", "mask.expected.label"),
        ),
        Stop(
            4,
            "order",
            (
                Step("tab", "order"),
                Step("example", "order", "She bought a ticket at the station."),
                Step("click", "order-button"),
            ),
            tuple(("order-verdict", figure) for figure in ("49.9%", "93.6%", "93.1%", "7.9%")),
            ("order.button",),
        ),
        Stop(
            5,
            "attention",
            (Step("tab", "attention"), Step("fill", "attention-a", CAT), Step("click", "attention-button")),
            _ATTENTION,
            ("attention.button",),
        ),
        Stop(
            6,
            "sentiment",
            (
                Step("tab", "sentiment"),
                Step("example", "sentiment", "A warm, funny and beautifully acted film."),
                Step("click", "sentiment-button"),
            ),
            (("sentiment-verdict", "98.9%"),),
            ("sentiment.button",),
        ),
        Stop(
            7,
            "training",
            (Step("tab", "training"),),
            _TRAINING,
            ("training.button", "training.stop", "training.lesson"),
        ),
    ),
    "zh": (
        _PARAMETERS,
        _SHARING,
        Stop(
            3,
            "masked",
            (
                Step("tab", "masked"),
                Step("fill", "mask-text", "我国经济持续快速发[MASK]。"),
                Step("click", "mask-button"),
            ),
            (("mask-chart", "展"), ("mask-chart", "87.5%")),
            ("mask.button",),
        ),
        Stop(
            4,
            "order",
            (
                Step("tab", "order"),
                Step("example", "order", "我们到了车站。"),
                Step("click", "order-button"),
                Step("see", "order-verdict", "54.7%"),
                Step("see", "order-verdict", "91.6%"),
                Step("see", "order-verdict", "1.6%"),
                Step("model", text="albert-lab-zh-sop-reviews"),
                Step("fill", "order-a", "酒店位置很好，离地铁站很近。房间干净，服务也很热情。"),
                Step("fill", "order-b", "下次来还会住这里！"),
                Step("click", "order-button"),
            ),
            (("order-verdict", "97.9%"), ("order-verdict", "2.4%")),
            ("order.button", "common.examples"),
        ),
        Stop(
            5,
            "attention",
            (
                Step("model", text="自动"),  # stop 4 left the reviews model picked
                Step("tab", "attention"),
                Step("fill", "attention-a", CAT),
                Step("click", "attention-button"),
            ),
            _ATTENTION,
            ("attention.button",),
        ),
        Stop(
            6,
            "sentiment",
            (
                Step("tab", "sentiment"),
                Step("fill", "sentiment-text", "这本书不难看。"),
                Step("click", "sentiment-button"),
            ),
            (("sentiment-verdict", "91.7%"),),
            ("sentiment.button",),
        ),
        Stop(
            7,
            "training",
            (Step("tab", "training"),),
            _TRAINING,
            ("training.button", "training.stop", "training.lesson"),
        ),
    ),
}
"""The stops of each guide, in order."""
