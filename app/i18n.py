"""English and 中文 for every label, explanation and message of the app.

`t(key, lang, **values)` looks a string up and fills `{placeholders}`. The tab modules
register each component with the key of its label (`Translations.add`), and the language
switch returns one update per registered component.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.strings import STRINGS

logger = logging.getLogger(__name__)
LANGUAGES: tuple[tuple[str, str], ...] = (("English", "en"), ("中文", "zh"))
LANG_CODES: tuple[str, ...] = tuple(code for _, code in LANGUAGES)


def normalize_lang(lang: str | None) -> str:
    """'zh', '中文', 'zh-CN' → 'zh'; anything else → 'en'."""
    text = lang.strip().lower() if isinstance(lang, str) else ""  # an API client may send any JSON value
    return "zh" if text.startswith("zh") or text == "中文" else "en"


_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]|~"})


def safe(text: object, limit: int = 120) -> str:
    """User-supplied text (a path, a model id, an error) made inert for a Markdown message: HTML-escaped,
    Markdown characters backslashed, cut to `limit` characters."""
    value = str(text)
    value = value if len(value) <= limit else value[:limit] + "…"
    return html.escape(value, quote=False).translate(_MARKDOWN_SPECIAL)


def t(key: str, lang: str = "en", **values: Any) -> str:
    """The string `key` in `lang` (English when the key has no translation), formatted."""
    entry = STRINGS.get(key)
    if entry is None:
        logger.warning("no string for %r", key)
        return key
    text = entry[1] if normalize_lang(lang) == "zh" else entry[0]
    return text.format(**values) if values else text


def mode_name(mode: str, lang: str = "en") -> str:
    """A sharing mode as the interface names it: 'all' in English (the name the API and the CLI take),
    '全部共享（ALBERT）' in 中文; an unknown mode as it is."""
    key = f"sharing.short.{mode}"
    return t(key, lang) if normalize_lang(lang) == "zh" and key in STRINGS else str(mode)


@dataclass
class Translations:
    """Components whose text follows the language switch.

    Each entry knows how to produce the component's update for a language, so a label, an
    `info` line, a Markdown explanation or a button caption all switch the same way.
    """

    components: list[Any] = field(default_factory=list)
    updaters: list[Callable[[str], Any]] = field(default_factory=list)
    refreshers: list[tuple[str, Callable, list, list]] = field(default_factory=list)
    """(name, fn, inputs, outputs) re-run after a language switch, so charts and tables follow it."""

    def refresh(self, name: str, fn: Callable, inputs: list, outputs: list) -> None:
        self.refreshers.append((name, fn, inputs, outputs))

    def add(self, component: Any, label: str | None = None, info: str | None = None,
            value: str | None = None, choices: Callable[[str], list] | None = None,
            samples: Callable[[str], list] | None = None, headers: list[str] | None = None,
            text: Callable[[str], str] | None = None) -> Any:
        """Register `component`; `label`/`info`/`value` are string keys, `choices` and `samples` (an examples
        table's rows) functions of lang, `headers` the string keys of an examples table's column headers, `text`
        a function of lang giving the value (a cheap one: it runs with the labels)."""
        import gradio as gr

        def update(lang: str) -> Any:
            changes: dict[str, Any] = {}
            if label:
                changes["label"] = t(label, lang)
            if info:
                changes["info"] = t(info, lang)
            if value:
                changes["value"] = t(value, lang)
            if text:
                changes["value"] = text(lang)
            if choices:
                changes["choices"] = choices(lang)
            if samples:
                changes["samples"] = samples(lang)
            if headers:
                changes["headers"] = [t(key, lang) for key in headers]
            return gr.update(**changes)

        self.components.append(component)
        self.updaters.append(update)
        return component

    def updates(self, lang: str) -> list[Any]:
        lang = normalize_lang(lang)
        return [update(lang) for update in self.updaters]
