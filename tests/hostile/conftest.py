"""Fixtures of the hostile-input tests: `models`, a tiny tokenizer and two tiny 'pretrained' ALBERTs of different
widths (never from ../shared), with a small task table to fine-tune them on."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from albert import AlbertForPreTraining
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
