"""Large counts written the paper's way, for every view that quotes a parameter count."""

from __future__ import annotations


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
