"""What a sharing-kind lesson's held-out numbers say, with their noise (issue 54, item 1).

Both arms of a lesson are scored on the same held-out blanks (same text, tokenizer and seed), and each evaluation row
carries every example's loss (`albert.training.pretraining_evaluation.evaluate`). So two arms are compared example
by example: the gap between their losses comes with a 95% interval (the spread of the per-example gaps, normal
approximation), and when that interval holds 0 the reading is "the same within noise", not a finding. The same
rows carry the loss of guessing every blank by its frequency in the training text alone: an arm that is not clearly
below that line has learned the words' frequencies, not yet to read the words around a blank.

The figures quoted are the chart's last markers (each arm's last held-out loss, and the frequency line); the
intervals are centred on their differences.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

from app.i18n import mode_name, t
from app.paper import TABLE3_ALL_SHARED_AVG, TABLE4_E128_AVG, TABLE4_E768_AVG

Z95 = 1.96
"""The normal quantile of a two-sided 95% interval (64 held-out examples: Student's t would say 2.00)."""


@dataclass(frozen=True)
class Gap:
    """A difference of two held-out losses with its 95% interval."""

    value: float
    low: float
    high: float
    examples: int

    @property
    def holds_zero(self) -> bool:
        return self.low <= 0.0 <= self.high

    def text(self) -> str:
        return f"{signed(self.value)} [{signed(self.low)}, {signed(self.high)}]"


def signed(value: float) -> str:
    """A difference with its sign and two decimals; one that rounds to zero is "0.00" (never "-0.00")."""
    text = f"{value:+.2f}"
    return "0.00" if text in ("+0.00", "-0.00") else text


def paired_gap(value: float, first: list[float] | None, second: list[float] | None) -> Gap | None:
    """`value` (the difference of the two quoted losses) with the 95% interval of the per-example differences
    `first[i] - second[i]`; None when the examples do not pair (missing, or of different counts)."""
    if not first or not second or len(first) != len(second) or len(first) < 2:
        return None
    half = half_interval([a - b for a, b in zip(first, second, strict=True)])
    return Gap(value, value - half, value + half, len(first))


def half_interval(values: list[float]) -> float:
    """Half the 95% interval of the mean of `values` (normal approximation); 0 for fewer than two."""
    return Z95 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0


def arm_label(arm_name: str, lang: str) -> str:
    """An arm as the page names it: a sharing mode in the interface's words ("全部共享（ALBERT）" in 中文), "E 16" for
    an embedding size, "SOP"/"NSP" for a sentence objective."""
    if arm_name in ("all", "none"):
        return mode_name(arm_name, lang)
    if arm_name.startswith("e") and arm_name[1:].isdigit():
        return f"E {arm_name[1:]}"
    return arm_name.upper()


def frequency_reading(ends: dict[str, dict[str, Any]], lang: str) -> str:
    """Which arms are clearly below the frequency-only line (interval wholly below it), in one paragraph."""
    first = next(iter(ends.values()))
    base = first.get("mlm_frequency_loss")
    if base is None:
        return ""
    details, below = [], []
    for name, row in ends.items():
        difference = row["mlm_loss"] - base
        gap = paired_gap(difference, row.get("mlm_example_losses"), row.get("mlm_example_frequency_losses"))
        label = arm_label(name, lang)
        details.append(f"{label} {gap.text() if gap else signed(difference)}")
        if gap is not None and gap.high < 0:
            below.append(label)
    key = "none_below" if not below else "all_below" if len(below) == len(ends) else "some_below"
    first_below = below[0] if below else ""
    separator = "；" if lang == "zh" else "; "
    return t(f"training.baseline.{key}", lang, base=f"{base:.2f}", details=separator.join(details), below=first_below)


def paper_reading(verdict: str, lang: str) -> str:
    """What the paper found on real data, longer, for the lesson's question (Table 4 for sharing, Table 3 for E)."""
    if verdict == "embedding":
        return t(
            "training.paper.embedding",
            lang,
            e64=f"{TABLE3_ALL_SHARED_AVG[64]:.1f}",
            e128=f"{TABLE3_ALL_SHARED_AVG[128]:.1f}",
            e768=f"{TABLE3_ALL_SHARED_AVG[768]:.1f}",
        )
    return t(
        "training.paper.sharing",
        lang,
        all=f"{TABLE4_E128_AVG['all']:.1f}",
        none=f"{TABLE4_E128_AVG['none']:.1f}",
        gap=f"{TABLE4_E128_AVG['none'] - TABLE4_E128_AVG['all']:.1f}",
        all768=f"{TABLE4_E768_AVG['all']:.1f}",
        none768=f"{TABLE4_E768_AVG['none']:.1f}",
        gap768=f"{TABLE4_E768_AVG['none'] - TABLE4_E768_AVG['all']:.1f}",
    )
