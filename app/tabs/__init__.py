"""What every tab builder receives: one `TabContext`, built once by `app.layout.build_app`.

A tab module declares its endpoints in `ENDPOINTS` (`app.page.endpoints.Endpoint`: name, function, cost, …) and
builds its components in `build(ctx)`, wiring each endpoint to them. `ctx` holds what the tab shares with the page:
the language switch, the model picker, and the `Translations` it registers its texts with.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.i18n import Translations, t
from app.models import AUTO_MODEL

if TYPE_CHECKING:
    import gradio as gr

    from app.page.runs import TabRun


@dataclass(frozen=True)
class TabContext:
    """The page's shared parts."""

    tr: Translations
    lang: gr.Radio
    """The language radio : an input of every event, so answers come in the page's language."""
    model: gr.Dropdown
    """The model picker above the tabs."""
    shipped: tuple[str, ...] = ()
    """The shipped pretraining models: the choices of the "compare with" pickers."""
    default_model: str | None = None
    """The shipped model the page starts on (None when none is shipped)."""
    compare_default: str | None = None
    """What the "compare with" pickers start on: "automatic" (`app.models.AUTO_MODEL`, the like-for-like twin or
    pair, `app.page.results.compare_choices`) when models are shipped."""
    runs: dict[str, TabRun] = field(default_factory=dict)
    """Each model tab's run event by its endpoint's name, noted as the tab wires it (`app.page.runs.wire_run`)."""

    def compare_choices(self, lang: str) -> list[tuple[str, str]]:
        """The "compare with" pickers' entries: "automatic (like-for-like)" first, then every shipped model."""
        return [(t("attention.compare.auto", lang), AUTO_MODEL), *((name, name) for name in self.shipped)]
