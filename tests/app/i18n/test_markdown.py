"""Every string of the interface renders as Markdown without a stray `**` (issue 42: “\\*\\*这 11,683,584 个参数的文件
大小：\\*\\*fp32” showed its marks in 中文). CommonMark closes `**` after punctuation only when a space or punctuation
follows, so a bold ending in a full-width colon right before a letter stays literal; markdown-it (CommonMark, as
Gradio's renderer reads these marks) checks each string with its placeholders filled three ways."""

from __future__ import annotations

import re

import pytest

from app.i18n.strings import read_language

FILLERS = ("12.5 MB", "中文", "x")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_string_shows_its_bold_marks(lang: str) -> None:
    from markdown_it import MarkdownIt

    render = MarkdownIt("commonmark").enable("table").render
    literal = [
        key
        for key, text in read_language(lang).items()
        for filler in FILLERS
        if "**" in render(re.sub(r"\{[^{}]*\}", filler, text))
    ]
    assert not literal, sorted(set(literal))


def test_the_check_sees_a_bold_that_does_not_close() -> None:
    from markdown_it import MarkdownIt

    render = MarkdownIt("commonmark").render
    assert "**" in render("**这 11,683,584 个参数的文件大小：**fp32")
    assert "**" not in render("**这 11,683,584 个参数的文件大小**：fp32")
