"""Recorded training curves of the ablation runs (`assets/runs/*.csv`) and their final metrics.

The folder can be moved with `ALBERT_LAB_RUNS` (tests use their own). Missing or malformed
files are skipped with a log line: the tab then says there are no recorded runs yet.
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path

import pandas as pd

from app import settings
from app.models import REPO_ROOT

logger = logging.getLogger(__name__)
_MEASURES = ("mlm", "order", "order_replication", "topic")


def runs_dir() -> Path:
    override = settings.RUNS.read()
    return Path(override) if override else REPO_ROOT / "assets" / "runs"


def runs_signature(directory: Path | None = None) -> tuple:
    """What the recorded runs are now: the folder and each CSV's name, size and modification time. Equal signatures
    read the same files, so whatever is drawn from them can be kept (`app.tabs.sharing.views`)."""
    root = directory or runs_dir()
    files = sorted(root.glob("*.csv")) if root.is_dir() else []
    stats = ((p.name, p.stat()) for p in files if p.is_file())
    return (str(root), *((name, stat.st_size, stat.st_mtime_ns) for name, stat in stats))


def load_curves(directory: Path | None = None) -> dict[str, pd.DataFrame]:
    """Run name → its recorded curve (every `<run>.csv` except summary.csv). Read again only when the files
    changed (`runs_signature`); the frames are shared between callers, who only read them."""
    return dict(_curves_of(runs_signature(directory)))


@functools.lru_cache(maxsize=4)
def _curves_of(signature: tuple) -> dict[str, pd.DataFrame]:
    root = Path(signature[0])
    curves: dict[str, pd.DataFrame] = {}
    for path in sorted(root.glob("*.csv")) if root.is_dir() else []:
        if path.name == "summary.csv":
            continue
        try:
            frame = pd.read_csv(path)
        except (OSError, ValueError) as error:
            logger.warning("skipping %s: %s", path, error)
            continue
        if "tokens" in frame:
            curves[path.stem] = frame
    return curves


def load_summary(directory: Path | None = None) -> pd.DataFrame | None:
    """summary.csv (one row per run, final held-out metrics), or None."""
    path = (directory or runs_dir()) / "summary.csv"
    if not path.is_file():
        return None
    try:
        frame = pd.read_csv(path)
    except (OSError, ValueError) as error:
        logger.warning("skipping %s: %s", path, error)
        return None
    return frame if "run" in frame else None


def objective_name(objective: object, lang: str = "en") -> str:
    """'sop' → 'SOP', 'nsp' → 'NSP' (acronyms in both languages), 'none' → 'none' / '无'."""
    from app.i18n import t

    text = str(objective)
    return t("runs.objective.none", lang) if text == "none" else text.upper()


def accuracy_with_interval(row: pd.Series, key: str) -> str:
    """A summary.csv row's `key` accuracy with its 95% interval ("15.4% [15.0, 15.9]"), or "—" when not measured."""
    value = pd.to_numeric(row.get(f"{key}_accuracy"), errors="coerce")
    if pd.isna(value):
        return "—"
    low, high = (pd.to_numeric(row.get(f"{key}_{b}"), errors="coerce") for b in ("low", "high"))
    return f"{value:.1%}" + (f" [{low:.1%}, {high:.1%}]" if pd.notna(low) and pd.notna(high) else "")


def reads_order(row: pd.Series) -> bool:
    """Whether a summary.csv row is above chance on order: its interval over 50%, and its second draw's too when one
    was scored (one draw alone, among a dozen models, misses 50% by chance one time in twenty)."""
    low = pd.to_numeric(row.get("order_low"), errors="coerce")
    second = pd.to_numeric(row.get("order_replication_low"), errors="coerce")
    return bool(pd.notna(low) and low > 0.5 and (pd.isna(second) or second > 0.5))


def summary_table(summary: pd.DataFrame, lang: str = "en") -> pd.DataFrame:
    """summary.csv as the tab shows it: each accuracy with its 95% interval, and the paper's matching figure."""
    from app.i18n import mode_name, t
    from app.paper import paper_note

    rows = []
    for _, row in summary.iterrows():
        embedding = pd.to_numeric(row.get("embedding_size"), errors="coerce")
        tokens = pd.to_numeric(row.get("tokens"), errors="coerce")
        parameters = pd.to_numeric(row.get("parameters"), errors="coerce")
        rows.append(
            {
                t("runs.col.run", lang): row["run"],
                t("col.sharing", lang): mode_name(row.get("sharing", ""), lang),
                t("col.objective", lang): objective_name(row.get("objective", ""), lang),
                "E": "" if pd.isna(embedding) else int(embedding),
                t("col.parameters", lang): "" if pd.isna(parameters) else f"{int(parameters):,}",
                t("col.tokens", lang): "" if pd.isna(tokens) else f"{tokens / 1e6:.1f}M",
                **{t(f"runs.col.{key}", lang): accuracy_with_interval(row, key) for key in _MEASURES},
                t("runs.col.paper", lang): paper_note(
                    str(row.get("sharing", "all")),
                    str(row.get("objective", "sop")),
                    0 if pd.isna(embedding) else int(embedding),
                    lang,
                ),
            }
        )
    return pd.DataFrame(rows)


