"""Large counts written the paper's way, for every view that quotes a parameter count."""

from __future__ import annotations

from typing import Any


def millions(n: float) -> str:
    """12,345,678 → '12.3M' (the paper's style); small numbers stay exact."""
    if n >= 1e9:
        return f"{n / 1e9:.2f}B"
    if n >= 1e6:
        return f"{n / 1e6:.1f}M"
    if n >= 1e4:
        return f"{n / 1e3:.1f}K"
    return f"{int(n):,}"


def paper_millions(n: float) -> str:
    """A figure as the paper prints it: 108e6 → '108M', 12e6 → '12M' (never '108.0M', a precision it does not claim)."""
    return f"{n / 1e6:g}M"


def count_words(n: float, lang: str = "en") -> str:
    """A large count as a reader of `lang` says it: '12.3M' in English; in 中文 by 万 and 亿 (12,000,000 →
    '1,200 万', 760,194 → '76 万', 108,000,000 → '1.08 亿'), as Chinese text writes counts, never '12M 个'."""
    if lang != "zh":
        return millions(n)
    if n >= 1e8:
        return f"{n / 1e8:.3g} 亿"
    if n >= 1e4:
        tens = n / 1e4
        return f"{tens:.1f}".removesuffix(".0") + " 万" if tens < 100 else f"{round(tens):,} 万"
    return f"{int(n):,}"


INT64 = 2**63
"""A JSON answer's whole numbers are written by orjson, which takes at most 64 bits."""


def json_numbers(value: Any) -> Any:
    """`value` (a JSON result) with every whole number outside 64 bits written as a float: /compute's FLOPs for a
    batch of a million 512-token sequences (~10^21) failed to serialise, answering {"error": null} with a traceback in
    the log. Floats keep 15–17 significant digits, more than any count the lab shows."""
    if isinstance(value, dict):
        return {key: json_numbers(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_numbers(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and not -INT64 <= value < INT64:
        return float(value)
    return value
