"""Real checkpoints from the hub: offered when cached or reachable, loaded offline from a Hugging Face cache layout."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from albert import AlbertForPreTraining
from app import settings
from app.models import hub as hub_models
from app.models.files import MAX_PARAMETERS
from tests.factories import tiny_config


def _write_cached(cache: Path, hub_id: str, revision: str = "0" * 40) -> Path:
    """A model saved into the hub cache layout: models--ORG--NAME/refs/main and snapshots/REV/."""
    repo = cache / f"models--{hub_id.replace('/', '--')}"
    snapshot = repo / "snapshots" / revision
    torch.manual_seed(0)
    AlbertForPreTraining(tiny_config()).save_pretrained(snapshot)
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(revision)
    return snapshot


@pytest.fixture
def hub_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from huggingface_hub import constants

    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(hub_models, "_reachability", {})
    return cache


def test_catalogue_counts_and_limits() -> None:
    assert hub_models.BY_ID["albert/albert-base-v2"].parameters == 11_683_584  # the paper's Table 1: 12M
    assert hub_models.BY_ID["google-bert/bert-base-uncased"].parameters == 109_482_240  # 108M/110M in the papers
    assert hub_models.BY_ID["google-bert/bert-large-uncased"].parameters == 335_141_888
    assert all(model.parameters <= MAX_PARAMETERS for model in hub_models.HUB_MODELS)
    assert [m.is_bert for m in hub_models.HUB_MODELS].count(True) == 3
    base = hub_models.BY_ID["albert/albert-base-v2"]
    assert "sentence-order" in base.describe("en") and "47 MB" in base.describe("en")
    assert "句序" in base.describe("zh") and "NSP" in hub_models.BY_ID["google-bert/bert-base-chinese"].describe("zh")


def test_only_cached_models_are_offered_offline(hub_cache: Path) -> None:
    _write_cached(hub_cache, "albert/albert-base-v2")
    assert hub_models.hub_reachable() is False  # HF_HUB_OFFLINE=1 in the suite
    assert hub_models.is_cached("albert/albert-base-v2")
    assert not hub_models.is_cached("albert/albert-large-v2")
    assert [m.hub_id for m in hub_models.offered("en")] == ["albert/albert-base-v2"]
    everything = hub_models.offered("zh", reachable=True)
    assert len(everything) == 9 and everything[0].hub_id == "uer/albert-base-chinese-cluecorpussmall"
    assert [m.hub_id for m in everything[:3]][-1] == "google-bert/bert-base-chinese"


def test_a_cached_hub_id_loads_with_the_network_off(hub_cache: Path) -> None:
    snapshot = _write_cached(hub_cache, "albert/albert-base-v2")
    model = AlbertForPreTraining.from_pretrained("albert/albert-base-v2")
    reference = AlbertForPreTraining.from_pretrained(snapshot)
    for (name, a), (_, b) in zip(model.state_dict().items(), reference.state_dict().items(), strict=True):
        assert torch.equal(a, b), name


def test_reachability_is_probed_once_and_remembered(hub_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    calls: list[int] = []

    def probe() -> bool:
        calls.append(1)
        return True

    assert hub_models.hub_reachable(probe) and hub_models.hub_reachable(probe)
    assert len(calls) == 1


def test_space_default_from_the_environment(hub_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = ["albert-lab-none-s1", "albert-lab-all"]
    monkeypatch.delenv(settings.DEFAULT_MODEL.name, raising=False)
    assert hub_models.default_from_environment(shipped) is None
    monkeypatch.setenv(settings.DEFAULT_MODEL.name, "albert-lab-all")
    assert hub_models.default_from_environment(shipped) == "albert-lab-all"
    monkeypatch.setenv(settings.DEFAULT_MODEL.name, "albert/albert-large-v2")
    assert hub_models.default_from_environment(shipped) is None  # offline and not cached: ours stays
    _write_cached(hub_cache, "albert/albert-large-v2")
    assert hub_models.default_from_environment(shipped) == "albert/albert-large-v2"
    monkeypatch.setenv(settings.DEFAULT_MODEL.name, "someone/else")
    assert hub_models.default_from_environment(shipped) is None
