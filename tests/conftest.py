"""Shared fixtures: tiny configs (from tests/factories.py), a padded batch, and an offline Hugging Face hub.

Tests never download: the hub is switched off before anything imports `huggingface_hub`,
and transformers models are built from a config with random weights.
"""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before transformers / huggingface_hub read it at import
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

from albert import AlbertConfig  # noqa: E402
from tests.factories import TINY, tiny_config, write_corpus  # noqa: E402
from tests.scheduling import OneFileAhead, longest_first, whole_files  # noqa: E402

# Test models are tiny: a second intra-op thread only adds synchronisation, and on a busy
# machine OpenMP's spinning threads made the suite 2–3× slower (measured: 53 s → 22 s).
torch.set_num_threads(1)

# The app computes its heavy work (/measure_speed's timing, the lessons' training) in children at nice 19, below its
# server. In a test run other tests compute beside them (the other pytest-xdist workers, other modules' servers): at
# nice 0 those starve a nice-19 child (a 15 s timing took 324 s with four workers). The suite runs at nice 19 itself,
# so every process it starts has the same priority; the children's own nice 19 stays 19.
os.nice(max(0, 19 - os.getpriority(os.PRIO_PROCESS, 0)))


@pytest.fixture
def make_config() -> Callable[..., AlbertConfig]:
    """`make_config(sharing="ffn", ...)`: a tiny, valid config with some fields changed."""
    return tiny_config


@pytest.fixture
def batch() -> dict[str, torch.Tensor]:
    """Three sequences of up to 11 tokens; two are padded (mask 0, pad id 0), one is full."""
    generator = torch.Generator().manual_seed(1234)
    input_ids = torch.randint(5, TINY["vocab_size"], (3, 11), generator=generator)
    attention_mask = torch.ones(3, 11, dtype=torch.long)
    attention_mask[1, 7:] = 0
    attention_mask[2, 4:] = 0
    input_ids[attention_mask == 0] = 0
    token_type_ids = torch.zeros(3, 11, dtype=torch.long)
    token_type_ids[:, 5:] = 1
    token_type_ids[attention_mask == 0] = 0
    return {"input_ids": input_ids, "attention_mask": attention_mask, "token_type_ids": token_type_ids}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A tiny pretraining corpus (train, short held-out books) and an 80-piece tokenizer trained on it, per module."""
    root = tmp_path_factory.mktemp("pretrain")
    train = write_corpus(root / "train.txt")
    valid = write_corpus(root / "valid.txt", documents=4, seed=1, short=True)
    from albert.data.tokenizer import train_tokenizer

    train_tokenizer([train], root / "tokenizer", vocab_size=80)
    return {"train": train, "valid": valid, "tokenizer": root / "tokenizer", "root": root}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every browser test is also `slow` (it starts a served app and a Chromium), so `-m "not slow"` leaves them out
    without each browser module saying so twice; then the files with the longest kinds of test go first
    (tests/scheduling.py)."""
    for item in items:
        if item.get_closest_marker("browser") is not None:
            item.add_marker(pytest.mark.slow)
    longest_first(items)


def pytest_configure(config: pytest.Config) -> None:
    """`pytest -n N` runs whole files per worker, as `scripts/lab.sh test` does (tests/scheduling.py)."""
    whole_files(config.option)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> OneFileAhead | None:
    """`--dist loadfile` (scripts/lab.sh) hands out files in collection order, one file ahead (tests/scheduling.py)."""
    return OneFileAhead(config, log) if config.getoption("dist", None) == "loadfile" else None
