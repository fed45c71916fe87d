"""Model cards as small HTML pages the page links to: a visitor reads the card, not its Markdown source.

A card (`README.md` beside a model's weights) starts with the Hub's YAML front matter (license, tags) and may name
folders of the machine that built it. The page served for it is rendered from the Markdown without the front matter
and with every absolute path made relative (`app.page.static_files.portable_text`). It is one self-contained UTF-8
file, readable on a 390 px phone: a viewport, a little inline CSS, tables and code that scroll inside their own box,
and nothing fetched from anywhere (no fonts, no scripts, no images; its Content-Security-Policy allows inline
styles only). Raw HTML in a card is shown as text, never passed through (`html=False`): a card cannot put a script
on this server's origin. The Markdown is rendered by markdown-it-py (CommonMark with GitHub's tables).
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Sequence
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from app.page.static_files import portable_text, publish_text, served_path, unique_name

logger = logging.getLogger(__name__)

FRONT_MATTER = re.compile(
    r"\A\ufeff?---[ \t]*\r?\n(?P<yaml>.*?)(?:\r?\n)?^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S | re.M
)
"""A YAML block at the very top of the file, between `---` lines (the Hub's model-card metadata)."""
LANGUAGE = re.compile(
    r"^language:[ \t]*(?:\[[ \t]*|\r?\n[ \t]*-[ \t]*)?['\"]?([A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*)\b", re.M
)
"""The front matter's `language: zh`, `language: [en, zh]` or its list form: the first language named."""

STYLE = """
:root { color-scheme: light dark; }
body { margin: 0 auto; max-width: 46rem; padding: 1rem; overflow-wrap: break-word;
  font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "PingFang SC", "Microsoft YaHei",
  sans-serif; }
h1 { font-size: 1.5rem; line-height: 1.25; } h2 { font-size: 1.2rem; margin-top: 1.6rem; }
.table { max-width: 100%; overflow-x: auto; margin: 1rem 0; }
table { border-collapse: collapse; }
th, td { border: 1px solid rgba(128, 128, 128, 0.45); padding: 0.3rem 0.55rem; text-align: left; vertical-align: top; }
th { background: rgba(128, 128, 128, 0.12); }
pre { overflow-x: auto; padding: 0.6rem 0.8rem; background: rgba(128, 128, 128, 0.12); border-radius: 4px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
p code, li code, td code { overflow-wrap: anywhere; }
""".strip()
"""A table scrolls sideways in its own box (`<div class="table">`), a code block in its `<pre>`: never the page."""

PAGE = """<!DOCTYPE html>
<html{lang}>
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{style}
</style>
</head>
<body>
<main>
{body}</main>
</body>
</html>
"""


def split_front_matter(text: str) -> tuple[str, str]:
    """(the YAML front matter's text, the Markdown after it); ("", text) when the file has none."""
    match = FRONT_MATTER.match(text)
    return (match.group("yaml"), text[match.end() :]) if match else ("", text.removeprefix("\ufeff"))


def _image_as_link(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """An image would be fetched when the card opens (maybe from another site): it is a link to the image instead."""
    token = tokens[idx]
    source = html.escape(str(token.attrGet("src") or ""))
    alt = html.escape(renderer.renderInlineAsText(token.children or [], options, env))
    return f'<a href="{source}">{alt or source}</a>'


def _table_open(renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    return '<div class="table">\n' + renderer.renderToken(tokens, idx, options, env)


def _table_close(renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    return renderer.renderToken(tokens, idx, options, env) + "</div>\n"


def _markdown() -> MarkdownIt:
    renderer = MarkdownIt("commonmark", {"html": False}).enable("table")  # raw HTML in a card is shown as text
    renderer.add_render_rule("image", _image_as_link)
    renderer.add_render_rule("table_open", _table_open)
    renderer.add_render_rule("table_close", _table_close)
    return renderer


def card_html(markdown: str, fallback_title: str = "Model card") -> str:
    """The served page of a model card written in `markdown`: its front matter left out, its absolute paths made
    relative, titled by its first heading (or `fallback_title`), in the front matter's language when it names one."""
    front_matter, body = split_front_matter(markdown)
    renderer = _markdown()
    tokens = renderer.parse(portable_text(body))
    headings = (i for i, token in enumerate(tokens) if token.type == "heading_open" and token.tag == "h1")
    first = next(headings, None)
    title = (
        renderer.renderer.renderInlineAsText(tokens[first + 1].children or [], renderer.options, {})
        if first is not None
        else ""
    )
    language = LANGUAGE.search(front_matter)
    return PAGE.format(
        lang=f' lang="{language.group(1)}"' if language else "",
        title=html.escape(title.strip() or fallback_title),
        style=STYLE,
        body=renderer.renderer.render(tokens, renderer.options, {}),
    )


def card_name(source: Path) -> str:
    """The served file's name for the card at `source`: stable, and distinct for cards of different models."""
    return unique_name(source, ".html")


def publish_card(source: Path) -> str | None:
    """Render the card at `source` (`card_html`) into the served folder and return its URL; None (logged) when it
    cannot be read or written: the page then links no card."""
    try:
        markdown = source.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        logger.warning("cannot read the model card %s (%s)", source.name, error)
        return None
    return publish_text(card_html(markdown, fallback_title=source.parent.name), card_name(source))


def served_card_path(source: Path) -> str:
    """The absolute path of the served page of the card at `source`, for `launch(allowed_paths=…)`."""
    return served_path(card_name(source))
