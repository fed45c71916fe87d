"""The page: header, language switch, model picker and the tabs, plus how to launch it."""

from __future__ import annotations

import logging
import os
from typing import Any

import gradio as gr

from app import tab_parameters, views
from app.i18n import LANGUAGES, Translations, t

logger = logging.getLogger(__name__)
THEME = gr.themes.Soft(primary_hue="indigo", secondary_hue="amber", neutral_hue="slate")
CSS = """
.gradio-container { max-width: 1280px !important; margin: auto; }
#lab-header h1 { margin-bottom: 0.2em; }
#parameters-totals table, #embedding-arithmetic table { font-variant-numeric: tabular-nums; }
.lab-iframe { width: 100%; border: 1px solid var(--border-color-primary); border-radius: 8px; background: white; }
"""


def build_app() -> gr.Blocks:
    """The whole app. Models are found and loaded when a tab first needs them, not here."""
    tr = Translations()
    with gr.Blocks(title=t("app.title", "en"), analytics_enabled=False) as demo:
        with gr.Row(equal_height=True):
            intro = gr.Markdown(t("app.intro", "en"), elem_id="lab-header")
            tr.add(intro, value="app.intro")
            lang = gr.Radio(LANGUAGES, value="en", label=t("app.language", "en"), elem_id="language",
                            scale=0, min_width=200)
        with gr.Tabs():
            with gr.Tab(t("tab.parameters", "en"), id="parameters") as tab:
                tab_parameters.build(tr, lang, views.parameters_view, views.preset_view, views.preset_choices)
            tr.add(tab, label="tab.parameters")
        tr.add(lang, label="app.language")
        lang.change(tr.updates, inputs=lang, outputs=tr.components, api_name="set_language",
                    concurrency_limit=None)
    return demo


def launch_options() -> dict[str, Any]:
    """Keyword arguments for `Blocks.launch`: address from the environment (as Spaces sets it), theme, CSS."""
    port = os.environ.get("GRADIO_SERVER_PORT", "").strip()
    return {
        "server_name": os.environ.get("GRADIO_SERVER_NAME", "").strip() or "127.0.0.1",
        "server_port": int(port) if port else 7860,
        "theme": THEME,
        "css": CSS,
        "footer_links": ["api", "settings"],
    }
