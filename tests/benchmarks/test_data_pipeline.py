"""benchmarks/data_pipeline.py's measurements on the tests' tiny corpus: one process's batch rate beside
transformers' collator, and a real run's share of each step spent waiting for batches."""

from __future__ import annotations

from pathlib import Path

import pytest

from albert.data.corpus import TokenizedCorpus
from albert.data.pretraining_examples import PretrainingDataConfig, PretrainingDataset
from albert.data.tokenizer import load_tokenizer
from benchmarks.data_pipeline import one_process_rate, peer_rate, run_wait_share


def test_one_process_makes_batches_and_counts_padding_apart(corpus: dict[str, Path]) -> None:
    tokenizer = load_tokenizer(corpus["tokenizer"])
    data = TokenizedCorpus.build([corpus["train"]], tokenizer, corpus["root"] / "cache" / "train")
    dataset = PretrainingDataset(data, PretrainingDataConfig(max_seq_length=32), tokenizer)
    rate = one_process_rate(dataset, batch_size=8, seq_len=32, batches=3)
    assert 0 < rate["tokens_per_second"] <= rate["positions_per_second"]
    assert peer_rate(dataset, tokenizer, batch_size=8, seq_len=32, batches=3) > 0


@pytest.mark.slow
def test_a_real_run_reports_the_share_of_its_steps_spent_waiting(corpus: dict[str, Path], tmp_path: Path) -> None:
    shares = [
        run_wait_share(
            corpus["train"], str(corpus["tokenizer"]), workers, 21, tmp_path / "cache", tmp_path / str(workers)
        )
        for workers in (0, 1)
    ]
    assert all(0 < share < 1 for share in shares)
