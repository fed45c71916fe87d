"""Which model answers when the user picks none ("automatic"): a written rule offline, real ALBERTs online.

**Offline, English** (`english_default`): among the shipped English models that are ALBERTs — every sublayer shared
(`sharing` "all") and trained with sentence-order prediction (`objective` "sop") — the one with the best held-out
masked-word accuracy (`metrics.json`'s `mlm_accuracy`); a tie goes to the first name in alphabetical order. Order
figures are not read: every shipped model's order verdict is a coin toss (docs/results/sentence-order.md: all but
one interval holds 50%, and that one's second draw falls back to 49.4%), and noise must not choose a class's first
model. On the shipped models this gives `albert-lab-e128-gpu` (25.9% held-out masked words): the former default
`albert-lab-e128-continued` (21.7%) continued for 262.7M more tokens on an H200, in three runs over two leases.

**Online** (on a Space, or when the hub answers: `app.models.hub.online`): *Masked words* and *Attention* start on
a real ALBERT per language (`app.models.hub.HUB_DEFAULTS`: Google's albert-base-v2, UER's Chinese ALBERT-base).
`fetch_in_background` fetches and loads both at start (`app.models.warm_up` calls it); until one is ready the
shipped model of its language answers, and every answer given "automatically" carries a line saying which model
answered and why (`AutoPick.line`). *Sentence order* and *Sharing modes* keep the shipped models: they have trained
sentence-pair heads and the like-for-like sharing pairs; Google's released ALBERTs have no trained SOP head.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.i18n import safe
from app.models import hub

logger = logging.getLogger(__name__)

AUTO = "auto"
"""The picker's "automatic" value (`app.models.AUTO_MODEL`; this module sits below the package and does not import
it)."""
RULE_SHARING = "all"
RULE_OBJECTIVE = "sop"
FETCHING, READY, FAILED = "fetching", "ready", "failed"
_LINES = {
    READY: {
        "en": "Automatic: {hub_id} answered, a real ALBERT fetched from the Hugging Face hub at start (pick a "
        "shipped model above to see ours).",
        "zh": "自动：由 {hub_id} 作答，这是启动时从 Hugging Face Hub 取来的真实 ALBERT"
        "（在上方选择一个随附模型即可看我们自己的）。",
    },
    FETCHING: {
        "en": "Automatic: our {ours} answered; {hub_id} (about {mb} MB) is still being fetched in the background "
        "and answers once it is ready.",
        "zh": "自动：由我们的 {ours} 作答；{hub_id}（约 {mb} MB）仍在后台下载，准备好后由它作答。",
    },
    FAILED: {
        "en": "Automatic: our {ours} answered; {hub_id} could not be fetched at start ({reason}).",
        "zh": "自动：由我们的 {ours} 作答；启动时未能取得 {hub_id}（{reason}）。",
    },
}
"""The line beside every automatic answer while the app is online, in both languages (strings as data, as the hub
catalogue's facts are)."""


# ----- offline: the written rule ----------------------------------------------------------------------------------
def english_default(metrics: Mapping[str, Mapping[str, Any] | None]) -> str | None:
    """The English default among `metrics` (shipped English model name → its metrics.json, None when it has none),
    by the rule in this module's docstring; None when no model qualifies."""
    candidates = {
        name: float(m["mlm_accuracy"])
        for name, m in metrics.items()
        if isinstance(m, Mapping)
        and m.get("sharing") == RULE_SHARING
        and m.get("objective") == RULE_OBJECTIVE
        and isinstance(m.get("mlm_accuracy"), (int, float))
    }
    if not candidates:
        return None
    return min(candidates, key=lambda name: (-candidates[name], name))


# ----- online: real ALBERTs, fetched at start -----------------------------------------------------------------------
_states: dict[str, tuple[str, str]] = {}
"""Language → (FETCHING | READY | FAILED, the reason of a failure)."""
_states_lock = threading.Lock()


def state(lang: str) -> tuple[str, str] | None:
    """(state, reason) of the language's hub default, None when no fetch was started (offline)."""
    with _states_lock:
        return _states.get(lang)


def _set(lang: str, value: str, reason: str = "") -> None:
    with _states_lock:
        _states[lang] = (value, reason)


def fetch_in_background(
    load: Callable[[str], Any], is_online: Callable[[], bool] | None = None
) -> threading.Thread | None:
    """When `is_online()` (default `app.models.hub.online`), mark each language's hub default as being fetched and
    load them, English first, in a daemon thread with `load` (`app.models.load`: it downloads into the Hugging Face
    cache, then builds the model); returns the thread, None offline (nothing is marked: the shipped models answer
    without a line)."""
    if not (is_online or hub.online)():
        logger.info("offline: the shipped models stay the starting models")
        return None
    for lang in hub.HUB_DEFAULTS:
        _set(lang, FETCHING)

    def fetch() -> None:
        for lang, hub_id in hub.HUB_DEFAULTS.items():
            try:
                load(hub_id)
            except Exception as error:  # a ModelError's sentence, or anything a download raises: said, not raised
                logger.warning("could not fetch %s at start: %s", hub_id, error)
                _set(lang, FAILED, safe(str(error).split(";")[0], 160))  # the sentence's first clause: why
                continue
            logger.info("%s is ready: it now answers automatic requests in %s", hub_id, lang)
            _set(lang, READY)

    thread = threading.Thread(target=fetch, name="hub-defaults", daemon=True)
    thread.start()
    return thread


@dataclass(frozen=True)
class AutoPick:
    """What an automatic request loads, and the line that says so."""

    value: str
    """The picker value to load (`app.models.load`): the hub default when ready, else the shipped model's."""
    hub_id: str | None = None
    """The language's hub default when the app is online and the user picked nothing, else None."""
    status: str = ""
    """Its state when it was picked (FETCHING, READY or FAILED)."""
    reason: str = ""

    def line(self, answered: str, lang: str = "en") -> list[str]:
        """[the sentence naming the model that answered] for an online automatic request, [] otherwise."""
        if self.hub_id is None or self.status not in _LINES:
            return []
        lang = "zh" if lang == "zh" else "en"
        model = hub.hub_model(self.hub_id)
        mb = f"{model.download_bytes / 1e6:,.0f}" if model is not None else "?"
        return [_LINES[self.status][lang].format(hub_id=self.hub_id, ours=safe(answered), mb=mb, reason=self.reason)]


def pick(choice: str | None, language: str, shipped: str) -> AutoPick:
    """The model for *Masked words* and *Attention*: `shipped` (the shipped model for the text, `app.models.model_for`;
    an explicit choice as it is) unless the choice is "automatic" (or nothing) and the app is online: then the hub
    default of `language` (the text's, `app.models.languages.text_language`) once it is ready, with the line that
    says which answered. `app.models.resolve_model` reads the language once and calls it."""
    automatic = (choice.strip() if isinstance(choice, str) else choice) in ("", None, AUTO)
    found = state(language) if automatic else None
    if automatic and found is None and hub.on_space():
        found = (FETCHING, "")  # a Space's warm-up loads ours first, then starts the fetch: it is on its way
    if found is None:
        return AutoPick(shipped)
    status, reason = found
    hub_id = hub.HUB_DEFAULTS[language]
    return AutoPick(hub_id if status == READY else shipped, hub_id, status, reason)


def reset() -> None:
    """Forget every fetch (tests)."""
    with _states_lock:
        _states.clear()
