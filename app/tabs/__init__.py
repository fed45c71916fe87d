"""What every tab builder receives: one `TabContext`, built once by `app.layout.build_app`.

A tab module's `build(ctx)` reads the components it shares with the page (the language switch, the model
picker), the `Translations` it registers its texts with, and the functions it wires to events (`LabViews`):
the tabs call nothing they were not given, so a test can build a tab around functions of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.i18n import Translations

if TYPE_CHECKING:
    import gradio as gr


@dataclass(frozen=True)
class LabViews:
    """The functions behind the tabs' events (each event's `api_name` is in the tab that wires it)."""

    parameters: Callable[..., tuple]
    """/parameters (`app.tabs.parameters.views.parameters_view`)."""
    preset: Callable[..., tuple]
    """/preset: the form filled from a preset, then /parameters' outputs."""
    preset_choices: Callable[[str], list[tuple[str, str]]]
    """The preset picker's entries in a language."""
    preset_fields: Callable[[str], tuple | None]
    """A preset's form values (None when unknown)."""
    compute: Callable[..., tuple]
    """/compute: FLOPs and memory of the form's model."""
    measure: Callable[..., tuple]
    """/measure_speed: times the four sharing modes on this computer."""
    sharing_configs: Callable[[str], list]
    """The sharing tab's configuration picker's entries in a language."""
    sharing_modes: Callable[..., tuple]
    """/sharing_modes."""
    layer_transitions: Callable[..., tuple]
    """/layer_transitions."""
    fill_mask: Callable[..., tuple]
    """/fill_mask."""
    mask_word: Callable[..., tuple]
    """/mask_word."""
    sentence_order: Callable[..., tuple]
    """/sentence_order."""
    split_paragraph: Callable[..., tuple]
    """/split_paragraph."""
    draw_other: Callable[..., tuple]
    """/draw_other: a segment of another book into the sentence-order tab's third box, then /sentence_order."""
    attention: Callable[..., tuple]
    """/attention."""
    sentiment: Callable[..., tuple]
    """/sentiment."""
    sentiment_card: Callable[[str], str]
    """The sentiment model's one-line card in a language."""


@dataclass(frozen=True)
class TabContext:
    """The page's shared parts and the functions the tabs call."""

    tr: Translations
    lang: gr.Radio
    """The language radio : an input of every event, so answers come in the page's language."""
    model: gr.Dropdown
    """The model picker above the tabs."""
    views: LabViews
    shipped: tuple[str, ...] = ()
    """The shipped pretraining models: the choices of the "compare with" pickers."""
    default_model: str | None = None
    """The shipped model the page starts on (None when none is shipped)."""
    compare_default: str | None = None
    """What the "compare with" pickers start on: "automatic" (`app.models.AUTO_MODEL`, the like-for-like twin or
    pair, `app.page.results.compare_choices`) when models are shipped."""

    def compare_choices(self, lang: str) -> list[tuple[str, str]]:
        """The "compare with" pickers' entries: "automatic (like-for-like)" first, then every shipped model."""
        from app.i18n import t
        from app.models import AUTO_MODEL

        return [(t("attention.compare.auto", lang), AUTO_MODEL), *((name, name) for name in self.shipped)]
