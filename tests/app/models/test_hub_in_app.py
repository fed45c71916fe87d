"""Real checkpoints in the app, offline: tiny ALBERT and BERT checkpoints in a temporary Hugging Face cache layout.

Each stands in for a catalogue id (`app.models.hub`): the ALBERTs carry no sentence-pair head (as Google's released
ALBERTs), the BERTs carry transformers' NSP head and a WordPiece tokenizer. With the hub switched off (conftest sets
HF_HUB_OFFLINE=1) they must appear in the pickers, answer /fill_mask, /attention and /layer_transitions by hub id,
frame themselves with the catalogue's facts, and the paper's layer-transition pair (BERT-large against ALBERT-large)
must be drawn from them. A catalogue id that is not cached is refused with one sentence. Nothing is downloaded.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import torch
import transformers
from safetensors.torch import load_file, save_file

import app.models as app_models
from albert import AlbertForPreTraining
from albert.core.transitions import layer_transitions
from app import settings
from app.models import hub as hub_models
from tests.app.support import WORDS, tiny_assets, use_tiny_assets

ALBERTS = ("albert/albert-base-v2", "albert/albert-large-v2")
BERTS = ("google-bert/bert-base-uncased", "google-bert/bert-large-uncased")
REVISION = "1" * 40
VOCABULARY = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *sorted(set(WORDS)), "##s", "##ed", "##ing"]


def _snapshot(cache: Path, hub_id: str) -> Path:
    """An empty snapshot folder in the hub cache layout (models--ORG--NAME/snapshots/REV, refs/main → REV)."""
    repo = cache / f"models--{hub_id.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(REVISION)
    snapshot = repo / "snapshots" / REVISION
    snapshot.mkdir(parents=True)
    return snapshot


def _write_albert(cache: Path, hub_id: str, source: Path) -> None:
    """A tiny shipped-format ALBERT (with its SentencePiece files), its sentence-order head removed as Google's."""
    snapshot = _snapshot(cache, hub_id)
    for item in source.iterdir():
        if item.is_file() and item.name != "model.safetensors":
            shutil.copy(item, snapshot / item.name)
    state = load_file(str(source / "model.safetensors"))
    save_file(
        {k: v for k, v in state.items() if not k.startswith("sop_classifier.")}, str(snapshot / "model.safetensors")
    )


def _write_bert(cache: Path, hub_id: str) -> None:
    """A tiny random BERT saved by transformers (BertForPreTraining: MLM and NSP heads) with a WordPiece tokenizer."""
    snapshot = _snapshot(cache, hub_id)
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=len(VOCABULARY),
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=4,
        intermediate_size=48,
        max_position_embeddings=64,
    )
    transformers.BertForPreTraining(config).save_pretrained(str(snapshot))
    (snapshot / "vocab.txt").write_text("\n".join(VOCABULARY) + "\n", encoding="utf-8")
    transformers.BertTokenizerFast.from_pretrained(str(snapshot)).save_pretrained(str(snapshot))


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("hf-hub")
    source = tiny_assets().models / "albert-lab-base"
    for hub_id in ALBERTS:
        _write_albert(cache, hub_id, source)
    for hub_id in BERTS:
        _write_bert(cache, hub_id)
    return cache


