"""Model cards served as HTML pages (issue 42, item 6): rendered from the Markdown without its front matter, no
absolute path of the machine, tables as <table>, raw HTML (a <script>) shown as text, nothing fetched from outside,
readable on a 390 px phone (the page does not scroll sideways; a wide table scrolls in its own box). The launched
server's side: tests/app/test_server.py (the Sentiment tab's card link) and tests/hostile/test_hostile_app_server.py
(every file the page links to)."""

from __future__ import annotations

import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.page.cards import card_html, card_name, publish_card, served_card_path, split_front_matter
from app.page.static_files import REPO_ROOT, SERVED_DIR
from tests.app.support import CHROMIUM, TINY_CARD, chromium_keeping_its_nice

SHIPPED_CARDS = sorted((REPO_ROOT / "assets").rglob("README.md"))
FETCHING = re.compile(
    r"""<(?:script|link|img|iframe|object|embed|source|video|audio)\b|\bsrc=["']|@import|url\(""", re.I
)
"""What would make a page fetch something when it opens (as markup, not as text shown: `&lt;img src=&quot;`)."""


def _body(page: str) -> str:
    return page.split("<main>", 1)[1].split("</main>", 1)[0]


@pytest.fixture
def tiny_card(tmp_path: Path) -> str:
    return TINY_CARD.format(folder=(tmp_path / "models" / "tiny").as_posix())


def test_a_card_is_an_html_page_without_its_front_matter(tiny_card: str) -> None:
    page = card_html(tiny_card, fallback_title="unused")
    assert page.startswith('<!DOCTYPE html>\n<html lang="en">') and '<meta charset="utf-8">' in page
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert "<title>tiny sentiment model</title>" in page and "<h1>tiny sentiment model</h1>" in page
    assert "<p>Dev accuracy 87.5%.</p>" in page
    for front_matter in ("---", "license", "apache-2.0", "tags:", "text-classification"):
        assert front_matter not in page, front_matter
    assert '<div class="table">\n<table>' in page and "</table>\n</div>" in page  # it scrolls in its own box
    assert "<th>accuracy</th>" in page and "<td>87.50%</td>" in page


def test_a_script_in_a_card_is_text_and_nothing_is_fetched(tiny_card: str) -> None:
    page = card_html(tiny_card + '\n<img src="https://example.com/x.png"> ![plot](https://example.com/p.png)\n')
    assert "<script" not in page.lower() and "&lt;script&gt;document.title" in page
    assert "&lt;img src=" in page and '<a href="https://example.com/p.png">plot</a>' in page  # an image: a link
    assert not FETCHING.search(page), FETCHING.search(page)
    assert "content=\"default-src 'none'; style-src 'unsafe-inline'\"" in page  # and the browser is told so
    assert "[x](javascript:" in card_html("[x](javascript:alert(1))")  # markdown-it refuses the link


def test_a_card_names_no_folder_of_the_machine(tmp_path: Path) -> None:
    home = Path.home().as_posix()
    card = (
        "# albert-lab-sst2\n\n"
        f"    python -m albert.finetune --output-dir {REPO_ROOT.as_posix()}/runs/sst2 \\\n"
        f"        --model {home}/models/albert-lab-base --cache-dir {tempfile.gettempdir()}/cache/x\n"
        f"    {sys.prefix}/bin/python scripts/sentiment_card.py C:\\Users\\me\\runs\\sst2\n\n"
        f"Files in `{tmp_path.as_posix()}/run/metrics.csv`; trained from "
        "[albert-base-v2](https://huggingface.co/albert/albert-base-v2), files in runs/sst2/.\n"
    )
    page = card_html(card)
    for folder in (REPO_ROOT.as_posix(), home + "/", tempfile.gettempdir() + "/", sys.prefix, "C:\\Users"):
        assert folder not in page, folder
    assert "--output-dir runs/sst2 \\" in page and "--model models/albert-lab-base" in page
    assert "<code>run/metrics.csv</code>" in page
    assert '<a href="https://huggingface.co/albert/albert-base-v2">albert-base-v2</a>' in page


@pytest.mark.parametrize(
    "text, front_matter, body",
    [
        ("# t\n", "", "# t\n"),
        ("---\nlanguage: zh\n---\n# t\n", "language: zh", "# t\n"),
        ("\ufeff---\r\nlicense: mit\r\n...\r\n# t\r\n", "license: mit", "# t\r\n"),
        ("---\n---\nbody", "", "body"),
        ("---\n\n# a thematic break, then text with no closing line\n", "", None),
        ("text\n---\nlicense: x\n---\n", "", None),  # not at the top: Markdown
    ],
)
def test_front_matter_is_the_yaml_block_at_the_top_only(text: str, front_matter: str, body: str | None) -> None:
    assert split_front_matter(text) == (front_matter, text if body is None else body)


