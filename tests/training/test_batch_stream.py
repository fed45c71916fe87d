"""Batches made beside the step (albert.training.batch_stream): the same batches in the same order with 0 or N
worker processes, a resumed stream continuing exactly, and the batches being what the examples define."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import torch

from albert.core.config import IGNORE_INDEX
from albert.data.corpus import TokenizedCorpus
from albert.data.pretraining_examples import PretrainingDataConfig, PretrainingDataset, collate_pretraining
from albert.data.tokenizer import load_tokenizer
from albert.training.batch_stream import (
    MAX_AUTO_WORKERS,
    BatchStream,
    PlannedLoader,
    TaskBatches,
    auto_workers,
    resolve_workers,
)
from albert.training.distributed import Distributed, epoch_order

CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def dataset(corpus: dict[str, Path]) -> PretrainingDataset:
    tokenizer = load_tokenizer(corpus["tokenizer"])
    data = TokenizedCorpus.build([corpus["train"]], tokenizer, corpus["root"] / "cache" / "train")
    return PretrainingDataset(data, PretrainingDataConfig(max_seq_length=32), tokenizer)


def take(stream: BatchStream, count: int) -> list[dict[str, torch.Tensor]]:
    try:
        return [stream.next() for _ in range(count)]
    finally:
        stream.close()


def assert_same(first: list[dict[str, torch.Tensor]], second: list[dict[str, torch.Tensor]]) -> None:
    assert len(first) == len(second)
    for number, (a, b) in enumerate(zip(first, second, strict=True)):
        assert a.keys() == b.keys()
        for key in a:
            assert torch.equal(a[key], b[key]), f"batch {number}, {key}"


def batches_per_epoch(dataset: PretrainingDataset, global_batch: int) -> int:
    dataset.set_epoch(0)
    return len(dataset) // global_batch


def test_workers_give_the_same_batches_in_the_same_order_across_epochs(dataset: PretrainingDataset) -> None:
    count = batches_per_epoch(dataset, 8) * 2 + 3  # past two epoch ends: recut chunks, new masks
    single = Distributed(0, 1, 0, CPU)
    in_process = take(BatchStream(dataset, 8, single, seed=3, pad_id=0, workers=0), count)
    with_workers = take(BatchStream(dataset, 8, single, seed=3, pad_id=0, workers=2), count)
    assert_same(in_process, with_workers)
    assert not torch.equal(in_process[0]["input_ids"], in_process[1]["input_ids"])


def test_batches_are_the_examples_of_the_seeded_order(dataset: PretrainingDataset) -> None:
    """What the stream was before it had workers: batch k is examples order[8k : 8k + 8], collated (so a checkpoint
    written before the change resumes onto the same data)."""
    stream = BatchStream(dataset, 8, Distributed(0, 1, 0, CPU), seed=5, pad_id=0, workers=2)
    got = take(stream, 3)
    dataset.set_epoch(0)
    order = epoch_order(len(dataset), 5, 0)
    expected = [collate_pretraining([dataset[i] for i in order[8 * k : 8 * k + 8]], 0) for k in range(3)]
    for batch in expected:
        labels = batch["mlm_labels"]
        batch["mlm_targets"] = labels[labels != IGNORE_INDEX]
    assert_same(got, expected)
    assert all(int(b["mlm_targets"].numel()) == int((b["mlm_labels"] != IGNORE_INDEX).sum()) > 0 for b in got)


def test_a_stream_resumed_from_its_position_continues_exactly(dataset: PretrainingDataset) -> None:
    per_epoch = batches_per_epoch(dataset, 8)
    single = Distributed(0, 1, 0, CPU)
    straight = take(BatchStream(dataset, 8, single, seed=1, pad_id=0, workers=2), per_epoch + 4)
    first = BatchStream(dataset, 8, single, seed=1, pad_id=0, workers=2)
    before = [first.next() for _ in range(per_epoch - 1)]  # stop one batch before the epoch's end
    position = (first.epoch, first.offset)
    first.close()
    assert position == (0, 8 * (per_epoch - 1))  # what a checkpoint stores: taken batches, not prefetched ones
    resumed = take(BatchStream(dataset, 8, single, 1, 0, *position, workers=1), 5)
    assert_same(before + resumed, straight)


def test_processes_split_each_global_batch(dataset: PretrainingDataset) -> None:
    whole = take(BatchStream(dataset, 8, Distributed(0, 1, 0, CPU), seed=2, pad_id=0, workers=0), 2)
    halves = [
        take(BatchStream(dataset, 4, Distributed(rank, 2, rank, CPU), seed=2, pad_id=0, workers=1), 2)
        for rank in (0, 1)
    ]
    for number, batch in enumerate(whole):
        assert torch.equal(
            batch["sentence_order_label"],
            torch.cat([halves[0][number]["sentence_order_label"], halves[1][number]["sentence_order_label"]]),
        )
        assert torch.equal(
            batch["mlm_targets"], torch.cat([halves[0][number]["mlm_targets"], halves[1][number]["mlm_targets"]])
        )


def test_a_corpus_smaller_than_a_global_batch_is_refused_before_any_worker_starts(dataset: PretrainingDataset) -> None:
    with pytest.raises(ValueError, match="fewer than one global batch"):
        BatchStream(dataset, len(dataset) + 1, Distributed(0, 1, 0, CPU), seed=0, pad_id=0, workers=2)


def test_waiting_for_batches_is_measured(dataset: PretrainingDataset) -> None:
    stream = BatchStream(dataset, 8, Distributed(0, 1, 0, CPU), seed=0, pad_id=0, workers=0)
    take(stream, 2)
    assert stream.wait_seconds > 0  # with 0 workers every batch is made while the step waits


def test_task_batches_are_the_same_with_workers() -> None:
    examples = [{"input_ids": list(range(2, 2 + n)), "token_type_ids": [0] * n, "labels": n % 2} for n in range(3, 40)]
    make = TaskBatches(examples, pad_id=0, seed=4, dist=Distributed(0, 1, 0, CPU), batch_size=8)
    assert make.steps_per_epoch == 5  # 37 examples, the last batch padded from the epoch's start
    loaders = [PlannedLoader(make, itertools.count(3), workers) for workers in (0, 2)]
    made = [[loader.next() for _ in range(7)] for loader in loaders]
    for loader in loaders:
        loader.close()
    for (count_a, a), (count_b, b) in zip(*made, strict=True):
        assert count_a == count_b and a.keys() == b.keys()
        assert all(torch.equal(a[key], b[key]) for key in a)
    assert [count for count, _ in made[0][:3]] == [8, 5, 8]  # steps 3, 4 (the short last batch), 5 (next epoch)


def test_auto_workers_share_the_cores_and_stay_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOCAL_WORLD_SIZE", raising=False)
    assert auto_workers(cpus=2) == 1
    assert auto_workers(cpus=1) == 0
    assert auto_workers(cpus=16) == MAX_AUTO_WORKERS == 8
    assert auto_workers(world_size=4, cpus=16) == 3
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "8")  # torchrun: the processes on this machine share its cores
    assert auto_workers(world_size=16, cpus=16) == 1
    assert resolve_workers(3) == 3 and resolve_workers(0) == 0
    with pytest.raises(ValueError, match="data_workers must be -1"):
        resolve_workers(-2)


def test_a_worker_count_below_minus_one_is_refused_in_one_sentence(tmp_path: Path) -> None:
    from albert.commands.pretrain import PretrainConfig

    with pytest.raises(ValueError, match=r"data_workers must be -1 \(auto\), 0 \(in the training process\)"):
        PretrainConfig(corpus=("books.txt",), output_dir=str(tmp_path / "run"), data_workers=-5)
    assert PretrainConfig(corpus=("books.txt",), output_dir=str(tmp_path / "run")).data_workers == -1  # auto
