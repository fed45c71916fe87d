"""Which models the app can use, and loading them (cached) with their tokenizers.

Shipped models live in `assets/models/<name>/` (a `from_pretrained` directory); the folder
can be moved with the `ALBERT_LAB_MODELS` environment variable (tests point it at tiny
models). The picker also accepts a local checkpoint directory or a Hugging Face hub id.
Every failure becomes a `ModelError` whose message is one sentence in the user's language.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING, Any

from albert.core.config import AlbertConfig, ConfigError
from albert.core.hf import BERT_CLASSES, holds_sentence_pair_head
from app import settings
from app.i18n import safe, t
from app.inputs import MAX_NAME_CHARS
from app.models import budget, cache, hub
from app.models.files import (
    ModelError,
    NotAFile,
    TooLarge,
    check_tokenizer_files,
    check_weights,
    is_model_folder,
    read_config,
    read_json,
)
from app.models.guards import load_refusal, refuse_non_finite_outputs
from app.models.hub_picker import announce_download

if TYPE_CHECKING:
    from app.models.defaults import AutoPick

logger = logging.getLogger(__name__)
REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_MODEL = "albert-lab-e128-gpu"
"""The English model the app uses offline unless another is picked: `app.models.defaults.english_default`'s rule
(an ALBERT: all shared, SOP; the best held-out masked words, 25.9%) on the shipped models (tests/app check that)."""
FORMER_DEFAULT_MODEL = "albert-lab-none-s1"
"""Issue 30's default (nothing shared, chosen by an order interval whose second draw was a coin toss)."""
NOT_SHARED_MODEL = "albert-lab-none"
SHARED_TWINS: dict[str, str] = {
    "albert-lab-none": "albert-lab-all",
    "albert-lab-none-s1": "albert-lab-all-s1",
    "albert-lab-zh-none": "albert-lab-zh-all",
}
"""A not-shared arm's like-for-like all-shared arm (same E, data, tokens and seed): what it is compared with."""
FAIR_PAIRS: dict[str, tuple[str, str]] = {
    "en": ("albert-lab-all", "albert-lab-none"),
    "zh": ("albert-lab-zh-all", "albert-lab-zh-none"),
}
"""Each language's like-for-like pair (same recipe, E, tokens and seed; only sharing differs): what a model that
has no twin of its own is compared through, unless the user picks a model to compare with."""
ZH_MODEL = "albert-lab-zh"
"""The Chinese model (a character vocabulary): masked words, sentence order and attention for Chinese text."""
NSP_MODELS: dict[str, str] = {"en": "albert-lab-nsp", "zh": "albert-lab-zh-nsp"}
"""Each language's NSP arm (BERT's next-sentence objective): the *Sentence order* tab shows it beside the SOP model,
the paper's Table 5 argument live (it reads topic, not order)."""
CHINESE_MODELS = frozenset(
    {ZH_MODEL, NSP_MODELS["zh"], "albert-lab-zh-sop-reviews", *FAIR_PAIRS["zh"], *hub.CHINESE_HUB_MODELS}
)
"""The models that read Chinese (shipped with a character vocabulary, and the catalogue's Chinese hub models)."""
AUTO_MODEL = "auto"
"""The picker's "automatic" value (as is an empty one): the model for the text's language (`model_for`)."""
_PREFERRED_ORDER = (
    DEFAULT_MODEL,
    FORMER_DEFAULT_MODEL,
    "albert-lab-e128-continued",  # the default before the H200 continued it (albert-lab-e128-gpu)
    "albert-lab-base",
    NOT_SHARED_MODEL,
    ZH_MODEL,
    NSP_MODELS["zh"],
    "albert-lab-all",
    "albert-lab-attention",
    "albert-lab-ffn",
    "albert-lab-nsp",
    "albert-lab-mlm",
)
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}(/[\w.-]{1,96})?$")
MAX_TOKENS = 512
"""Most tokens one request reads (BERT's and ALBERT's 512), whatever the model's positions allow."""
_PRETRAINING_CLASSES = frozenset({"AlbertForPreTraining", "AlbertForMaskedLM"})
PRETRAINING_ARCHITECTURES = _PRETRAINING_CLASSES | {
    bert for bert, ours in BERT_CLASSES.items() if ours in _PRETRAINING_CLASSES
}
"""What the model tabs can use (MLM head, and the sentence-pair head when trained), ALBERT's or BERT's. A
classifier fine-tuned from one (the Sentiment tab's model) has neither, so it is never offered here."""


