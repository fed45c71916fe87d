"""The ALBERT paper's results (Lan et al., ICLR 2020; arXiv:1909.11942v6), cited by table — the one place the
app takes them from. Every figure is written as the paper prints it, with its table and column named here.

Tables 2–5 are ALBERT-base-scale models pretrained 125k steps on BookCorpus + English Wikipedia, fine-tuned and
scored on dev sets. Their "Avg" averages SQuAD 1.1, SQuAD 2.0, MNLI, SST-2 and RACE, each SQuAD counted once as
the mean of its F1 and EM (`Downstream.average` recomputes it; a test checks every row against its printed
Avg, which catches a mistyped cell). Table 1 sizes and Table 2 speedups live with the parameter formulas in
`albert.core.params` (PAPER_TABLE1, PAPER_TABLE2_SPEEDUP, PAPER_TABLE3/4 parameter counts) and are re-exported here.

Our runs are scored on held-out books (masked words, sentence order), not on these tasks, so only directions
can be compared with Tables 3–5, never values.
"""

from __future__ import annotations

from dataclasses import dataclass

from albert.core.params import PAPER_TABLE1, PAPER_TABLE2_SPEEDUP, PAPER_TABLE3, PAPER_TABLE4

__all__ = [
    "PAPER_TABLE1",
    "PAPER_TABLE2_SPEEDUP",
    "PAPER_TABLE3",
    "PAPER_TABLE4",
    "Downstream",
    "TABLE2",
    "TABLE3",
    "TABLE4",
    "TABLE4_E128_AVG",
    "TABLE5",
    "TABLE6",
    "TABLE9_DEV",
    "TABLE9_TEST_ALBERT",
    "TABLE10",
    "TABLE10_ENSEMBLE_ALBERT",
    "paper_note",
]


@dataclass(frozen=True)
class Downstream:
    """One row of the paper's downstream columns: SQuAD 1.1 and 2.0 as (F1, EM), MNLI, SST-2, RACE (accuracy)
    and the paper's printed Avg."""

    squad11: tuple[float, float]
    squad20: tuple[float, float]
    mnli: float
    sst2: float
    race: float
    avg: float

    def average(self) -> float:
        """The Avg as the paper defines it (each SQuAD version once, the mean of its F1 and EM)."""
        return (sum(self.squad11) / 2 + sum(self.squad20) / 2 + self.mnli + self.sst2 + self.race) / 5


TABLE2: dict[str, Downstream] = {
    # Table 2, columns SQuAD1.1 F1/EM, SQuAD2.0 F1/EM, MNLI, SST-2, RACE, Avg (parameters: Table 1; Speedup:
    # albert.core.params.PAPER_TABLE2_SPEEDUP). The ALBERT rows are also the "V1" rows of google-research/albert's
    # README.
    "bert-base": Downstream((90.4, 83.2), (80.4, 77.6), 84.5, 92.8, 68.2, 82.3),
    "bert-large": Downstream((92.2, 85.5), (85.0, 82.2), 86.6, 93.0, 73.9, 85.2),
    "albert-base": Downstream((89.3, 82.3), (80.0, 77.1), 81.6, 90.3, 64.0, 80.1),
    "albert-large": Downstream((90.6, 83.9), (82.3, 79.4), 83.5, 91.7, 68.5, 82.4),
    "albert-xlarge": Downstream((92.5, 86.1), (86.1, 83.1), 86.4, 92.4, 74.8, 85.5),
    "albert-xxlarge": Downstream((94.1, 88.3), (88.1, 85.1), 88.0, 95.2, 82.3, 88.7),
}
"""Table 2: the six configurations of Table 1 against each other (dev sets, 125k steps)."""

