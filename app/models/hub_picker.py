"""The hub catalogue (`app.models.hub`) on the page: the pickers' entries, a Space's starting model, and the notice
before a first download."""

from __future__ import annotations

import logging
import threading
import time

from app.i18n import t
from app.models import hub

logger = logging.getLogger(__name__)


ANNOUNCE_EVERY_SECONDS = 60.0
"""One notice per model in this time: the tabs that read the picker all load it at once (five identical notices
covered the page before)."""
_announced: dict[str, float] = {}
_announced_lock = threading.Lock()


def announce_download(hub_id: str, lang: str = "en") -> str | None:
    """Before a catalogue model that is not cached downloads: say so on the page (a Gradio notice on the request
    that waits for it) and in the log, once a minute per model; returns the sentence, None when nothing is said:
    it is cached, it was just announced, or the hub does not answer (nothing will download: the load says why)."""
    model = hub.hub_model(hub_id)
    if model is None or hub.is_cached(model.hub_id) or not hub.hub_reachable():
        return None
    with _announced_lock:
        now = time.monotonic()
        if now - _announced.get(model.hub_id, -ANNOUNCE_EVERY_SECONDS) < ANNOUNCE_EVERY_SECONDS:
            return None
        _announced[model.hub_id] = now
    message = t("model.hub.downloading", lang, id=model.hub_id, mb=f"{model.download_bytes / 1e6:,.0f}")
    logger.info(message)
    try:
        import gradio as gr

        gr.Info(message, duration=60)
    except Exception as error:  # outside a request (tests, warm-up) there is no page to tell
        logger.debug("no page to show the download notice on: %s", error)
    return message


def hub_choices(lang: str = "en") -> list[tuple[str, str]]:
    """The pickers' hub entries (label, hub id): the catalogue models cached here or downloadable now."""
    entries = []
    for model in hub.offered(lang):
        key = "model.hub.label.cached" if hub.is_cached(model.hub_id) else "model.hub.label"
        params = f"{model.parameters / 1e6:.0f}M"
        label = t(key, lang, id=model.hub_id, params=params, mb=f"{model.download_bytes / 1e6:,.0f}")
        entries.append((label, model.hub_id))
    return entries


def picker_default(models: list[str], fallback: str | None) -> str | None:
    """The picker's starting value: a Space's `ALBERT_LAB_DEFAULT_MODEL` when it can be had, else `fallback`."""
    return hub.default_from_environment(models) or fallback


__all__ = ["announce_download", "hub_choices", "picker_default"]
