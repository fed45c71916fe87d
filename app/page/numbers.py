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
