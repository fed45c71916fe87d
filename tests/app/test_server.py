"""`python app.py` on loopback: the page, the local bertviz libraries, and every API endpoint through gradio_client."""

from __future__ import annotations

import urllib.request

import pytest

from albert import PRESETS, count_parameters
from tests.app.support import running_app, use_tiny_assets

pytestmark = pytest.mark.slow  # every test here talks to a served app (one per module)

ENDPOINTS = {
    "/parameters",
    "/preset",
    "/set_language",
    "/fill_mask",
    "/mask_word",
    "/sentence_order",
    "/split_paragraph",
    "/attention",
    "/sharing_modes",
    "/layer_transitions",
    "/sentiment",
}


@pytest.fixture(scope="module")
def url() -> str:
    return running_app()


@pytest.fixture(scope="module")
def client(url: str):
    from gradio_client import Client

    return Client(url, verbose=False, analytics_enabled=False)


@pytest.fixture(autouse=True)
def _same_models_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pure functions in this process see the same tiny models as the server."""
    use_tiny_assets(monkeypatch)


def test_page_and_local_javascript_are_served(url: str) -> None:
    from app.tabs.attention.bertviz import vendor_url

    with urllib.request.urlopen(url, timeout=10) as response:
        assert "ALBERT Lab" in response.read().decode("utf-8")
    for name, marker in (("d3", b"d3js.org v5.7.0"), ("jquery", b"jQuery"), ("require", b"requirejs")):
        with urllib.request.urlopen(url + vendor_url(name), timeout=10) as response:
            assert response.status == 200 and marker in response.read(4000)


def test_every_endpoint_is_named(client) -> None:
    named = set(client.view_api(print_info=False, return_format="dict")["named_endpoints"])
    assert ENDPOINTS <= named, ENDPOINTS - named


def test_parameters_and_preset(client) -> None:
    result, status, embedding, totals, *_ = client.predict(
        30000, 128, 768, 12, 12, 3072, "all", 1, True, 512, "en", api_name="/parameters"
    )
    assert result["total"] == count_parameters(PRESETS["albert-base"]).total == 11_683_584
    assert "30,000 × 768" in embedding.replace("\u00a0", " ") and "Table 1" in totals
    result, status, *_ = client.predict(
        vocab_size=30000,
        embedding_size=128,
        hidden_size=768,
        num_hidden_layers=12,
        num_attention_heads=7,
        intermediate_size=3072,
        api_name="/parameters",
    )
    assert "divisible" in result["error"]
    out = client.predict("bert-large", "zh", api_name="/preset")
    assert out[:3] == (30000, 1024, 1024) and out[10]["total"] == count_parameters(PRESETS["bert-large"]).total
    assert "总计" in out[13]


def test_fill_mask_and_mask_word(client) -> None:
    from app.tabs.masked.views import fill_mask_view

    text = "the old sailor walked along the [MASK] near the village ."
    result, status, filled, *_ = client.predict(text, 5, "", "en", api_name="/fill_mask")  # `expected` left out
    assert result == fill_mask_view(text, 5, "", "en")[0]
    assert filled == result["filled_text"] and "[MASK]" not in filled
    result, *_ = client.predict("The capital of France is [MASK].", 5, "", "en", "paris", api_name="/fill_mask")
    assert result["expected"]["expected"]["word"] == "paris"
    result, *_ = client.predict("[MASK] " * 50, api_name="/fill_mask")
    assert "50 [MASK]" in result["error"]
    masked, result, *_ = client.predict("the old sailor walked", 2, 3, "", "en", api_name="/mask_word")
    assert masked == "the old [MASK] walked" and len(result["masks"][0]["top"]) == 3


def test_sentence_order_and_split(client) -> None:
    result, status, verdict, _ = client.predict(
        "She bought a ticket.", "Then she left.", "", "en", api_name="/sentence_order"
    )
    assert 0 < result["p_in_order_a_then_b"] < 1 and "A → B" in verdict
    a, b, result, *_ = client.predict("One. Two. Three.", 1, "", "zh", api_name="/split_paragraph")
    assert (a, b) == ("One.", "Two. Three.") and "objective" in result


def test_attention(client) -> None:
    result, status, head_view, model_view, heatmaps, similarity = client.predict(
        "the old sailor walked", "along the river", 2, 32, "", "", "en", api_name="/attention"
    )
    assert result["layers"] == 4 and result["heads"] == 4 and result["b_start"] is not None
    assert set(result["pass_to_pass_similarity"]) == {"albert-lab-base (all)", "albert-lab-none (none)"}
    assert head_view.startswith("<iframe") and 'sandbox="allow-scripts"' in model_view


def test_sharing_and_transitions(client) -> None:
    result, status, *_ = client.predict("albert-large", "en", api_name="/sharing_modes")
    assert result["parameters_per_mode"]["all"] == count_parameters(PRESETS["albert-large"]).total
    result, status, *_ = client.predict("the old sailor walked", "", "", "en", api_name="/layer_transitions")
    assert {len(v["l2"]) for v in result.values()} == {4} and len(result) == 2


def test_sentiment_and_its_card(client, url: str) -> None:
    from app.tabs.sentiment.classifier import card_url
    from app.tabs.sentiment.views import sentiment_view

    text = "the old sailor walked along the river ."
    result, status, verdict, probabilities, passes, tokens = client.predict(text, "en", api_name="/sentiment")
    here = sentiment_view(text, "en")[0]
    assert result["label"] == here["label"] and result["tokens"] == here["tokens"]
    assert result["probabilities"] == pytest.approx(here["probabilities"], abs=1e-5)
    assert len(result["pass_scores"]) == 4 and "Prediction" in verdict and "sentiment-token-view" in tokens
    result, status, *_ = client.predict("   ", "zh", api_name="/sentiment")
    assert result == {"error": "文本为空，请输入一个句子。"}
    assert card_url().endswith(".html")
    with urllib.request.urlopen(url + card_url(), timeout=10) as response:  # the card the tab links to: a page
        assert response.headers["content-type"] == "text/html; charset=utf-8"
        assert response.headers.get("content-disposition", "inline").startswith("inline")  # shown, not downloaded
        card = response.read().decode("utf-8")
    assert "<h1>tiny sentiment model</h1>" in card and "<td>87.50%</td>" in card
    assert "license" not in card and "<script" not in card  # no front matter; the card's script is text


def test_language_switch_and_bad_model(client) -> None:
    updates = client.predict("zh", api_name="/set_language")
    assert any("预设配置" in str(u) for u in updates) and any("词表大小 V" in str(u) for u in updates)
    result, status, *_ = client.predict("a [MASK]", 5, "/definitely/not/here", "en", api_name="/fill_mask")
    assert "not a model folder" in result["error"]