def configure_torch_threads() -> int:
    """Use `ALBERT_LAB_TORCH_THREADS` (default 1) threads per forward pass; returns the number set.

    The app's requests are small (one sentence) and run one at a time. On a shared 2-core machine
    (a free Space, a classroom laptop) a second thread mostly waits for a busy core: measured here
    under load, one 23×128 linear layer took 16 ms with 2 threads and 0.02 ms with 1. One thread
    keeps latency steady and leaves a core for the web server.
    """
    import torch

    threads = max(int(settings.TORCH_THREADS.number(1)), 1)
    torch.set_num_threads(threads)
    return threads


def models_dir() -> Path:
    """Where shipped models are looked for (`ALBERT_LAB_MODELS` overrides `assets/models`)."""
    override = settings.MODELS.read()
    return Path(override) if override else REPO_ROOT / "assets" / "models"


def shipped_models(directory: Path | None = None) -> list[str]:
    """Names of the shipped pretraining models (folders holding config.json), the default first."""
    root = directory or models_dir()
    if not root.is_dir():
        return []
    configs = []
    with os.scandir(root) as entries:  # ~20× cheaper than Path.glob; every request asks, several times
        for entry in entries:
            try:
                stat = os.stat(os.path.join(entry.path, "config.json"))
            except OSError:
                continue
            if S_ISREG(stat.st_mode):
                configs.append((entry.name, stat.st_size, stat.st_mtime_ns))
    return list(_pretraining_models(str(root), tuple(sorted(configs))))


@functools.lru_cache(maxsize=16)
def _pretraining_models(root: str, configs: tuple[tuple[str, int, int], ...]) -> tuple[str, ...]:
    """The pretraining models among `configs` (folder name, size and time of its config.json), the default first:
    every request asks (~1 ms of reading JSON each time before), and the answer changes only with the files."""
    names = [name for name, _, _ in configs if is_pretraining(Path(root) / name)]
    rank = {name: i for i, name in enumerate(_PREFERRED_ORDER)}
    return tuple(sorted(names, key=lambda n: (rank.get(n, len(rank)), n)))


def architectures(directory: Path) -> list[str]:
    """The `architectures` field of a checkpoint's config.json ([] when absent or unreadable)."""
    try:
        data = read_json(directory / "config.json")
    except (NotAFile, TooLarge, ValueError):
        return []
    return config_architectures(data)


def config_architectures(data: Any) -> list[str]:
    """The architectures a config's raw dictionary names (at most ten, as text)."""
    names = data.get("architectures") if isinstance(data, dict) else None
    return [str(n) for n in names][:10] if isinstance(names, list) else []


def is_pretraining(directory: Path) -> bool:
    """Whether a checkpoint is a pretraining model; one whose config names no architecture counts as one."""
    names = architectures(directory)
    return not names or any(n in PRETRAINING_ARCHITECTURES for n in names)


def default_model() -> str | None:
    models = shipped_models()
    return models[0] if models else None


def comparison_model(name: str | None = None) -> str | None:
    """The model to set beside `name` (default: the app's default) in shared-against-not-shared views: a not-shared
    arm's all-shared twin (`SHARED_TWINS`), else the not-shared model (`NOT_SHARED_MODEL`, or any shipped model with
    sharing `none`); None when there is none to compare with."""
    models = shipped_models()
    name = name or default_model()
    config = shipped_config(name) if name in models else None
    if config is not None and config.sharing == "none":
        twin = SHARED_TWINS.get(name)
        if twin in models:
            return twin
        wanted = "all"
    else:
        if NOT_SHARED_MODEL in models and NOT_SHARED_MODEL != name:
            return NOT_SHARED_MODEL
        wanted = "none"
    for candidate in models:
        candidate_config = shipped_config(candidate)
        if candidate != name and candidate_config is not None and candidate_config.sharing == wanted:
            return candidate
    return None


