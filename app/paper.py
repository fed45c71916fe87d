"""The ALBERT paper's ablation figures (Lan et al., 2020, ICLR, arXiv:1909.11942v6), cited by table, that
the app shows beside our own CPU-scale runs. ALBERT-base (H 768, 12 passes), pretrained 125k steps on
BookCorpus + Wikipedia; "Avg" is the paper's average over SQuAD 1.1, SQuAD 2.0, MNLI, SST-2 and RACE (dev).
Our runs are scored on held-out books instead, so only directions are comparable, not values.
"""

from __future__ import annotations

TABLE3_ALL_SHARED_AVG: dict[int, float] = {64: 79.0, 128: 80.1, 256: 79.6, 768: 79.8}
"""Table 3: all-shared ALBERT-base, embedding size E → downstream Avg (E = 128 is best)."""

TABLE4_E768_AVG: dict[str, float] = {"all": 79.8, "attention": 81.6, "ffn": 79.5, "none": 82.3}
"""Table 4, E = 768: sharing strategy → downstream Avg (sharing the FFN costs the most)."""

TABLE5: dict[str, dict[str, float]] = {
    "none": {"mlm": 54.9, "nsp": 52.4, "sop": 53.3, "avg": 79.0},
    "nsp": {"mlm": 54.5, "nsp": 90.5, "sop": 52.0, "avg": 79.2},
    "sop": {"mlm": 54.0, "nsp": 78.9, "sop": 86.5, "avg": 80.1},
}
"""Table 5: sentence objective → intrinsic accuracy (MLM, NSP, SOP on held-out pretraining data) and
downstream Avg. An NSP-trained model is at chance on SOP; an SOP-trained one does well on NSP."""


def paper_note(sharing: str, objective: str, embedding_size: int) -> str:
    """The paper's figure that matches one of our arms, as a short cited line (English; numbers only)."""
    if objective in ("nsp", "none"):
        row = TABLE5[objective]
        return f"Table 5 {objective.upper()}: MLM {row['mlm']}, NSP {row['nsp']}, SOP {row['sop']}, Avg {row['avg']}"
    if sharing != "all":
        return f"Table 4 (E 768) {sharing}: Avg {TABLE4_E768_AVG[sharing]} (all-shared {TABLE4_E768_AVG['all']})"
    parts = [f"Table 5 SOP: MLM {TABLE5['sop']['mlm']}, SOP {TABLE5['sop']['sop']}"]
    if embedding_size in TABLE3_ALL_SHARED_AVG:
        parts.append(f"Table 3 (E {embedding_size}): Avg {TABLE3_ALL_SHARED_AVG[embedding_size]}")
    return "; ".join(parts)
