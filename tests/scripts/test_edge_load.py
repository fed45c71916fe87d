"""benchmarks/edge_load.py's verdict: a request told to retry by a full waiting line is counted apart from a wrong
answer, and a run meets the restated targets only when every figure does."""

from __future__ import annotations

import argparse

from benchmarks.edge_load import Run

TARGETS = argparse.Namespace(fill_p95_ms=1500.0, mixed_p95_ms=3000.0, busy_ms=300.0)
BUSY = '/attention: 503 {"detail":"ALBERT Lab is busy drawing attention for others (16 waiting); try again"}'


def a_run(**changes) -> Run:
    figures = dict(
        fill_p50=500.0,
        fill_p95=1400.0,
        mixed_p95=2500.0,
        mixed_max=2900.0,
        requests=320,
        failures=[],
        retry=[BUSY],
        measured=2,
        measure_busy=19,
        accepted=17,
        busy=[0.2, 0.25],
        other=[],
        load=1.7,
    )
    return Run(**(figures | changes))


def test_a_runtold_to_retry_meets_the_targets_and_a_wrong_answer_does_not() -> None:
    assert a_run().meets(TARGETS)
    assert "0 of 320 wrong, 1 told to retry" in a_run().line(1)
    assert not a_run(failures=["/fill_mask: answer differs from the reference"]).meets(TARGETS)
    assert not a_run(fill_p95=1501.0).meets(TARGETS)
    assert not a_run(busy=[0.31]).meets(TARGETS)
    assert not a_run(busy=[]).meets(TARGETS)  # a burst that no busy answer met measured nothing


def test_only_a_busy_answer_istold_to_retry() -> None:
    from benchmarks.edge_load import told_to_retry

    assert told_to_retry(BUSY)
    assert not told_to_retry("/fill_mask: 500 Internal Server Error")
    assert not told_to_retry("/fill_mask: answer differs from the reference")
