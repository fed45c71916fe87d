"""The ablation family's table in docs/results/ablations.md and every arm's card matches assets/runs/summary.csv."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from scripts.family_table import BEGIN, CARD_HEADING, END, FAMILY_PAGE, main, stale_family_tables, with_table

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets"
PAGE = ROOT / FAMILY_PAGE


def test_the_results_page_and_every_card_show_the_recorded_family() -> None:
    assert BEGIN in PAGE.read_text() and END in PAGE.read_text()
    assert stale_family_tables(ASSETS, PAGE) == []
    assert main(["--check"]) == 0
    rows = list(csv.DictReader((ASSETS / "runs" / "summary.csv").open()))
    page = PAGE.read_text()
    for row in rows:
        card = (ASSETS / "models" / row["run"] / "README.md").read_text()
        for text in (page, card):
            table = text[text.index(BEGIN) : text.index(END)]
            line = next(line for line in table.splitlines() if line.startswith(f"| `{row['run']}` |"))
            assert (
                f"{float(row['mlm_accuracy']):.1%} [{float(row['mlm_low']):.1%}, {float(row['mlm_high']):.1%}]" in line
            )
            assert f"{int(row['parameters']):,}" in line and "Table" in line  # the paper's matching row, cited


def test_a_card_gets_the_table_once_and_a_stale_one_is_replaced() -> None:
    card = "# m\n\nnotes\n\n## Training log\nrows\n"
    first = with_table(card, "| a |", card=True)
    assert first.count(BEGIN) == 1 and first.index(CARD_HEADING) < first.index("## Training log")
    second = with_table(first, "| b |", card=True)
    assert "| a |" not in second and "| b |" in second and second.count(CARD_HEADING) == 1
    assert with_table(second, "| b |", card=True) == second
    with pytest.raises(ValueError, match="no family-table markers"):
        with_table("# a README without markers\n", "| a |", card=False)


def test_check_fails_on_a_stale_card(tmp_path: Path) -> None:
    import shutil

    assets = tmp_path / "assets"
    shutil.copytree(ASSETS / "runs", assets / "runs")
    for row in csv.DictReader((ASSETS / "runs" / "summary.csv").open()):
        (assets / "models" / row["run"]).mkdir(parents=True)
        shutil.copyfile(ASSETS / "models" / row["run"] / "README.md", assets / "models" / row["run"] / "README.md")
    page = tmp_path / "ablations.md"
    shutil.copyfile(PAGE, page)
    assert main(["--check", "--assets", str(assets), "--page", str(page)]) == 0
    card = assets / "models" / "albert-lab-all" / "README.md"
    card.write_text(card.read_text().replace("15.4% [15.0%", "17.0% [15.0%"))
    assert main(["--check", "--assets", str(assets), "--page", str(page)]) == 1
    assert main(["--assets", str(assets), "--page", str(page)]) == 0
    assert "15.4% [15.0%" in card.read_text() and main(["--check", "--assets", str(assets), "--page", str(page)]) == 0
