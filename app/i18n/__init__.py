"""English and 中文 for every label, explanation and message of the app.

`t(key, lang, **values)` looks a string up and fills `{placeholders}`. The tab modules
create each component from its string keys (`Translations.add`), and the language switch
returns one update per registered component.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from app.i18n.strings import STRINGS

if TYPE_CHECKING:
    from albert.errors import ConfigError

logger = logging.getLogger(__name__)
LANGUAGES: tuple[tuple[str, str], ...] = (("English", "en"), ("中文", "zh"))
LANG_CODES: tuple[str, ...] = tuple(code for _, code in LANGUAGES)
C = TypeVar("C")


def normalize_lang(lang: str | None) -> str:
    """'zh', '中文', 'zh-CN' → 'zh'; anything else → 'en'."""
    text = lang.strip().lower() if isinstance(lang, str) else ""  # an API client may send any JSON value
    return "zh" if text.startswith("zh") or text == "中文" else "en"


_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]|~"})


_SURROGATES = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """`text` with each lone surrogate (no character: JSON's "\\ud800" decodes to one) replaced by U+FFFD, so that
    an answer quoting it can be encoded as UTF-8."""
    return _SURROGATES.sub("\ufffd", text)


def safe(text: object, limit: int = 120) -> str:
    """User-supplied text (a path, a model id, an error) made inert for a Markdown message: HTML-escaped,
    Markdown characters backslashed, lone surrogates replaced (`encodable`), cut to `limit` characters."""
    try:
        value = str(text)
    except ValueError:  # an int of more than 4,300 digits, which Python refuses to write out
        value = "(a number too long to show)"
    value = value if len(value) <= limit else value[:limit] + "…"
    return encodable(html.escape(value, quote=False).translate(_MARKDOWN_SPECIAL))


def t(key: str, lang: str = "en", **values: Any) -> str:
    """The string `key` in `lang` (English when the key has no translation), formatted."""
    entry = STRINGS.get(key)
    if entry is None:
        logger.warning("no string for %r", key)
        return key
    text = entry[1] if normalize_lang(lang) == "zh" else entry[0]
    return encodable(text.format(**values)) if values else text


def mode_name(mode: str, lang: str = "en") -> str:
    """A sharing mode as the interface names it: 'all' in English (the name the API and the CLI take),
    '全部共享（ALBERT）' in 中文; an unknown mode as it is."""
    key = f"sharing.short.{mode}"
    return t(key, lang) if normalize_lang(lang) == "zh" and key in STRINGS else str(mode)


def config_error(error: ConfigError, lang: str = "en") -> str:
    """The library's refusal of a configuration in `lang`, from its code and values: the rule is checked once,
    by `AlbertConfig`, and said here. The text is `config.err.<code>.<field>` or `config.err.<code>`, a field named
    by its form label (`field.<name>`); a code without a text keeps the library's own (English) sentence."""
    field_name = error.params.get("field")
    keys = (f"config.err.{error.code}.{field_name}", f"config.err.{error.code}")
    key = next((k for k in keys if k in STRINGS), None)
    if key is None:
        return safe(error, 300)
    values = {name: _shown(value) for name, value in error.params.items()}
    if isinstance(field_name, str):
        label = f"field.{field_name}"
        values["field"] = t(label, lang) if label in STRINGS else safe(field_name, 40)
    return t(key, lang, **values)


def _shown(value: Any) -> Any:
    """A value quoted in a message: numbers as they are (the texts format them), choices joined, anything else inert."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    if isinstance(value, (tuple, list)) and all(isinstance(v, str) for v in value):
        return safe(", ".join(value), 120)
    return safe(value, 40)


@dataclass(frozen=True)
class _Texts:
    """The translatable parts of one component: string keys, or functions of lang for what is not a fixed string."""

    label: str | None = None
    info: str | None = None
    text: str | Callable[[str], str] | None = None
    """The key of the component's value (a Markdown's text, a button's caption), or a function of lang giving it."""
    choices: Callable[[str], list] | None = None
    samples: Callable[[str], list] | None = None
    """An examples table's rows."""
    headers: tuple[str, ...] = ()
    """String keys of an examples table's column headers."""

    def values(self, lang: str) -> dict[str, Any]:
        """The component's keyword arguments in `lang`: label, info, value, choices, samples, headers."""
        found: dict[str, Any] = {}
        if self.label:
            found["label"] = t(self.label, lang)
        if self.info:
            found["info"] = t(self.info, lang)
        if self.text:
            found["value"] = self.text(lang) if callable(self.text) else t(self.text, lang)
        if self.choices:
            found["choices"] = self.choices(lang)
        if self.samples:
            found["samples"] = self.samples(lang)
        if self.headers:
            found["headers"] = [t(key, lang) for key in self.headers]
        return found


@dataclass
class Translations:
    """Components whose text follows the language switch, each declared once by its string keys.

    `tr.add(gr.Textbox, label="order.a", lines=2, elem_id="order-a")` builds the component with its English text
    and registers it; `updates(lang)` then gives one update per registered component, so a label, an `info`
    line, a Markdown explanation or a button caption all switch the same way.
    """

    components: list[Any] = field(default_factory=list)
    texts: list[_Texts] = field(default_factory=list)
    refreshers: list[tuple[str, Callable, list, list]] = field(default_factory=list)
    """(name, fn, inputs, outputs) re-run after a language switch, so charts and tables follow it."""

    def refresh(self, name: str, fn: Callable, inputs: list, outputs: list) -> None:
        self.refreshers.append((name, fn, inputs, outputs))

    def redraw(self) -> tuple[Callable[..., tuple], list[Any], list[Any]]:
        """Every refresher as one (fn, inputs, outputs): the page's examples, charts and tables drawn again in a new
        language by one event. Each event's answer costs the page a pass over its whole layout in Gradio 6's
        frontend (a copy of every output's props), so 11 events cost it 11 passes where this costs one.

        A refresher that fails leaves its outputs as they were (logged) and the others still follow the language."""
        import gradio as gr

        inputs: list[Any] = []
        outputs: list[Any] = []
        plan: list[tuple[str, Callable, list[int], int]] = []
        for name, fn, wanted, drawn in self.refreshers:
            positions = []
            for component in wanted:
                found = next((i for i, known in enumerate(inputs) if known is component), None)
                if found is None:
                    inputs.append(component)
                    found = len(inputs) - 1
                positions.append(found)
            if any(component is known for component in drawn for known in outputs):
                raise ValueError(f"The refresher {name!r} draws a component another refresher draws too.")
            outputs.extend(drawn)
            plan.append((name, fn, positions, len(drawn)))

        def redraw_in_language(*args: Any) -> tuple:
            values: list[Any] = []
            for name, fn, positions, count in plan:
                try:
                    result = fn(*(args[i] for i in positions))
                except Exception:
                    logger.exception("drawing %s again in the new language failed", name)
                    values.extend(gr.skip() for _ in range(count))
                    continue
                values.extend([result] if count == 1 else result)
            return tuple(values)

        return redraw_in_language, inputs, outputs

    def add(
        self,
        factory: Callable[..., C],
        /,
        *args: Any,
        label: str | None = None,
        info: str | None = None,
        text: str | Callable[[str], str] | None = None,
        choices: Callable[[str], list] | None = None,
        **kwargs: Any,
    ) -> C:
        """`factory(*args, **kwargs)` (a Gradio component class) built in English and registered.

        `label` and `info` are string keys; `text` is the key of the component's value (a Markdown's text, a
        button's caption) or a function of lang giving it (a cheap one: it runs with the labels); `choices` is a
        function of lang. Every other argument goes to the component unchanged."""
        texts = _Texts(label=label, info=info, text=text, choices=choices)
        return self._register(factory(*args, **kwargs, **texts.values("en")), texts)

    def table(
        self,
        inputs: list[Any],
        label: str,
        samples: Callable[[str], list],
        headers: tuple[str, ...] = (),
    ) -> Any:
        """A table of examples for `inputs` (a `gr.Dataset` answering a click with the row's number), labelled by the
        key `label`, its rows `samples(lang)` and its column `headers` (keys; the inputs' own labels until the first
        switch) following the language. `app.page.endpoints.example_table` wires its click."""
        import gradio as gr

        dataset = gr.Dataset(components=inputs, samples=samples("en"), type="index", label=t(label, "en"))
        return self._register(dataset, _Texts(label=label, samples=samples, headers=headers))

    def _register(self, component: C, texts: _Texts) -> C:
        self.components.append(component)
        self.texts.append(texts)
        return component

    def updates(self, lang: str) -> list[Any]:
        """One update per registered component, in `lang`."""
        import gradio as gr

        lang = normalize_lang(lang)
        return [gr.update(**texts.values(lang)) for texts in self.texts]
