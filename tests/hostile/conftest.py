"""Fixtures of the hostile-input tests: `models`, a tiny tokenizer and two tiny 'pretrained' ALBERTs of different
widths (never from ../shared), with a small task table to fine-tune them on; `url` and `http`, the shared launched
app and a client for raw requests to it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from albert import AlbertForPreTraining
from tests.app.support import running_app
from tests.factories import ROUND_FFN, tiny_model
from tests.hostile.support import WORDS, write_table


@pytest.fixture(scope="session")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from albert.data.tokenizer import train_tokenizer

    root = tmp_path_factory.mktemp("hostile")
    rng = random.Random(0)
    (root / "corpus.txt").write_text(
        "\n".join(" ".join(rng.choice(WORDS) for _ in range(8)) for _ in range(200)) + "\n"
    )
    tokenizer = train_tokenizer([root / "corpus.txt"], root / "tokenizer", vocab_size=40)
    out = {"root": root}
    for name, hidden in (("narrow", 32), ("wide", 48)):
        sizes = {"hidden_size": hidden, "num_hidden_layers": 2, "intermediate_size": ROUND_FFN}
        model = tiny_model(AlbertForPreTraining, vocab_size=len(tokenizer), **sizes)
        out[name] = model.save_pretrained(root / name, tokenizer=tokenizer)
    labels = [str(i % 2) for i in range(48)]
    out["train"] = write_table(root / "train.tsv", labels)
    out["dev"] = write_table(root / "dev.tsv", labels[:16])
    return out


@pytest.fixture(scope="module")
def url() -> str:
    """The shared launched app's URL (`tests.app.support.running_app`), without its trailing slash."""
    return running_app().rstrip("/")


@pytest.fixture(scope="module")
def http():
    """One HTTP client for a module's raw requests."""
    import httpx

    with httpx.Client(timeout=60) as client:
        yield client