def twin_of(name: str) -> str | None:
    """A shipped model's like-for-like twin (the all-shared arm of a not-shared one, and back), None without one."""
    twins = {**SHARED_TWINS, **{shared: alone for alone, shared in SHARED_TWINS.items()}}
    twin = twins.get(name)
    return twin if twin in shipped_models() else None


def fair_comparison(name: str) -> list[str]:
    """The models set beside `name` when the user picks none: its twin (`twin_of`), else its language's
    like-for-like pair (`FAIR_PAIRS`, both shipped) less `name` itself, else the legacy `comparison_model`."""
    twin = twin_of(name)
    if twin is not None:
        return [twin]
    pair = FAIR_PAIRS["zh" if name in CHINESE_MODELS else "en"]
    models = shipped_models()
    if all(member in models for member in pair):
        return [member for member in pair if member != name]
    fallback = comparison_model(name)
    return [fallback] if fallback and fallback != name else []


def language_models() -> dict[str, str | None]:
    """The shipped model that reads each language ('en', 'zh'), None where none is shipped."""
    models = shipped_models()
    english = DEFAULT_MODEL if DEFAULT_MODEL in models else next((m for m in models if m not in CHINESE_MODELS), None)
    return {"en": english, "zh": ZH_MODEL if ZH_MODEL in models else None}


def nsp_model(lang: str) -> str | None:
    """The shipped NSP arm that reads `lang` ('en', 'zh'), None when it is not shipped."""
    name = NSP_MODELS.get(lang)
    return name if name in shipped_models() else None


def model_for(choice: str | None, text: str, lang: str = "en", language: str | None = None) -> str:
    """The picker value to load for `text`: an explicit choice as it is; "automatic" (AUTO_MODEL or empty)
    becomes the Chinese model when it is shipped and the text reads as Chinese (`language`, else `text_language`:
    mostly Han letters, or no clear script in the 中文 interface), else the default model (empty)."""
    from app.models.languages import text_language

    value = choice.strip() if isinstance(choice, str) else choice
    if value not in ("", None, AUTO_MODEL):
        return value  # type: ignore[return-value] — resolve() refuses anything but text with one sentence
    chinese = language_models()["zh"]
    return chinese if chinese and (language or text_language(text, lang)) == "zh" else ""


def resolve_model(choice: str | None, text: str, lang: str = "en") -> AutoPick:
    """The model that answers `text` in *Masked words* and *Attention*: the text's language read once
    (`text_language`), the shipped model for it (`model_for`) and, when the app is online and the choice is
    "automatic", the hub default of that language once fetched (`defaults.pick`, with its line)."""
    from app.models.defaults import pick
    from app.models.languages import text_language

    language = text_language(text, lang)
    return pick(choice, language, model_for(choice, text, lang, language))


def shipped_config(name: str) -> AlbertConfig | None:
    """The config of a shipped model, or None when it cannot be read."""
    from albert.core.checkpoint import load_config

    try:
        return load_config(models_dir() / name)
    except (ConfigError, OSError) as error:
        logger.warning("cannot read config of shipped model %s: %s", name, error)
        return None


def shipped_metrics(name: str) -> dict[str, Any] | None:
    """Held-out metrics recorded next to a shipped model (metrics.json), if any."""
    try:
        data = read_json(models_dir() / name / "metrics.json")
    except (NotAFile, TooLarge, ValueError):
        return None
    return data if isinstance(data, dict) else None


@dataclass
class LoadedModel:
    """A pretraining model (MLM + sentence-pair head) ready for inference, with its tokenizer."""

    name: str
    kind: str
    """'shipped', 'local' or 'hub'."""
    directory: Path
    model: Any
    tokenizer: Any
    config: AlbertConfig
    has_sentence_head: bool
    """False for checkpoints without trained SOP/NSP weights (every hub ALBERT): that head is random."""
    metrics: dict[str, Any] | None = None
    special_ids: frozenset[int] = field(default_factory=frozenset)

    @property
    def max_tokens(self) -> int:
        """Tokens per request: the model's positions, at most MAX_TOKENS."""
        return min(self.config.max_position_embeddings, MAX_TOKENS)

    @property
    def mask_id(self) -> int:
        return int(self.tokenizer.mask_token_id)

    @functools.cached_property
    def parameter_count(self) -> int:
        """The model's parameters (each shared one once), counted at the first ask: every answer's framing line
        names it, and summing ~100 tensors cost ~0.5 ms of each request."""
        return sum(p.numel() for p in self.model.parameters())


