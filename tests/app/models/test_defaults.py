"""Which model answers when none is picked (issue 41), and UER's Chinese ALBERT in every tab, offline.

Offline the English default is the written rule's (`app.models.defaults.english_default`). Online — a Space, or a
hub that answers (here a fake probe; nothing is downloaded: the hub stays switched off and a prepared Hugging Face
cache holds checkpoints laid out as albert/albert-base-v2 and uer/albert-base-chinese-cluecorpussmall publish them,
`benchmarks.hub_layouts`) — *Masked words* and *Attention* start on those once fetched, ours answering until then,
with a line naming the model that answered; *Sentence order* keeps the shipped models.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
import torch

import app.models as app_models
from albert import AlbertForPreTraining
from app import settings
from app.models import defaults
from app.models import hub as hub_models
from benchmarks.hub_layouts import GOOGLE_ID, TINY, UER_ID, write_google_albert, write_uer_albert
from tests.app.support import use_tiny_assets
from tests.factories import max_abs_diff

ASSETS = Path(__file__).resolve().parents[3] / "assets" / "models"
EN_TEXT = "the old sailor walked along the [MASK] ."
ZH_TEXT = "北京是中国的[MASK]都。"


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("hf-hub-defaults")
    write_google_albert(cache, TINY)
    write_uer_albert(cache, TINY)
    return cache


@pytest.fixture
def cached(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Tiny shipped models, the prepared cache as the Hugging Face cache, the hub off, no fetch started."""
    from huggingface_hub import constants

    use_tiny_assets(monkeypatch)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache_dir))
    monkeypatch.setattr(hub_models, "_reachability", {})
    app_models.cache.forget()  # every model loads afresh
    monkeypatch.delenv(settings.SPACE.name, raising=False)
    defaults.reset()
    yield cache_dir
    defaults.reset()


# ----- offline: the written rule ----------------------------------------------------------------------------------
def _metrics(sharing: str, objective: str, mlm: float, order: float = 0.5) -> dict:
    return {"sharing": sharing, "objective": objective, "mlm_accuracy": mlm, "order_accuracy": order}


def test_the_rule_takes_the_best_masked_words_of_the_albert_models_and_never_reads_order() -> None:
    metrics = {
        "not-shared": _metrics("none", "sop", 0.30, order=0.60),  # better at both, but not an ALBERT
        "nsp-arm": _metrics("all", "nsp", 0.29),  # BERT's objective
        "ffn-shared": _metrics("ffn", "sop", 0.28),
        "lucky-order": _metrics("all", "sop", 0.20, order=0.56),
        "best-words": _metrics("all", "sop", 0.22, order=0.48),
        "no-figure": {"sharing": "all", "objective": "sop"},
        "no-metrics": None,
    }
    assert defaults.english_default(metrics) == "best-words"
    assert defaults.english_default({**metrics, "a-tie": _metrics("all", "sop", 0.22)}) == "a-tie"  # names break ties
    assert defaults.english_default({"not-shared": metrics["not-shared"]}) is None


def test_the_shipped_english_default_is_the_rules_and_a_shared_model(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.models import CHINESE_MODELS, DEFAULT_MODEL, language_models, shipped_config, shipped_models

    monkeypatch.delenv(settings.MODELS.name, raising=False)
    english = {
        folder.name: json.loads((folder / "metrics.json").read_text())
        for folder in ASSETS.iterdir()
        if (folder / "metrics.json").is_file() and folder.name not in CHINESE_MODELS
    }
    assert defaults.english_default(english) == DEFAULT_MODEL == "albert-lab-e128-gpu"
    assert language_models()["en"] == DEFAULT_MODEL == shipped_models()[0]
    assert shipped_config(DEFAULT_MODEL).sharing == "all"
    best = max(english.values(), key=lambda m: m.get("mlm_accuracy", 0))
    assert english[DEFAULT_MODEL]["mlm_accuracy"] == best["mlm_accuracy"] == 0.2595


# ----- UER's Chinese ALBERT: pytorch_model.bin, vocab.txt ------------------------------------------------------------
def test_the_uer_layout_loads_by_hub_id_with_transformers_logits(cache_dir: Path, monkeypatch) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache_dir))
    theirs = write_uer_albert(cache_dir / "again", TINY)  # the same seed: the same weights
    ours = AlbertForPreTraining.from_pretrained(UER_ID)
    assert (ours.config.sharing, ours.config.hidden_act, ours.config.vocab_size) == ("all", "gelu", 21128)
    ids = torch.tensor([[101, 1000, 2000, 103, 3000, 102]])
    with torch.no_grad():
        mine, reference = ours(input_ids=ids), theirs(input_ids=ids)
    assert max_abs_diff(mine.mlm_logits, reference.prediction_logits) <= 1e-5
    assert max_abs_diff(mine.sop_logits, reference.sop_logits) <= 1e-5  # UER trains and ships its SOP head


