"""No machine detail served (issue 43, item 4): a model card is served (as an HTML page, issue 42) without the
absolute paths it names, every file the launched page links to names no folder of the machine, and Gradio's
monitoring key never reaches the log. The launched server's side is in test_hostile_app_server.py; the card pages
themselves in tests/app/page/test_cards.py."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from app.page.cards import card_name, publish_card
from app.page.static_files import REPO_ROOT, SERVED_DIR, portable_text, publish


def test_a_card_is_served_without_the_absolute_paths_it_names(tmp_path: Path) -> None:
    home = Path.home().as_posix()
    card = tmp_path / "README.md"
    card.write_text(
        f"---\nlanguage: en\nbuilt_in: {REPO_ROOT.as_posix()}/runs/sst2\n---\n"
        "# albert-lab-sst2\n\n"
        f"    python -m albert.finetune --output-dir {REPO_ROOT.as_posix()}/runs/sst2 \\\n"
        f"        --model {home}/models/albert-lab-base --cache-dir {tempfile.gettempdir()}/cache/x\n"
        f"    python {sys.prefix}/bin/python scripts/sentiment_card.py C:\\Users\\me\\runs\\sst2\n\n"
        "Trained from [albert-base-v2](https://huggingface.co/albert/albert-base-v2), files in runs/sst2/.\n",
        encoding="utf-8",
    )
    url = publish_card(card)
    assert url == f"gradio_api/file={SERVED_DIR.as_posix()}/{card_name(card)}" and url.endswith(".html")
    served = (REPO_ROOT / SERVED_DIR / card_name(card)).read_text(encoding="utf-8")
    for folder in (REPO_ROOT.as_posix(), home, tempfile.gettempdir(), sys.prefix, "C:\\Users", "built_in"):
        assert folder not in served, folder
    assert "--output-dir runs/sst2 \\" in served and "--model models/albert-lab-base" in served
    assert "https://huggingface.co/albert/albert-base-v2" in served and "files in runs/sst2/." in served
    before = (REPO_ROOT / SERVED_DIR / card_name(card)).stat().st_mtime_ns
    publish_card(card)  # unchanged: not written again
    assert (REPO_ROOT / SERVED_DIR / card_name(card)).stat().st_mtime_ns == before
    (REPO_ROOT / SERVED_DIR / card_name(card)).unlink()


def test_other_files_are_served_byte_for_byte(tmp_path: Path) -> None:
    script = tmp_path / "d3.js"
    script.write_bytes(b'var re = /\\/home\\/x/; path = "/usr/lib/x";\n')  # code is never rewritten
    notes = tmp_path / "notes.md"
    notes.write_bytes(b"---\ntitle: x\n---\nsee /usr/lib/x\n")  # only a card is rendered (publish_card)
    for source in (script, notes):
        name = f"issue43-test{source.suffix}"
        assert publish(source, name) == f"gradio_api/file=cache/app-static/{name}"
        target = REPO_ROOT / SERVED_DIR / name
        assert target.read_bytes() == source.read_bytes()
        target.unlink()


def test_portable_text_keeps_urls_and_relative_paths() -> None:
    kept = "see https://hf.co/a/b, http://x/y/z, runs/a/b, ./a/b, ../a/b, ~/a/b and file:///c"
    assert portable_text(kept) == kept
    assert portable_text("`/srv/other/runs/x/metrics.csv`") == "`x/metrics.csv`"
