"""A tiny tokenizer and two tiny 'pretrained' ALBERTs of different widths, made here (no ../shared)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import torch
from hostile_support import WORDS, write_table

from albert import AlbertConfig, AlbertForPreTraining


@pytest.fixture(scope="session")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from albert.tokenizer import train_tokenizer

    root = tmp_path_factory.mktemp("hostile")
    rng = random.Random(0)
    (root / "corpus.txt").write_text("\n".join(" ".join(rng.choice(WORDS) for _ in range(8))
                                               for _ in range(200)) + "\n")
    tokenizer = train_tokenizer([root / "corpus.txt"], root / "tokenizer", vocab_size=40)
    out = {"root": root}
    for name, hidden in (("narrow", 32), ("wide", 48)):
        config = AlbertConfig(vocab_size=len(tokenizer), embedding_size=16, hidden_size=hidden, num_hidden_layers=2,
                              num_attention_heads=4, intermediate_size=64, max_position_embeddings=64)
        torch.manual_seed(0)
        out[name] = AlbertForPreTraining(config).save_pretrained(root / name, tokenizer=tokenizer)
    labels = [str(i % 2) for i in range(48)]
    out["train"] = write_table(root / "train.tsv", labels)
    out["dev"] = write_table(root / "dev.tsv", labels[:16])
    return out