def test_the_chinese_albert_answers_in_every_tab_that_takes_a_model(cached: Path) -> None:
    from app.models import load
    from app.tabs.attention.views import attention_view
    from app.tabs.masked.views import fill_mask_view
    from app.tabs.order.views import sentence_order_view
    from app.tabs.sharing.views import layer_transitions_view

    lm = load(UER_ID, "zh")
    assert lm.kind == "hub" and lm.has_sentence_head and lm.mask_id == 103
    assert lm.tokenizer.tokenize("北京是中国的首都。") == list("北京是中国的首都。")
    answer = fill_mask_view(ZH_TEXT, 3, UER_ID, "zh")
    assert "error" not in answer.result, answer.result
    assert answer.result["model"] == UER_ID and len(answer.result["masks"][0]["top"]) == 3
    assert hub_models.BY_ID[UER_ID].describe("zh") in answer.status and "[MASK]" not in answer.filled
    raw, *_ = attention_view("北京是中国的首都。", "今天天气很好。", 1, 48, UER_ID, "", "zh")
    assert "error" not in raw, raw
    assert raw["layers"] == TINY["num_hidden_layers"] and raw["tokens"][:3] == ["[CLS]", "北", "京"]
    transitions = layer_transitions_view("北京是中国的首都。", UER_ID, "", "zh")
    assert "error" not in transitions.result and any(name.startswith(UER_ID) for name in transitions.result)
    order = sentence_order_view("今天天气很好。", "我们去公园散步。", UER_ID, "zh")
    assert "error" not in order.result, order.result
    assert order.result["objective"] == "sop"


def test_the_catalogue_knows_the_chinese_albert_and_its_cache(cached: Path) -> None:
    from app.models import CHINESE_MODELS

    model = hub_models.BY_ID[UER_ID]
    assert (model.language, model.weights) == ("zh", "pytorch_model.bin")
    assert model.parameters == 11_683_584 - (30000 - 21128) * 128 == 10_547_968  # albert-base, 8,872 rows fewer
    assert hub_models.is_cached(UER_ID) and UER_ID in CHINESE_MODELS
    assert "uer/albert-large-chinese-cluecorpussmall" in hub_models.BY_ID
    assert hub_models.offered("zh")[0].hub_id == UER_ID  # cached, and 中文 lists its own first


# ----- a pickle that would run code ---------------------------------------------------------------------------------
class _RunsCode:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def _crafted_folder(directory: Path, marker: Path) -> Path:
    directory.mkdir(parents=True)
    (directory / "config.json").write_text(_tiny_config_json())  # a valid config: the weights are refused first
    torch.save({"albert.embeddings.word_embeddings.weight": _RunsCode(marker)}, directory / "pytorch_model.bin")
    return directory


def _tiny_config_json() -> str:
    from tests.factories import tiny_config

    return json.dumps({**tiny_config().to_dict(), "model_type": "albert"})


def test_a_pickle_that_would_run_code_is_refused_in_one_sentence(tmp_path: Path, monkeypatch) -> None:
    from albert.core.checkpoint import CheckpointError
    from app.models import load_uncached
    from app.models.files import ModelError

    use_tiny_assets(monkeypatch)
    marker = tmp_path / "ran"
    folder = _crafted_folder(tmp_path / "crafted", marker)
    with pytest.raises(CheckpointError) as raised:
        AlbertForPreTraining.from_pretrained(folder)
    message = str(raised.value)
    assert "holds more than tensors" in message and "weights_only=False" not in message and "\n" not in message
    assert message.count(". ") == 0 and raised.value.code == "unsafe_pickle"
    with pytest.raises(ModelError) as refused:
        load_uncached("local", str(folder), "en")
    assert str(refused.value) == (
        "“crafted”: pytorch_model.bin holds more than tensors (a pickle that would run code), so it was not read; "
        "only plain tensor files are loaded."
    )
    assert not marker.exists()  # nothing ran


def test_a_pickle_of_something_else_than_tensors_is_refused(tmp_path: Path) -> None:
    from albert.core.checkpoint import CheckpointError, read_pickled_weights

    torch.save({"weight": "not a tensor"}, tmp_path / "strings.bin")
    with pytest.raises(CheckpointError, match="does not hold a mapping of tensor names to tensors"):
        read_pickled_weights(tmp_path / "strings.bin")
    (tmp_path / "cut.bin").write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(CheckpointError, match="not a readable PyTorch weights file"):
        read_pickled_weights(tmp_path / "cut.bin")


# ----- online: real ALBERTs fetched at start -------------------------------------------------------------------------
def test_online_is_a_space_or_a_hub_that_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(hub_models, "_reachability", {})
    monkeypatch.delenv(settings.SPACE.name, raising=False)
    assert hub_models.online(lambda: True) is False  # HF_HUB_OFFLINE=1: the probe is never asked
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    assert hub_models.online(lambda: False) is False
    monkeypatch.setattr(hub_models, "_reachability", {})
    assert hub_models.online(lambda: True) is True
    monkeypatch.setattr(hub_models, "_reachability", {})
    monkeypatch.setenv(settings.SPACE.name, "spaces")
    assert hub_models.online(lambda: False) is True