TABLE3: dict[tuple[str, int], Downstream] = {
    # Table 3, ALBERT-base, rows "not-shared" (BERT-style) and "all-shared", E = 64, 128, 256, 768; parameters in
    # albert.core.params.PAPER_TABLE3 (87M, 89M, 93M, 108M; 10M, 12M, 16M, 31M).
    ("none", 64): Downstream((89.9, 82.9), (80.1, 77.8), 82.9, 91.5, 66.7, 81.3),
    ("none", 128): Downstream((89.9, 82.8), (80.3, 77.3), 83.7, 91.5, 67.9, 81.7),
    ("none", 256): Downstream((90.2, 83.2), (80.3, 77.4), 84.1, 91.9, 67.3, 81.8),
    ("none", 768): Downstream((90.4, 83.2), (80.4, 77.6), 84.5, 92.8, 68.2, 82.3),
    ("all", 64): Downstream((88.7, 81.4), (77.5, 74.8), 80.8, 89.4, 63.5, 79.0),
    ("all", 128): Downstream((89.3, 82.3), (80.0, 77.1), 81.6, 90.3, 64.0, 80.1),
    ("all", 256): Downstream((88.8, 81.5), (79.1, 76.3), 81.5, 90.3, 63.4, 79.6),
    ("all", 768): Downstream((88.6, 81.5), (79.2, 76.6), 82.0, 90.6, 63.3, 79.8),
}
"""Table 3: the embedding size E, shared and not. Not shared, larger E is better (768 best); all-shared, E = 128 is."""

TABLE4: dict[tuple[str, int], Downstream] = {
    # Table 4, ALBERT-base, E = 768 block: all-shared (31M), shared-attention (83M), shared-FFN (57M),
    # not-shared (108M); parameters in albert.core.params.PAPER_TABLE4.
    ("all", 768): Downstream((88.6, 81.5), (79.2, 76.6), 82.0, 90.6, 63.3, 79.8),
    ("attention", 768): Downstream((89.9, 82.7), (80.0, 77.2), 84.0, 91.4, 67.7, 81.6),
    ("ffn", 768): Downstream((89.2, 82.1), (78.2, 75.4), 81.5, 90.8, 62.6, 79.5),
    ("none", 768): Downstream((90.4, 83.2), (80.4, 77.6), 84.5, 92.8, 68.2, 82.3),
}
"""Table 4 at E = 768: sharing the FFN costs the most, sharing attention little."""
TABLE4_E128_AVG: dict[str, float] = {"all": 80.1, "attention": 81.7, "none": 81.6}
"""Table 4, E = 128 block, column Avg. Section 4.5 states the gaps these give: sharing attention "+0.1" against
not-shared, all-shared −1.5. The shared-FFN row of this block (38M) is left out: it could not be re-checked here."""
TABLE4_E768_AVG: dict[str, float] = {mode: row.avg for (mode, _), row in TABLE4.items()}
TABLE3_ALL_SHARED_AVG: dict[int, float] = {E: row.avg for (mode, E), row in TABLE3.items() if mode == "all"}


@dataclass(frozen=True)
class Intrinsic:
    """Table 5's intrinsic columns: held-out accuracy of the pretraining tasks themselves."""

    mlm: float
    nsp: float
    sop: float


TABLE5: dict[str, tuple[Intrinsic, Downstream]] = {
    # Table 5, ALBERT-base (E 128, all-shared), rows None (XLNet- and RoBERTa-style: MLM only), NSP (BERT-style),
    # SOP (ALBERT-style); Intrinsic Tasks MLM, NSP, SOP, then the downstream columns and Avg.
    "none": (Intrinsic(54.9, 52.4, 53.3), Downstream((88.6, 81.5), (78.1, 75.3), 81.5, 89.9, 61.7, 79.0)),
    "nsp": (Intrinsic(54.5, 90.5, 52.0), Downstream((88.4, 81.5), (77.2, 74.6), 81.6, 91.1, 62.3, 79.2)),
    "sop": (Intrinsic(54.0, 78.9, 86.5), Downstream((89.3, 82.3), (80.0, 77.1), 82.0, 90.3, 64.0, 80.1)),
}
"""Table 5: an NSP-trained model is at chance on SOP (52.0), an SOP-trained one does well on NSP (78.9)."""


@dataclass(frozen=True)
class SameTime:
    steps: int
    hours: int
    scores: Downstream


TABLE6: dict[str, SameTime] = {
    # Table 6, "the effect of controlling for training time": BERT-large 400k steps, 34 h; ALBERT-xxlarge 125k, 32 h.
    "bert-large": SameTime(400_000, 34, Downstream((93.5, 87.4), (86.9, 84.3), 87.8, 94.6, 77.3, 87.2)),
    "albert-xxlarge": SameTime(125_000, 32, Downstream((94.0, 88.1), (88.3, 85.3), 87.8, 95.4, 82.5, 88.7)),
}
"""Table 6: given about the same hours, the slower ALBERT-xxlarge (3.2× fewer steps) still scores higher."""

