"""Timings that hold still: passes run interleaved after a warm-up, summarised by median and spread.

One press of "Measure on this computer" used to time each sharing mode on its own (best of a few) and divide:
another program waking up during one mode's turn moved the ratio from 0.5× to 1.15× between presses. Here every
round runs each pass once, in a rotated order (A B C D, B C D A, …), so a slow spell hits every mode alike, and the
ratio to the reference is taken within each round. The summary is the median and the range (min–max) of those
ratios; a range that contains 1 means the difference is within this computer's noise.

Pure functions: the clock is a parameter, so a test drives them with a fake one.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Spread:
    """Median and range of a few measurements."""

    median: float
    low: float
    high: float

    @classmethod
    def of(cls, values: list[float]) -> Spread:
        if not values:
            raise ValueError("a spread needs at least one value")
        return cls(median=statistics.median(values), low=min(values), high=max(values))

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


@dataclass(frozen=True)
class RoundsPlan:
    """How many interleaved rounds to time."""

    rounds: int = 7
    """At most this many rounds (each runs every pass once)."""
    min_rounds: int = 3
    """At least this many rounds, whatever the time: fewer say nothing about the spread."""
    max_seconds: float = 4.0
    """No new round starts once the timed rounds have used this many seconds (after `min_rounds`)."""

    def __post_init__(self) -> None:
        if not 1 <= self.min_rounds <= self.rounds:
            raise ValueError(f"need 1 ≤ min_rounds ≤ rounds, got {self.min_rounds} and {self.rounds}")
        if self.max_seconds <= 0:
            raise ValueError(f"max_seconds must be positive, got {self.max_seconds}")


def interleaved_times(
    passes: Mapping[str, Callable[[], object]],
    plan: RoundsPlan = RoundsPlan(),
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, list[float]]:
    """Seconds of each pass, one per round: one untimed warm-up call of each, then rounds in rotated order."""
    names = list(passes)
    for name in names:
        passes[name]()  # warm-up: first-call allocations and kernel choice, not timed
    samples: dict[str, list[float]] = {name: [] for name in names}
    started = clock()
    for index in range(plan.rounds):
        if index >= plan.min_rounds and clock() - started > plan.max_seconds:
            break
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            start = clock()
            passes[name]()
            samples[name].append(clock() - start)
    return samples


@dataclass(frozen=True)
class Comparison:
    """One pass's times, and its time relative to the reference pass of the same round."""

    seconds: Spread
    ratio: Spread

    @property
    def within_noise(self) -> bool:
        """The ratio's range reaches both sides of 1 (or touches it): no difference this computer can show."""
        return self.ratio.contains(1.0)


def compare(samples: Mapping[str, list[float]], reference: str) -> dict[str, Comparison]:
    """Per pass: spread of its seconds and of its per-round ratio to `reference`'s seconds."""
    base = samples[reference]
    result = {}
    for name, seconds in samples.items():
        if len(seconds) != len(base):
            raise ValueError(f"{name} has {len(seconds)} timings, {reference} has {len(base)}")
        ratios = [s / b for s, b in zip(seconds, base, strict=True)]
        result[name] = Comparison(seconds=Spread.of(seconds), ratio=Spread.of(ratios))
    return result
