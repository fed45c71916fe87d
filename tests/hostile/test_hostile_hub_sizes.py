"""No download before the size checks (issue 43, item 3): a hub id is sized from the hub's metadata (file list and
sizes, config.json, the safetensors headers) and refused within the limits before any weight is fetched.

Offline, with a fake hub: `FakeHub` stands in for `huggingface_hub.HfApi` (model_info with file sizes, config.json,
get_safetensors_metadata) and records every call, and `huggingface_hub.snapshot_download` (the weights' download in
`albert.core.checkpoint.resolve_directory`) is replaced by a recorder, so a test sees what was asked and what would
have been downloaded. The Hugging Face cache is an empty folder, as tests/app/models/test_hub_in_app.py sets it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from app import settings
from app.models import hub as hub_models
from app.models import hub_sizes
from app.models.files import MAX_PARAMETERS, WEIGHTS_MAX_BYTES, ModelError

SMALL_CONFIG = {
    "architectures": ["AlbertForPreTraining"],
    "model_type": "albert",
    "vocab_size": 30000,
    "embedding_size": 128,
    "hidden_size": 768,
    "num_hidden_layers": 12,
    "num_attention_heads": 12,
    "intermediate_size": 3072,
    "max_position_embeddings": 512,
}
"""albert-base-v2's config: 11.7M parameters."""


@dataclass
class FakeHub:
    """A hub repository as `HfApi` describes it: its files and sizes, its config, its headers' parameter count."""

    files: dict[str, int | None]
    config: dict[str, Any] = field(default_factory=lambda: dict(SMALL_CONFIG))
    parameters: int = 11_683_584
    folder: Path = Path(".")
    calls: list[str] = field(default_factory=list)

    def model_info(self, repo_id: str, *, files_metadata: bool = False, **_: Any) -> Any:
        self.calls.append("model_info")
        assert files_metadata, "the sizes come with files_metadata=True"
        siblings = [SimpleNamespace(rfilename=name, size=size) for name, size in self.files.items()]
        return SimpleNamespace(sha="a" * 40, siblings=siblings)

    def hf_hub_download(self, repo_id: str, filename: str, **_: Any) -> str:
        self.calls.append(f"download {filename}")
        path = self.folder / "snapshot" / filename
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.config), encoding="utf-8")
        return str(path)

    def get_safetensors_metadata(self, repo_id: str, **_: Any) -> Any:
        self.calls.append("safetensors headers")
        return SimpleNamespace(parameter_count={"F32": self.parameters})


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """An empty Hugging Face cache, the hub's downloads recorded: the list of snapshot_download calls."""
    import huggingface_hub
    from huggingface_hub import constants

    (tmp_path / "cache").mkdir()
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(hub_models, "_reachability", {})
    monkeypatch.delenv(settings.SPACE.name, raising=False)
    downloads: list[str] = []

    def snapshot_download(repo_id: str, **kwargs: Any) -> str:
        downloads.append(repo_id)
        raise OSError("no network in the tests")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    return downloads


def _fake(tmp_path: Path, files: dict[str, int | None], **changes: Any) -> FakeHub:
    return FakeHub(files=files, folder=tmp_path, **changes)


BASE_FILES = {"config.json": 700, "model.safetensors": 47_000_000, "spiece.model": 760_000, "README.md": 5_000}


def test_the_planned_download_is_what_resolve_directory_fetches() -> None:
    sizes = {
        **BASE_FILES,
        "pytorch_model.bin": 50_000_000,
        "tf_model.h5": 60_000_000,
        "onnx/model.safetensors": 9,  # not at the top level: the download's patterns do not reach it
        "model-00001-of-00002.safetensors": 1,
        "tokenizer.json": 2,
    }
    assert set(hub_sizes.planned_download(sizes)) == {
        "config.json",
        "model.safetensors",
        "model-00001-of-00002.safetensors",
        "spiece.model",
        "tokenizer.json",
    }
    only_bin = {"config.json": 1, "pytorch_model.bin": 2, "vocab.txt": 3}
    assert hub_sizes.planned_download(only_bin) == only_bin  # no safetensors: the .bin is fetched instead