GLUE_TASKS: tuple[str, ...] = ("MNLI", "QNLI", "QQP", "RTE", "SST", "MRPC", "CoLA", "STS")
TABLE9_DEV: dict[str, tuple[float, ...]] = {
    # Table 9, "Single-task single models on dev", columns MNLI QNLI QQP RTE SST MRPC CoLA STS (also in
    # google-research/albert's README). ALBERT is ALBERT-xxlarge trained 1M or 1.5M steps on more data.
    "BERT-large": (86.6, 92.3, 91.3, 70.4, 93.2, 88.0, 60.6, 90.0),
    "XLNet-large": (89.8, 93.9, 91.8, 83.8, 95.6, 89.2, 63.6, 91.8),
    "RoBERTa-large": (90.2, 94.7, 92.2, 86.6, 96.4, 90.9, 68.0, 92.4),
    "ALBERT (1M)": (90.4, 95.2, 92.0, 88.1, 96.8, 90.2, 68.7, 92.7),
    "ALBERT (1.5M)": (90.8, 95.3, 92.2, 89.2, 96.9, 90.9, 71.4, 93.0),
}
TABLE9_TEST_ALBERT: tuple[tuple[float, ...], float, float] = (
    (91.3, 99.2, 90.5, 89.2, 97.1, 93.4, 69.1, 92.5),
    91.8,
    89.4,
)
"""Table 9, "Ensembles on test (from leaderboard as of Sept. 16, 2019)", row ALBERT: the eight columns above, WNLI
91.8 and the GLUE score 89.4."""
TABLE10: dict[str, tuple[tuple[float, float], tuple[float, float], float]] = {
    # Table 10, "Single model", columns SQuAD1.1 dev F1/EM, SQuAD2.0 dev F1/EM, RACE test accuracy.
    "BERT-large": ((90.9, 84.1), (81.8, 79.0), 72.0),
    "XLNet": ((94.5, 89.0), (88.8, 86.1), 81.8),
    "RoBERTa": ((94.6, 88.9), (89.4, 86.5), 83.2),
    "ALBERT (1M)": ((94.8, 89.2), (89.9, 87.2), 86.0),
    "ALBERT (1.5M)": ((94.8, 89.3), (90.2, 87.4), 86.5),
}
TABLE10_ENSEMBLE_ALBERT: tuple[tuple[float, float], float] = ((92.2, 89.7), 89.4)
"""Table 10, "Ensembles (leaderboard as of Sept. 23, 2019)", row ALBERT: SQuAD2.0 test F1/EM and RACE test
accuracy (the 89.4% of the paper's introduction)."""


def paper_note(sharing: str, objective: str, embedding_size: int, lang: str = "en") -> str:
    """The paper's figure that matches one of our arms, as a short cited line (numbers, and the words "Table",
    "Avg" and the sharing mode in the interface's language)."""
    from app.i18n import mode_name, t

    table, avg = t("paper.note.table", lang), t("paper.note.avg", lang)
    if objective in ("nsp", "none"):
        intrinsic, scores = TABLE5[objective]
        # the rows as Table 5 names them ("None"), in the interface's language
        row = "NSP" if objective == "nsp" else "None" if lang == "en" else t("paper.objective.none", lang)
        return f"{table} 5 {row}: MLM {intrinsic.mlm}, NSP {intrinsic.nsp}, SOP {intrinsic.sop}, {avg} {scores.avg}"
    if sharing != "all":
        return (
            f"{table} 4 (E 768) {mode_name(sharing, lang)}: {avg} {TABLE4_E768_AVG[sharing]} "
            f"({mode_name('all', lang)} {TABLE4_E768_AVG['all']})"
        )
    intrinsic = TABLE5["sop"][0]
    parts = [f"{table} 5 SOP: MLM {intrinsic.mlm}, SOP {intrinsic.sop}"]
    if embedding_size in TABLE3_ALL_SHARED_AVG:
        parts.append(f"{table} 3 (E {embedding_size}): {avg} {TABLE3_ALL_SHARED_AVG[embedding_size]}")
    elif embedding_size:
        sizes = ", ".join(str(size) for size in sorted(TABLE3_ALL_SHARED_AVG))
        parts.append(f"{table} 3: {t('paper.note.no_size', lang, e=embedding_size, sizes=sizes)}")
    return "; ".join(parts)