def test_offline_the_shipped_models_answer_without_a_line(cached: Path) -> None:
    from app.models import AUTO_MODEL
    from app.tabs.masked.views import fill_mask_view

    assert defaults.AUTO == AUTO_MODEL  # defaults sits below the package and keeps its own copy

    assert defaults.fetch_in_background(app_models.load, lambda: False) is None
    answer = fill_mask_view(EN_TEXT, 3, "auto", "en")
    assert answer.result["model"] == app_models.default_model() and "Automatic" not in answer.status


def test_online_masked_words_and_attention_start_on_the_real_albert_of_each_language(cached: Path) -> None:
    from app.tabs.attention.views import attention_view
    from app.tabs.masked.views import fill_mask_view
    from app.tabs.order.views import sentence_order_view

    thread = defaults.fetch_in_background(app_models.load, lambda: True)  # what the fake probe answered
    assert thread is not None
    thread.join(timeout=300)
    assert defaults.state("en") == (defaults.READY, "") and defaults.state("zh") == (defaults.READY, "")
    english = fill_mask_view(EN_TEXT, 3, "auto", "en")
    assert english.result["model"] == GOOGLE_ID
    assert f"Automatic: {GOOGLE_ID} answered" in english.status
    chinese = fill_mask_view(ZH_TEXT, 3, "auto", "zh")
    assert chinese.result["model"] == UER_ID and f"自动：由 {UER_ID} 作答" in chinese.status
    raw, status, *_ = attention_view("the old sailor walked", "the children counted boxes", 1, 48, "auto", "", "en")
    assert raw["model"] == GOOGLE_ID and "Automatic" in status
    picked = fill_mask_view(EN_TEXT, 3, "albert-lab-base", "en")  # a model picked by hand: as it is, no line
    assert picked.result["model"] == "albert-lab-base" and "Automatic" not in picked.status
    order = sentence_order_view("the old sailor walked along the river .", "the children counted boxes .", "auto")
    assert "error" not in order.result and order.result["model"] in app_models.shipped_models()


def test_until_the_real_albert_is_ready_ours_answers_and_says_so(cached: Path, monkeypatch) -> None:
    from app.tabs.masked.views import fill_mask_view

    defaults._set("en", defaults.FETCHING)
    answer = fill_mask_view(EN_TEXT, 3, "auto", "en")
    ours = app_models.default_model()
    assert answer.result["model"] == ours
    assert f"Automatic: our {ours} answered; {GOOGLE_ID} (about 47 MB) is still being fetched" in answer.status
    defaults.reset()  # on a Space, before warm-up has started the fetch (it loads ours first): already on its way
    monkeypatch.setenv(settings.SPACE.name, "spaces")
    answer = fill_mask_view(EN_TEXT, 3, "auto", "en")
    assert answer.result["model"] == ours and f"{GOOGLE_ID} (about 47 MB) is still being fetched" in answer.status
    defaults._set("en", defaults.FAILED, "the hub did not answer")
    answer = fill_mask_view(EN_TEXT, 3, "", "en")
    assert answer.result["model"] == ours and "could not be fetched at start (the hub did not answer)" in answer.status


def test_warm_up_on_a_space_fetches_both_and_a_download_never_holds_up_loaded_models(
    cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SYSTEM=spaces makes the app online; the fetch runs beside requests: while a hub model is still loading, a
    shipped model already in memory is handed out at once."""
    monkeypatch.setenv(settings.SPACE.name, "spaces")
    release, started = threading.Event(), threading.Event()
    real = app_models.load_uncached

    def slow(kind: str, location: str, lang: str):
        if kind == "hub":
            started.set()
            assert release.wait(timeout=60)
        return real(kind, location, lang)

    monkeypatch.setattr(app_models, "load_uncached", slow)
    loaded = app_models.warm_up()
    assert loaded and started.wait(timeout=60)
    assert defaults.state("en") == (defaults.FETCHING, "")
    assert app_models.load(loaded[0]).name == loaded[0]  # not blocked by the download in progress
    release.set()
    for thread in threading.enumerate():
        if thread.name == "hub-defaults":
            thread.join(timeout=300)
    assert defaults.state("en")[0] == defaults.state("zh")[0] == defaults.READY


def test_a_request_reads_its_texts_language_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """`resolve_model` reads the language once and hands it to both the shipped model's rule and the hub default's
    (issue 52: /fill_mask read it twice)."""
    from app import models
    from app.models import languages

    calls: list[str] = []
    real = languages.text_language

    def counted(text: str, lang: str = "en") -> str:
        calls.append(text)
        return real(text, lang)

    monkeypatch.setattr(languages, "text_language", counted)
    picked = models.resolve_model("", "我爱自然语言处[MASK]。", "en")
    assert calls == ["我爱自然语言处[MASK]。"]
    assert picked.value == models.model_for("", "我爱自然语言处[MASK]。", "en", "zh")
    assert models.resolve_model("albert-lab-none", "a [MASK]", "zh").value == "albert-lab-none"