@pytest.mark.parametrize(
    "files, changes, fragment, asked",
    [
        # one weights file over the byte limit: refused from the file list alone
        ({**BASE_FILES, "model.safetensors": 5_000_000_000}, {}, "5,000,000,000 bytes", ["model_info"]),
        # shards each under the limit, over it together
        (
            {"config.json": 700, **{f"model-0000{i}-of-00004.safetensors": 900_000_000 for i in range(1, 5)}},
            {},
            "3,600,000,000 bytes",
            ["model_info"],
        ),
        # the .bin fallback is sized too
        ({"config.json": 700, "pytorch_model.bin": 4_000_000_000}, {}, "4,000,000,000 bytes", ["model_info"]),
        ({**BASE_FILES, "model.safetensors": None}, {}, "does not say how large", ["model_info"]),
        ({"config.json": 700, "README.md": 10}, {}, "no config.json and weights", ["model_info"]),
        ({**BASE_FILES, "config.json": 10_000_000}, {}, "config.json has 10,000,000 bytes", ["model_info"]),
        ({**BASE_FILES, "tokenizer.json": 500_000_000}, {}, "tokenizer.json has 500,000,000", ["model_info"]),
        # a small file list whose config claims a huge model
        (
            BASE_FILES,
            {"config": {**SMALL_CONFIG, "num_hidden_layers": 10_000}},
            "at most 48",
            ["model_info", "download config.json"],
        ),
        # a small config whose safetensors headers hold more parameters than the limit
        (
            BASE_FILES,
            {"parameters": MAX_PARAMETERS + 1},
            "350,000,001 parameters",
            ["model_info", "download config.json", "safetensors headers"],
        ),
    ],
)
def test_a_hub_id_over_the_limits_is_refused_before_any_weight_is_downloaded(
    hub: list[str], tmp_path: Path, files, changes, fragment, asked
) -> None:
    fake = _fake(tmp_path, files, **changes)
    with pytest.raises(ModelError, match=fragment) as refused:
        hub_sizes.check_before_download("someone/huge-model", "en", api=fake)
    assert "someone/huge-model" in str(refused.value)
    assert fake.calls == asked  # nothing fetched but config.json, and that only once the sizes passed
    assert hub == []


def test_a_hub_id_within_the_limits_passes_after_reading_only_metadata(hub: list[str], tmp_path: Path) -> None:
    fake = _fake(tmp_path, BASE_FILES)
    hub_sizes.check_before_download("someone/small-model", "zh", api=fake)
    assert fake.calls == ["model_info", "download config.json", "safetensors headers"] and hub == []
    assert sum(size for name, size in BASE_FILES.items() if name.endswith(".safetensors")) < WEIGHTS_MAX_BYTES


def test_the_picker_never_downloads_a_repo_the_checks_refuse(
    hub: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the app's loader (`app.models.load`, as every tab calls it): the fake hub answers the metadata, the
    refusal comes before `snapshot_download`. A repo that passes reaches the download (here: no network)."""
    import huggingface_hub

    from app import models as app_models
    from tests.app.support import use_tiny_assets

    use_tiny_assets(monkeypatch)
    app_models.cache.forget()
    big = _fake(tmp_path, {**BASE_FILES, "model.safetensors": 20_000_000_000})
    monkeypatch.setattr(huggingface_hub, "HfApi", lambda: big)
    with pytest.raises(ModelError, match="20,000,000,000 bytes"):
        app_models.load("someone/twenty-gigabytes")
    assert hub == []
    small = _fake(tmp_path, BASE_FILES)
    monkeypatch.setattr(huggingface_hub, "HfApi", lambda: small)
    with pytest.raises(ModelError, match="Could not download"):
        app_models.load("someone/small-model")
    assert hub == ["someone/small-model"] and small.calls[0] == "model_info"


def test_offline_the_hub_is_not_asked_and_the_sentence_says_so(hub: list[str], monkeypatch) -> None:
    from huggingface_hub import HfApi

    with pytest.raises(ModelError, match="seems offline"):  # HF_HUB_OFFLINE=1 in the suite: no request leaves
        hub_sizes.check_before_download("someone/any-model", "en", api=HfApi())
    assert hub == []


def test_a_space_loads_only_the_catalogue_unless_its_host_allows_any_id(
    hub: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(settings.SPACE.name, "spaces")
    fake = _fake(tmp_path, BASE_FILES)
    with pytest.raises(ModelError, match="ALBERT_LAB_ANY_HUB_ID=1"):
        hub_sizes.check_before_download("someone/any-model", "en", api=fake)
    assert fake.calls == []
    hub_sizes.check_before_download("albert/albert-base-v2", "en", api=fake)  # the catalogue's: sized, then fetched
    monkeypatch.setenv(settings.ANY_HUB_ID.name, "1")
    hub_sizes.check_before_download("someone/any-model", "en", api=fake)
    assert fake.calls.count("model_info") == 2 and hub == []