@pytest.mark.parametrize(
    "front_matter, lang",
    [
        ("language: zh\n", ' lang="zh"'),
        ("language: [en, zh]\n", ' lang="en"'),
        ("language:\n- zh-CN\n", ' lang="zh-CN"'),
        ("license: mit\n", ""),
        ('language: "x><script>"\n', ""),
    ],
)
def test_the_page_is_in_the_card_language(front_matter: str, lang: str) -> None:
    assert card_html(f"---\n{front_matter}---\n# t\n").startswith(f"<!DOCTYPE html>\n<html{lang}>\n")


@pytest.mark.parametrize("path", SHIPPED_CARDS, ids=lambda path: path.parent.relative_to(REPO_ROOT).as_posix())
def test_every_shipped_card_renders_whole(path: Path) -> None:
    markdown = path.read_text(encoding="utf-8")
    page = card_html(markdown, fallback_title=path.parent.name)
    front_matter, body = split_front_matter(markdown)
    body_html = _body(page)
    for line in front_matter.splitlines():
        assert line not in body_html, line
    tables = len(re.findall(r"^\|?[ :]*-{3,}[ :]*\|", body, re.M))  # a table's delimiter row
    assert body_html.count("<table>") == tables and "|---" not in body_html
    assert not FETCHING.search(page) and not re.search(r"(?<![\w.:/~-])/(?:work|tmp|home|root|Users)/", page)


def test_a_card_is_published_as_html_beside_the_page_files(tmp_path: Path) -> None:
    source = tmp_path / "albert-lab-test-cards" / "README.md"
    source.parent.mkdir()
    source.write_text("---\nlanguage: en\n---\n# a card\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", encoding="utf-8")
    url = publish_card(source)
    name = card_name(source)
    assert name.startswith("README-") and name.endswith(".html")
    assert url == f"gradio_api/file={SERVED_DIR.as_posix()}/{name}"
    served = Path(served_card_path(source))
    assert served == REPO_ROOT / SERVED_DIR / name and served.read_text(encoding="utf-8") == card_html(
        source.read_text(encoding="utf-8"), fallback_title="albert-lab-test-cards"
    )
    before = served.stat().st_mtime_ns
    assert publish_card(source) == url and served.stat().st_mtime_ns == before  # unchanged: not written again
    source.write_text("# another card\n", encoding="utf-8")
    assert publish_card(source) == url and "<h1>another card</h1>" in served.read_text(encoding="utf-8")
    served.unlink()
    assert publish_card(tmp_path / "missing" / "README.md") is None  # no card: no link, no traceback


@pytest.fixture(scope="module")
def phone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    launcher = chromium_keeping_its_nice(tmp_path_factory.mktemp("chromium"))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(launcher))
        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        yield context.new_page()
        browser.close()


@pytest.mark.browser
@pytest.mark.parametrize("name", ["albert-lab-zh-sentiment", "albert-lab-sst2"])
def test_a_shipped_card_reads_on_a_phone(phone: Any, tmp_path: Path, name: str) -> None:
    """At 390 px the page never scrolls sideways (text wraps, a wide table or command scrolls in its own box), no
    request leaves the file, and the card's script never runs. A table wider than the phone is added to the card."""
    markdown = (REPO_ROOT / "assets" / "sentiment" / name / "README.md").read_text(encoding="utf-8")
    wide = "| " + " | ".join(f"column{i}" for i in range(8)) + " |\n" + "|---" * 8 + "|\n"
    wide += "| " + " | ".join("23,040,000" for _ in range(8)) + " |\n"
    page_file = tmp_path / "card.html"
    page_file.write_text(
        card_html(markdown + "\n" + wide + "\n<script>document.title = 'ran'</script>\n"), encoding="utf-8"
    )
    requests: list[str] = []
    phone.on("request", lambda request: requests.append(request.url))
    phone.goto(page_file.as_uri())
    assert requests == [page_file.as_uri()] and phone.title() == name
    sizes = phone.evaluate(
        """() => ({
            page: document.documentElement.scrollWidth,
            viewport: window.innerWidth,
            boxes: [...document.querySelectorAll('div.table, pre')].map(box => ({
                kind: box.tagName, right: box.getBoundingClientRect().right,
                scrolls: getComputedStyle(box).overflowX, wide: box.scrollWidth > box.clientWidth,
            })),
            fontSize: parseFloat(getComputedStyle(document.body).fontSize),
        })"""
    )
    assert sizes["viewport"] == 390 and sizes["page"] <= 390, sizes
    assert sizes["fontSize"] >= 16 and len(sizes["boxes"]) >= 2, sizes
    for box in sizes["boxes"]:
        assert box["right"] <= 390 and box["scrolls"] == "auto", sizes
    assert {box["kind"] for box in sizes["boxes"] if box["wide"]} == {"DIV", "PRE"}, sizes  # each scrolls in its box
    assert sizes["boxes"][-1]["kind"] == "DIV" and sizes["boxes"][-1]["wide"], sizes  # the added table