def sharing_family(summary: pd.DataFrame | None, seed: int = 0) -> pd.DataFrame:
    """The recorded sharing arms to compare: SOP runs of one seed (the first by default) at the one embedding size
    that covers the most sharing modes (the ablation family's E; Table 3's other sizes are another comparison), a
    row per mode."""
    if summary is None or "sharing" not in summary:
        return pd.DataFrame()
    rows = summary[summary.get("objective", pd.Series("sop", index=summary.index)).astype(str) == "sop"]
    if "seed" in rows:
        rows = rows[pd.to_numeric(rows["seed"], errors="coerce").fillna(0) == seed]
    if "embedding_size" in rows and rows["embedding_size"].notna().any():
        sizes = rows.groupby("embedding_size")["sharing"].nunique()
        rows = rows[rows["embedding_size"] == sizes[sizes == sizes.max()].index.min()]
    return rows.drop_duplicates("sharing")


def sharing_runs_text(lang: str = "en", summary: pd.DataFrame | None = None) -> str:
    """What the recorded sharing arms show, from summary.csv: each arm's size and held-out masked words, which
    intervals are apart (the protocol's test for a difference), and their sentence order against chance."""
    from app.i18n import mode_name, t
    from app.numbers import count_words

    summary = summary if summary is not None else load_summary()
    arms = sharing_family(summary)
    if arms.empty:
        return t("sharing.runs.missing", lang)
    listed = "\n".join(
        t(
            "sharing.runs.arm",
            lang,
            mode=mode_name(row["sharing"], lang),
            parameters=f"{int(row['parameters']):,}",
            mlm=accuracy_with_interval(row, "mlm"),
        )
        for _, row in arms.iterrows()
    )
    embedding = arms["embedding_size"].iloc[0] if "embedding_size" in arms else None
    text = t(
        "sharing.runs",
        lang,
        size="" if embedding is None or pd.isna(embedding) else t("sharing.runs.size", lang, e=int(embedding)),
        tokens=count_words(float(arms["tokens"].max()), lang),
        arms=listed,
    )
    if {"mlm_low", "mlm_high"} <= set(arms):
        apart = [
            f"{mode_name(a['sharing'], lang)} > {mode_name(b['sharing'], lang)}"
            for _, a in arms.iterrows()
            for _, b in arms.iterrows()
            if a["mlm_low"] > b["mlm_high"]
        ]
        text += "\n\n" + (
            t("sharing.runs.apart", lang, pairs=" · ".join(apart)) if apart else t("sharing.runs.overlap", lang)
        )
    if {"order_accuracy", "order_low", "order_high"} <= set(arms):
        order = arms.dropna(subset=["order_accuracy", "order_low", "order_high"])
        if len(order):
            above = [mode_name(r["sharing"], lang) for _, r in order.iterrows() if reads_order(r)]
            text += "\n\n" + t(
                "sharing.runs.order",
                lang,
                low=f"{order['order_accuracy'].min():.1%}",
                high=f"{order['order_accuracy'].max():.1%}",
            )
            text += " " + (
                t("sharing.runs.order.above", lang, arms=", ".join(above))
                if above
                else t("sharing.runs.order.chance", lang)
            )
    seeds = seed_contrast_text(summary, lang)
    return text + ("\n\n" + seeds if seeds else "")


def seed_contrast_text(summary: pd.DataFrame | None, lang: str = "en") -> str:
    """The protocol's central sharing contrast, not shared against all-shared on held-out masked words, under each
    recorded seed, and whether it is a difference: intervals apart with the same sign under every seed (at least
    two). Empty until two seeds hold both arms with their intervals."""
    from app.i18n import t

    if summary is None or "seed" not in summary or not {"mlm_low", "mlm_high"} <= set(summary):
        return ""
    rows, gaps, every_seed_apart = [], [], True
    for seed in sorted(set(pd.to_numeric(summary["seed"], errors="coerce").dropna().astype(int))):
        arms = sharing_family(summary, seed).set_index("sharing")
        if not {"all", "none"} <= set(arms.index):
            continue
        shared, separate = arms.loc["all"], arms.loc["none"]
        apart = separate["mlm_low"] > shared["mlm_high"] or shared["mlm_low"] > separate["mlm_high"]
        gap = (separate["mlm_accuracy"] - shared["mlm_accuracy"]) * 100
        gaps.append(gap)
        every_seed_apart = every_seed_apart and bool(apart)
        state = t("sharing.seeds.apart" if apart else "sharing.seeds.overlap", lang)
        rows.append(t("sharing.seeds.row", lang, seed=seed, gap=f"{gap:+.1f}", state=state))
    if len(rows) < 2:
        return ""
    same_sign = all(g > 0 for g in gaps) or all(g < 0 for g in gaps)
    verdict = "sharing.seeds.difference" if every_seed_apart and same_sign else "sharing.seeds.no_difference"
    return t("sharing.seeds", lang, rows="; ".join(rows)) + " " + t(verdict, lang)
