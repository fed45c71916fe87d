"""The ablation family's table — every recorded arm's held-out figures with the paper's matching ones — written
from `assets/runs/summary.csv` into the ablations results page (docs/results/ablations.md) and into every arm's model
card, so that each card shows its arm beside the others and the paper, and no copy can drift from the measured figures.

    python -m scripts.family_table            # rewrite the tables
    python -m scripts.family_table --check    # exit 1 if any table differs from summary.csv

The table sits between two marker lines; a card without them gets the table before its "## Training log".
`scripts.package_model` calls `update_family_tables` after it records a new English arm.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from albert.io import atomic_write_text

logger = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[1]
FAMILY_PAGE = Path("docs") / "results" / "ablations.md"
"""The page (relative to the repository root) whose family table sits between the markers."""
BEGIN = "<!-- family table: written by `python -m scripts.family_table` from assets/runs/summary.csv -->"
END = "<!-- end of family table -->"
CARD_ANCHOR = "## Training log"
CARD_HEADING = "## This arm beside the others and the paper"
CARD_INTRO = (
    "Every recorded run of the family, scored by the same bar on the same held-out text "
    "(`experiments/score_models.py`); the paper's figure is the matching row of its Table 3, 4 or 5 (ALBERT-base, "
    "125k steps, downstream Avg or intrinsic accuracy), so only directions compare, never values."
)


def family_markdown(summary_csv: Path) -> str:
    """summary.csv as a markdown table, the same columns and paper notes as the app's *Sharing modes* table."""
    from app.models.runs import load_summary, summary_table

    summary = load_summary(summary_csv.parent)
    if summary is None:
        raise FileNotFoundError(f"{summary_csv} is missing or unreadable; package a run first.")
    table = summary_table(summary, "en")
    header = [str(column) for column in table.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for _, row in table.iterrows():
        cells = [str(value) for value in row]
        cells[0] = f"`{cells[0]}`"
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def with_table(text: str, table: str, card: bool) -> str:
    """`text` with its family table replaced by `table` (a card without one gets it before its training log)."""
    block = f"{BEGIN}\n{table}\n{END}"
    if BEGIN in text and END in text:
        start, end = text.index(BEGIN), text.index(END) + len(END)
        return text[:start] + block + text[end:]
    if card and CARD_ANCHOR in text:
        at = text.index(CARD_ANCHOR)
        return text[:at] + f"{CARD_HEADING}\n\n{CARD_INTRO}\n\n{block}\n\n" + text[at:]
    raise ValueError("no family-table markers (and no card training-log heading) to place the table at.")


def family_files(assets: Path, page: Path | None) -> list[tuple[Path, bool]]:
    """(file, is a card) for the results page (when it has the markers) and the card of every arm in summary.csv."""
    from app.models.runs import load_summary

    summary = load_summary(assets / "runs")
    files = [(page, False)] if page is not None and page.is_file() and BEGIN in page.read_text() else []
    for run in [] if summary is None else summary["run"]:
        card = assets / "models" / str(run) / "README.md"
        if card.is_file():
            files.append((card, True))
    return files


def stale_family_tables(assets: Path, page: Path | None) -> list[Path]:
    """The files whose family table differs from what summary.csv gives."""
    table = family_markdown(assets / "runs" / "summary.csv")
    stale = []
    for path, card in family_files(assets, page):
        text = path.read_text(encoding="utf-8")
        if with_table(text, table, card) != text:
            stale.append(path)
    return stale


def update_family_tables(assets: Path, page: Path | None) -> list[Path]:
    """Rewrite every stale family table (atomically, file by file); returns the files changed."""
    table = family_markdown(assets / "runs" / "summary.csv")
    changed = []
    for path in stale_family_tables(assets, page):
        card = path != page
        atomic_write_text(path, with_table(path.read_text(encoding="utf-8"), table, card))
        changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--assets", type=Path, default=REPO_ROOT / "assets")
    parser.add_argument(
        "--page", "--readme", type=Path, default=REPO_ROOT / FAMILY_PAGE, help="the results page holding the table"
    )
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a table is stale")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.check:
        stale = stale_family_tables(args.assets, args.page)
        for path in stale:
            logger.error("%s: its family table differs from assets/runs/summary.csv", path)
        return 1 if stale else 0
    for path in update_family_tables(args.assets, args.page):
        logger.info("updated %s", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