def resolve(choice: str | None, lang: str = "en") -> tuple[str, str]:
    """(kind, location) of a picker value: a shipped name, a local model folder or a hub id.

    A path that is not a model folder (missing, a file, a folder without config.json and
    model.safetensors, a FIFO…) always gets the same sentence, naming only its last part: the
    picker must not tell an existing folder such as ~/.ssh from a missing one.
    """
    text = _picked_text(choice, lang)
    if not text:
        default = default_model()
        if default is None:
            raise ModelError(t("model.err.none_shipped", lang))
        return "shipped", str(models_dir() / default)
    if any(ord(c) < 32 for c in text):
        raise ModelError(t("model.err.bad_name", lang, value=_short(text)))
    if text in shipped_models():
        return "shipped", str(models_dir() / text)
    try:
        path = Path(text).expanduser()
        if is_model_folder(path):
            return "local", str(path.resolve())
    except (OSError, RuntimeError, ValueError):  # a name too long for the file system, a missing home…
        pass
    # Whether the path exists is never consulted: only its spelling decides the message.
    if text.startswith((".", "/", "~", "\\")) or "\\" in text or text.count("/") > 1:
        raise ModelError(t("model.err.not_dir", lang, value=_short(_last_part(text))))
    if _HUB_ID.match(text):
        return "hub", text
    raise ModelError(t("model.err.bad_name", lang, value=_short(text)))


def _picked_text(choice: str | None, lang: str) -> str:
    """The picker's value as text, stripped; "" for none or "automatic"; refused when not text or too long."""
    if choice is not None and not isinstance(choice, str):
        raise ModelError(t("model.err.not_text", lang))
    text = (choice or "").strip()
    if len(text) > MAX_NAME_CHARS:
        raise ModelError(
            t("input.err.name_too_long", lang, field=t("app.model", lang), n=f"{len(text):,}", limit=MAX_NAME_CHARS)
        )
    return "" if text == AUTO_MODEL else text


def _last_part(text: str) -> str:
    """'/root/.ssh' → '.ssh': what a message may show of a path."""
    return text.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or text[:1]


def _short(text: str, limit: int = 80) -> str:
    return safe(text, limit)


def load(choice: str | None, lang: str = "en") -> LoadedModel:
    """The model a picker value names, loaded once and kept in the app's one model cache (`app.models.cache`). A hub
    download (the background fetch at start, or a user's pick) never holds up requests for models already in memory."""
    kind, location = resolve(choice, lang)

    def build() -> LoadedModel:
        started = time.monotonic()
        loaded = load_uncached(kind, location, lang)
        if kind == "hub":  # a first download (hundreds of MB) is not the request's computing time
            budget.extend(time.monotonic() - started)
        return loaded

    return cache.cached(("pretraining", kind, location), build)


def warm_up() -> list[str]:
    """Import torch, set its threads and load the shipped model of each language; returns the names loaded. Online,
    it then starts fetching the hub's real ALBERTs in the background (`app.models.defaults.fetch_in_background`).

    `app.py` runs this in a thread once the server is up: the page is served without waiting for torch
    (about 2.5 s to import), and the first request finds its model in memory. A request that comes
    sooner waits for the same import and load (Python's import lock and the model's lock in `load`).
    """
    from app.models.defaults import fetch_in_background

    logger.info("torch uses %d thread(s) per request", configure_torch_threads())
    loaded = []
    for name in dict.fromkeys(n for n in language_models().values() if n):
        try:
            loaded.append(load(name).name)
        except ModelError as error:
            logger.warning("warm-up could not load %s: %s", name, error)
    fetch_in_background(load)
    return loaded


