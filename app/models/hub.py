"""Real checkpoints beside ours: Google's ALBERT and BERT from the Hugging Face hub, when they can be had.

The pickers offer each model below when it is already in the local Hugging Face cache, or when the hub answers
(a Space is online; a classroom laptop may not be). A model that is neither is not offered, and typing its id
anyway is refused with one sentence by the loader. Every one still passes `app.models.files`' pre-allocation
checks (BERT-large, the largest, has 335M parameters against the 350M limit).

Facts are data, in both languages: who trained it, on what, its parameter count (our own formula,
`albert.count_parameters`, on its published config) and what it lacks. Hub ALBERT checkpoints carry no trained
sentence-order head (Google released the encoder and the MLM head), so the *Sentence order* tab says so instead
of reading a random head; BERT's NSP head is trained and reads topic, not order.

A Space picks its default with `ALBERT_LAB_DEFAULT_MODEL` (a shipped name or one of these ids). Without it, when
the hub answers or the app runs on a Space (`online`), *Masked words* and *Attention* start on `HUB_DEFAULTS` once
they are fetched (`app.models.hub_defaults`); offline, the default stays ours.

UER's Chinese ALBERTs (`uer/albert-*-chinese-cluecorpussmall`) publish a WordPiece `vocab.txt` (BERT-Chinese's) and
`pytorch_model.bin` only: the library reads that file with `torch.load(weights_only=True)`, and the app reads its
shapes onto the `meta` device first (`app.models.files`).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from albert import PRESETS, count_parameters
from app import settings

logger = logging.getLogger(__name__)

REACHABILITY_TTL_S = 600.0
REACHABILITY_TIMEOUT_S = 3.0


@dataclass(frozen=True)
class HubModel:
    """One real checkpoint the pickers can offer."""

    hub_id: str
    preset: str
    vocab_size: int
    language: str
    trained_by: dict[str, str]
    trained_on: dict[str, str]
    lacks: dict[str, str]
    weights: str = "model.safetensors"
    """The weights file the hub repository publishes (UER's: pytorch_model.bin only)."""

    @property
    def parameters(self) -> int:
        """Parameters by our own formula on the published sizes (encoder, embeddings and heads as counted there)."""
        return count_parameters(dataclasses.replace(PRESETS[self.preset], vocab_size=self.vocab_size)).total

    @property
    def download_bytes(self) -> int:
        """Approximate download: fp32 weights, 4 bytes per parameter (tokenizer files add under 1 MB)."""
        return 4 * self.parameters

    @property
    def is_bert(self) -> bool:
        return self.preset.startswith("bert")

    def describe(self, lang: str = "en") -> str:
        """One paragraph for the model's framing: what it is and what it lacks."""
        lang = "zh" if lang == "zh" else "en"
        size = f"{self.parameters / 1e6:.1f}M"
        if lang == "zh":
            return (
                f"{self.hub_id}：{self.trained_by['zh']}训练，语料为{self.trained_on['zh']}；{size} 参数"
                f"（按本项目的公式计算），下载约 {self.download_bytes / 1e6:,.0f} MB。{self.lacks['zh']}"
            )
        return (
            f"{self.hub_id}: trained by {self.trained_by['en']} on {self.trained_on['en']}; {size} parameters "
            f"(our formula), about {self.download_bytes / 1e6:,.0f} MB to download. {self.lacks['en']}"
        )


_GOOGLE = {"en": "Google (Lan et al., ICLR 2020)", "zh": "Google（Lan 等，ICLR 2020）"}
_GOOGLE_BERT = {"en": "Google (Devlin et al., NAACL 2019)", "zh": "Google（Devlin 等，NAACL 2019）"}
_BOOKS_WIKI = {
    "en": "BookCorpus and English Wikipedia (16 GB of text)",
    "zh": "BookCorpus 与英文维基百科（16 GB 文本）",
}
_ALBERT_V2_DATA = {
    "en": "BookCorpus and English Wikipedia, plus the paper's additional data (section 4.9: the v2 recipe, no dropout)",
    "zh": "BookCorpus 与英文维基百科，另加论文第 4.9 节的额外数据（v2 版：无 dropout）",
}
_NO_SOP = {
    "en": "It has no trained sentence-order head: Google released the encoder and the masked-word head only.",
    "zh": "它没有训练过的句序（SOP）头：Google 只发布了编码器和掩码词预测头。",
}
_NSP = {
    "en": "Its next-sentence (NSP) head is trained, and it reads topic more than order.",
    "zh": "它的下一句预测（NSP）头经过训练，主要读的是话题，而不是顺序。",
}


_UER = {"en": "UER (Zhao et al., EMNLP 2019 demo; Tencent)", "zh": "UER（Zhao 等，EMNLP 2019 系统展示；腾讯）"}
_CLUE_SMALL = {"en": "CLUECorpusSmall (14 GB of Chinese text)", "zh": "CLUECorpusSmall（14 GB 中文文本）"}
_UER_FILES = {
    "en": "Its vocabulary is BERT-Chinese's WordPiece vocab.txt (one piece per Han character), and its weights come "
    "as pytorch_model.bin only, read here with weights_only=True (no code in the file can run).",
    "zh": "它的词表是 BERT 中文版的 WordPiece vocab.txt（每个汉字一个词元），权重只有 pytorch_model.bin，"
    "这里用 weights_only=True 读取（文件里的代码不会被执行）。",
}


def _albert(size: str) -> HubModel:
    return HubModel(f"albert/albert-{size}-v2", f"albert-{size}", 30000, "en", _GOOGLE, _ALBERT_V2_DATA, _NO_SOP)


def _uer_albert(size: str) -> HubModel:
    return HubModel(
        f"uer/albert-{size}-chinese-cluecorpussmall",
        f"albert-{size}",
        21128,
        "zh",
        _UER,
        _CLUE_SMALL,
        _UER_FILES,
        weights="pytorch_model.bin",
    )


HUB_MODELS: tuple[HubModel, ...] = (
    _albert("base"),
    _albert("large"),
    _albert("xlarge"),
    _albert("xxlarge"),
    HubModel("google-bert/bert-base-uncased", "bert-base", 30522, "en", _GOOGLE_BERT, _BOOKS_WIKI, _NSP),
    HubModel("google-bert/bert-large-uncased", "bert-large", 30522, "en", _GOOGLE_BERT, _BOOKS_WIKI, _NSP),
    _uer_albert("base"),  # before BERT-Chinese: 中文 lists its ALBERTs first
    _uer_albert("large"),
    HubModel(
        "google-bert/bert-base-chinese",
        "bert-base",
        21128,
        "zh",
        _GOOGLE_BERT,
        {"en": "Chinese Wikipedia", "zh": "中文维基百科"},
        _NSP,
    ),
)
BY_ID = {model.hub_id: model for model in HUB_MODELS}
HUB_DEFAULTS: dict[str, str] = {"en": "albert/albert-base-v2", "zh": "uer/albert-base-chinese-cluecorpussmall"}
"""The real ALBERT each language's *Masked words* and *Attention* start on when `online()`: Google's ALBERT-base
(47 MB) and UER's Chinese ALBERT-base (the most used Chinese ALBERT on the hub, about 42 MB)."""
CHINESE_HUB_MODELS = frozenset(model.hub_id for model in HUB_MODELS if model.language == "zh")


def hub_model(choice: str | None) -> HubModel | None:
    """The catalogue entry of a picker value, or None when it is not one of ours."""
    return BY_ID.get((choice or "").strip())


def is_cached(hub_id: str) -> bool:
    """True when the model's config and weights (the file its repository publishes, `HubModel.weights`; safetensors
    for an id outside the catalogue) are both in the local Hugging Face cache."""
    from huggingface_hub import try_to_load_from_cache

    model = BY_ID.get(hub_id)
    weights = model.weights if model is not None else "model.safetensors"
    try:
        found = [try_to_load_from_cache(hub_id, name) for name in ("config.json", weights)]
    except Exception as error:  # a malformed cache or id: not cached, and say why in the log
        logger.warning("cannot read the Hugging Face cache for %s: %s", hub_id, error)
        return False
    return all(isinstance(path, str) and Path(path).is_file() for path in found)


_reachability: dict[str, float | bool] = {}
_reachability_lock = threading.Lock()


def hub_reachable(probe: Callable[[], bool] | None = None) -> bool:
    """Whether the hub answers (remembered for ten minutes); always False with HF_HUB_OFFLINE=1."""
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        return False
    with _reachability_lock:
        checked = float(_reachability.get("at", 0.0))
        if time.monotonic() - checked < REACHABILITY_TTL_S and "ok" in _reachability:
            return bool(_reachability["ok"])
        ok = (probe or _probe_hub)()
        _reachability.update(at=time.monotonic(), ok=ok)
        return ok


def on_space() -> bool:
    """Whether the app runs on a Hugging Face Space (SYSTEM=spaces, `app.settings.SPACE`)."""
    return settings.on_space()


def online(probe: Callable[[], bool] | None = None) -> bool:
    """Whether the real ALBERTs are the starting models: on a Space, or when the hub answers (`hub_reachable`)."""
    return on_space() or hub_reachable(probe)


def _probe_hub() -> bool:
    from huggingface_hub import constants

    url = f"{constants.ENDPOINT}/api/models/{HUB_MODELS[0].hub_id}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=REACHABILITY_TIMEOUT_S):
            return True
    except (urllib.error.URLError, OSError, ValueError) as error:
        logger.info("the Hugging Face hub is not reachable (%s): offering cached models only", error)
        return False


def offered(lang: str = "en", reachable: bool | None = None) -> list[HubModel]:
    """The hub models a picker shows: cached ones always, the rest when the hub answers; 中文 lists its own first."""
    online = hub_reachable() if reachable is None else reachable
    models = [model for model in HUB_MODELS if online or is_cached(model.hub_id)]
    return sorted(models, key=lambda model: model.language != ("zh" if lang == "zh" else "en"))


def default_from_environment(shipped: list[str]) -> str | None:
    """A Space's chosen default (`ALBERT_LAB_DEFAULT_MODEL`): a shipped name, or a hub model it can have."""
    choice = settings.DEFAULT_MODEL.read()
    if not choice:
        return None
    if choice in shipped:
        return choice
    model = hub_model(choice)
    if model is not None and (is_cached(model.hub_id) or hub_reachable()):
        return model.hub_id
    logger.warning(
        "%s=%r is neither a shipped model nor a hub model that can be had; keeping ours",
        settings.DEFAULT_MODEL.name,
        choice,
    )
    return None