@pytest.fixture
def cached(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tiny assets as shipped models, the temporary cache as the Hugging Face cache, the hub off."""
    from huggingface_hub import constants

    use_tiny_assets(monkeypatch)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache_dir))
    monkeypatch.setattr(hub_models, "_reachability", {})
    app_models.cache.forget()  # every model loads afresh
    return cache_dir


def test_cached_hub_models_appear_in_the_pickers(cached: Path) -> None:
    from app.layout import picker_choices
    from app.models import shipped_models
    from app.tabs.sharing.views import PAPER_PAIR, compare_picker_entries

    shipped = shipped_models()
    for lang in ("en", "zh"):
        values = [value for _, value in picker_choices(shipped, lang)]
        assert values[: len(shipped)] == shipped
        assert sorted(values[len(shipped) :]) == sorted(ALBERTS + BERTS)  # cached ones only: the hub is off
        compare = [value for _, value in compare_picker_entries(shipped, lang)]
        assert compare[0] == PAPER_PAIR and set(ALBERTS + BERTS) <= set(compare)
    labels = dict((value, label) for label, value in picker_choices(shipped, "en"))
    assert labels["google-bert/bert-large-uncased"] == "google-bert/bert-large-uncased · 335M parameters · downloaded"
    assert labels["albert/albert-base-v2"].startswith("albert/albert-base-v2 · 12M parameters")


def test_the_environment_picks_a_cached_hub_default(cached: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.models import shipped_models
    from app.models.hub_picker import picker_default

    shipped = shipped_models()
    assert picker_default(shipped, "fallback") == "fallback"
    monkeypatch.setenv(settings.DEFAULT_MODEL.name, "albert/albert-base-v2")
    assert picker_default(shipped, "fallback") == "albert/albert-base-v2"
    monkeypatch.setenv(settings.DEFAULT_MODEL.name, "albert/albert-xxlarge-v2")  # not cached, hub off: ours stays
    assert picker_default(shipped, "fallback") == "fallback"


@pytest.mark.parametrize("hub_id", [ALBERTS[0], BERTS[0]])
def test_fill_mask_answers_by_hub_id_with_the_catalogue_framing(cached: Path, hub_id: str) -> None:
    from app.tabs.masked.views import fill_mask_view

    answer = fill_mask_view("the old sailor walked along the [MASK] .", 3, hub_id)
    assert "error" not in answer.result, answer.result
    assert answer.result["model"] == hub_id
    assert len(answer.result["masks"][0]["top"]) == 3
    assert "[MASK]" not in answer.filled and "##" not in answer.filled
    assert hub_models.BY_ID[hub_id].describe("en") in answer.status


def test_attention_and_layer_transitions_answer_by_hub_id(cached: Path) -> None:
    from app.tabs.attention.views import attention_view
    from app.tabs.sharing.views import layer_transitions_view

    for hub_id, passes in ((ALBERTS[0], 4), (BERTS[0], 3)):
        raw, *_ = attention_view("the old sailor walked", "the children counted boxes", 2, 48, hub_id)
        assert "error" not in raw, raw
        assert raw["layers"] == passes
        answer = layer_transitions_view("the old sailor walked along the river", hub_id, "albert-lab-base")
        assert "error" not in answer.result, answer.result
        (series,) = [name for name in answer.result if name.startswith(hub_id)]
        values = answer.result[series]
        assert len(values["l2"]) == len(values["cosine"]) == len(values["degrees"]) == passes
        assert all(0.0 < d < 180.0 for d in values["degrees"])


def test_sentence_order_says_a_hub_albert_has_no_trained_head_and_reads_bert_nsp(cached: Path) -> None:
    from app.tabs.order.views import sentence_order_view

    a, b = "the old sailor walked along the river .", "the children counted boxes ."
    refused = sentence_order_view(a, b, ALBERTS[0])
    assert "no trained sentence-order (SOP) head" in refused.result["error"]
    assert "Traceback" not in refused.status
    answer = sentence_order_view(a, b, BERTS[0])
    assert "error" not in answer.result, answer.result
    assert answer.result["objective"] == "nsp"


def test_the_paper_pair_is_drawn_from_the_cached_bert_large_and_albert_large(cached: Path) -> None:
    from app.tabs.sharing.views import PAPER_MODELS, PAPER_PAIR, layer_transitions_view

    answer = layer_transitions_view("the old sailor walked along the river", "", PAPER_PAIR, "en")
    assert [name.split(" ")[0] for name in answer.result] == list(PAPER_MODELS)
    assert "Lan et al., ICLR 2020, Figure 1 (Figure 2 in arXiv v1)" in answer.status
    assert "google-bert/bert-large-uncased against albert/albert-large-v2" in answer.status
    degrees = [list(trace.y) for trace in answer.cosine.data]  # the right panel draws angles, as the paper does
    assert degrees == [answer.result[name]["degrees"] for name in answer.result]
    assert [trace.name.split(" ")[0] for trace in answer.l2.data] == list(PAPER_MODELS)


def test_a_catalogue_model_neither_cached_nor_reachable_is_refused_in_one_sentence(cached: Path) -> None:
    from app.tabs.masked.views import fill_mask_view

    answer = fill_mask_view("the [MASK] .", 3, "albert/albert-xxlarge-v2")
    message = answer.result["error"]
    assert "albert/albert-xxlarge-v2" in message and "offline" in message
    assert message.count(".") <= 2 and "Traceback" not in message


def test_a_download_is_announced_once_only_when_the_model_is_not_cached_and_the_hub_answers(
    cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.models import announce_download, hub, hub_picker

    monkeypatch.setattr(hub_picker, "_announced", {})
    assert announce_download("google-bert/bert-base-chinese", "en") is None  # offline: nothing will download
    monkeypatch.setattr(hub, "hub_reachable", lambda probe=None: True)
    assert announce_download(ALBERTS[0]) is None
    message = announce_download("google-bert/bert-base-chinese", "en")
    assert message is not None and "bert-base-chinese" in message and "409 MB" in message
    assert announce_download("google-bert/bert-base-chinese", "en") is None  # every tab loads it: one notice
    assert announce_download("someone/not-in-the-catalogue") is None


def test_wordpiece_continuations_join_the_word_before_them() -> None:
    from app.inference import fill_in

    assert fill_in("the sailor [MASK] along the [MASK] .", ["##s", "river"]) == "the sailors along the river ."
    assert fill_in("[MASK] [MASK]", ["##"]) == "## [MASK]"  # a bare '##' is a word of its own


# ----- the app's layer transitions are the library's -----------------------------------------------------------
@pytest.mark.parametrize("name", ["albert-lab-all", "albert-lab-none"])
def test_the_apps_layer_transitions_equal_the_librarys_for_shipped_models(name: str) -> None:
    from app.inference import layer_transitions as app_transitions
    from app.models import load, models_dir

    text = "The old sailor walked along the river and remembered the distant lighthouse."
    lm = load(name)
    ours = app_transitions(lm, text)
    directory = models_dir() / name
    model = AlbertForPreTraining.from_pretrained(directory).eval()
    encoded = lm.tokenizer(text, return_tensors="pt")
    library = layer_transitions(model, encoded["input_ids"], encoded["token_type_ids"], encoded["attention_mask"])
    assert library.passes == model.config.num_hidden_layers == len(ours.l2)
    for mine, theirs in ((ours.l2, library.l2), (ours.cosine, library.cosine), (ours.degrees, library.degrees)):
        assert mine == pytest.approx(theirs, rel=1e-5, abs=1e-6)
    # degrees are the angle of each token's cosine, averaged: never below the angle of the mean cosine (concavity)
    with torch.no_grad():
        states = model.albert(encoded["input_ids"], output_hidden_states=True).hidden_states
    first = torch.nn.functional.cosine_similarity(states[0][0], states[1][0], dim=-1)
    assert library.degrees[0] == pytest.approx(float(torch.rad2deg(torch.arccos(first.clamp(-1, 1))).mean()), rel=1e-5)
    assert library.cosine[0] == pytest.approx(float(first.mean()), rel=1e-5)


def test_the_library_leaves_padding_out(tmp_path: Path) -> None:
    from tests.factories import tiny_config

    torch.manual_seed(0)
    model = AlbertForPreTraining(tiny_config()).eval()
    ids = torch.randint(5, 50, (1, 9))
    alone = layer_transitions(model, ids[0])
    padded = torch.cat([ids, torch.zeros(1, 4, dtype=torch.long)], dim=1)
    mask = torch.cat([torch.ones(1, 9, dtype=torch.long), torch.zeros(1, 4, dtype=torch.long)], dim=1)
    with_padding = layer_transitions(model, padded, attention_mask=mask)
    assert with_padding.l2 == pytest.approx(alone.l2, rel=1e-5)
    assert with_padding.degrees == pytest.approx(alone.degrees, rel=1e-5)
    with pytest.raises(ValueError, match="at least one real token"):
        layer_transitions(model, ids, attention_mask=torch.zeros_like(ids))


def test_offline_without_the_papers_models_our_own_pair_stands_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    from app.tabs.sharing.views import OFFLINE_PAIR, PAPER_PAIR, layer_transitions_view

    monkeypatch.delenv("ALBERT_LAB_MODELS", raising=False)  # the shipped models of assets/models
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))  # an empty cache; the hub is off
    monkeypatch.setattr(hub_models, "_reachability", {})
    answer = layer_transitions_view("The old sailor walked along the river.", "", PAPER_PAIR, "en")
    assert [name.split(" ")[0] for name in answer.result] == list(OFFLINE_PAIR)
    assert [name.split(" ")[1] for name in answer.result] == ["(none)", "(all)"]
    assert "our own pair stands in" in answer.status and "Figure 1" in answer.status


# ----- in a browser ---------------------------------------------------------------------------------------------
@pytest.mark.browser
def test_a_browser_picks_a_cached_hub_model_and_gets_its_answer(cache_dir: Path, tmp_path: Path) -> None:
    """`python app.py` with the temporary cache as its Hugging Face cache and the hub off; Chromium picks the cached
    ALBERT in the model picker and the Masked words tab answers with it, framed by the catalogue."""
    import os
    import subprocess
    import sys

    from tests.app.support import ARGS, CHROMIUM, REPO, app_env, chromium_keeping_its_nice, free_port, wait_for_page

    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import expect, sync_playwright

    port = free_port()
    env = {**app_env(tiny_assets(), port), "HF_HUB_CACHE": str(cache_dir)}
    env.pop(settings.DEFAULT_MODEL.name, None)
    with open(tmp_path / "server.log", "w", encoding="utf-8") as log:
        server = subprocess.Popen([sys.executable, "app.py"], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}/"
            wait_for_page(url, server, timeout=600)
            expect.set_options(timeout=120_000)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(chromium_keeping_its_nice(tmp_path)), args=ARGS
                )
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.set_default_timeout(120_000)
                page.goto(url)
                page.get_by_role("tab", name="Masked words").click()
                expect(page.locator("#mask-status")).not_to_be_empty()  # the shipped model's answer on opening
                page.locator("#model-picker input").click()
                option = page.locator("[data-testid=dropdown-option]", has_text="albert/albert-base-v2")
                expect(option.first).to_contain_text("12M parameters · downloaded")
                option.first.click()
                expect(page.locator("#mask-status")).to_contain_text("albert/albert-base-v2: trained by Google")
                expect(page.locator("#mask-filled textarea")).not_to_have_value(re.compile(r"\[MASK\]|^$"))
                browser.close()
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    assert os.path.getsize(tmp_path / "server.log") > 0


def test_a_hub_models_first_load_does_not_count_against_the_request_limit(
    cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from app.models import budget, load

    real = app_models.load_uncached

    def slow(kind: str, location: str, lang: str) -> object:
        time.sleep(0.3)  # a download
        return real(kind, location, lang)

    monkeypatch.setattr(app_models, "load_uncached", slow)
    with budget.deadline(0.2):
        lm = load(ALBERTS[0])
        budget.check()  # the 0.3 s load moved the deadline: no refusal
        assert lm.kind == "hub"
        time.sleep(0.25)
        with pytest.raises(budget.RequestTooLong):
            budget.check()


def test_the_built_page_offers_cached_hub_models_in_every_model_picker(cached: Path) -> None:
    import gradio as gr

    from app.layout import build_app

    demo = build_app()
    dropdowns = [b for b in demo.blocks.values() if isinstance(b, gr.Dropdown)]
    pickers = [d for d in dropdowns if d.elem_id == "model-picker" or d.label == "Compare with"]
    assert len(pickers) == 3  # the model picker, Attention's and Sharing modes' "compare with"
    for picker in pickers:
        values = {value for _, value in picker.choices}
        assert set(ALBERTS + BERTS) <= values, picker.label