def load_uncached(kind: str, location: str, lang: str) -> LoadedModel:
    """The model at `location` (of `kind`, as `resolve` gives them), loaded and checked now (`load` keeps it)."""
    from albert import AlbertForPreTraining
    from albert.core.checkpoint import CheckpointError, resolve_directory

    name = Path(location).name if kind != "hub" else location
    if kind == "hub":
        from app.models.hub_sizes import check_before_download

        check_before_download(location, lang)  # from the hub's metadata, before any weight is downloaded
        announce_download(location, lang)
    try:
        directory = Path(resolve_directory(location))
    except CheckpointError as error:
        if kind == "hub":
            raise ModelError(t("model.err.hub", lang, value=_short(location))) from error
        raise ModelError(t("model.err.not_dir", lang, value=_short(name))) from error
    if not is_model_folder(directory):
        raise ModelError(t("model.err.not_dir", lang, value=_short(name)))

    def pretraining_only(config: AlbertConfig, raw: dict[str, Any]) -> None:
        found = config_architectures(raw)
        if found and not any(n in PRETRAINING_ARCHITECTURES for n in found):
            # Loading it here would pair its encoder with random MLM/SOP heads: a silent wrong answer.
            raise ModelError(t("model.err.not_pretraining", lang, name=_short(name), found=_short(", ".join(found))))

    checked = load_checked(directory, name, AlbertForPreTraining, lang, pretraining_only)
    if checked.tokenizer.mask_token_id is None:
        raise ModelError(
            t(
                "model.err.tokenizer_mismatch",
                lang,
                name=_short(name),
                n=len(checked.tokenizer),
                V=checked.config.vocab_size,
            )
        )
    logger.info("loaded %s model %s from %s", kind, name, directory)
    return LoadedModel(
        name=name,
        kind=kind,
        directory=directory,
        model=checked.model,
        tokenizer=checked.tokenizer,
        config=checked.config,
        has_sentence_head=holds_sentence_pair_head(checked.shapes),
        metrics=shipped_metrics(name) if kind == "shipped" else None,
        special_ids=frozenset(int(i) for i in checked.tokenizer.all_special_ids),
    )


@dataclass(frozen=True)
class CheckedModel:
    """A model built by `load_checked`, with its tokenizer and the shapes its weight file held."""

    model: Any
    tokenizer: Any
    config: AlbertConfig
    shapes: dict[str, tuple[int, ...]]


def load_checked(
    directory: Path,
    name: str,
    head: Any,
    lang: str,
    accepts: Callable[[AlbertConfig, dict[str, Any]], None] = lambda config, raw: None,
) -> CheckedModel:
    """Every model the app serves is loaded here, as `head` (AlbertForPreTraining, AlbertForSequenceClassification),
    with the same checks: the config read from a bounded regular file and its sizes bounded, `accepts(config, raw)`
    (the caller's own refusal, one sentence), the weight file's shapes against the config, the tokenizer files
    bounded, then built, its outputs finite, its passes under the request's time budget, and a tokenizer that fits
    its vocabulary."""
    config, raw = read_config(directory, name, lang)
    accepts(config, raw)
    shapes = check_weights(directory, config, name, lang)
    check_tokenizer_files(directory, name, lang)
    try:
        model = head.from_pretrained(directory)
    except (ConfigError, OSError, ValueError, KeyError, RuntimeError) as error:
        raise load_refusal(error, name, directory, lang) from error
    budget.watch(model.eval())
    refuse_non_finite_outputs(model, name)
    tokenizer = load_tokenizer(directory, name, lang)
    if len(tokenizer) > model.config.vocab_size:
        raise ModelError(
            t("model.err.tokenizer_mismatch", lang, name=_short(name), n=len(tokenizer), V=model.config.vocab_size)
        )
    return CheckedModel(model, tokenizer, model.config, shapes)


def load_tokenizer(directory: Path, name: str, lang: str = "en") -> Any:
    """The checkpoint's tokenizer (transformers' AlbertTokenizerFast, or BertTokenizerFast for a BERT folder's
    WordPiece files), via albert.data.tokenizer when present."""
    try:
        from albert.data.tokenizer import load_tokenizer as lab_load_tokenizer  # type: ignore[attr-defined]
    except ImportError:
        lab_load_tokenizer = None
    try:
        if lab_load_tokenizer is not None:
            return lab_load_tokenizer(directory)
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(str(directory))
    except Exception as error:  # transformers raises many kinds here; the user needs one sentence
        logger.warning("tokenizer of %s failed: %r", directory, error)
        raise ModelError(t("model.err.tokenizer", lang, name=_short(name))) from error
