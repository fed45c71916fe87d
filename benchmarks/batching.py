"""Would Gradio's `batch=True` help /fill_mask? N single requests against one padded batch of the same N.

    python benchmarks/batching.py                      # shipped albert-lab-base, N = 8 and 32, 7 rounds
    python benchmarks/batching.py --sizes 8 32 --rounds 5 --model albert-lab-base

Like for like, in one process, with the app's one torch thread per request (`configure_torch_threads`),
the same N short sentences of mixed lengths (one [MASK] each), the model loaded once by the app's own
loader (`app.models.load`), and every round timing each way once, their order alternating:

- forward: N forward passes of one sentence each against one forward of the N sentences padded to the
  longest, with its attention mask (the tensors built before timing);
- inference: N calls of the app's `app.inference.fill_mask` against the same steps done once for the batch
  (`fill_mask_batch` below: the app's cleaning, `<unk>` check and encoding per sentence, then one padded
  forward and the same top-k per [MASK]); the batch's top-5 tokens must equal the singles' and their
  probabilities agree within 1e-4, or the script stops (a pad leaking into attention would show here);
- view: N calls of the whole `/fill_mask` view (`app.tabs.masked.views.fill_mask_view`: input checks, inference,
  status text, chart), the per-request work a batch would have to share (it batches the model part only).

Reports the median CPU milliseconds of each over the rounds (the calling thread's: with one torch thread that
is the work itself, even on cores busy with other work) and the ratio singles / batch (above 1: the batch is
faster), with the wall-clock figures beside them, which on busy cores mostly measure the waits.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

logger = logging.getLogger("benchmarks.batching")
SENTENCES = [
    "The [MASK] sat down.",
    "She opened the [MASK] and walked in.",
    "The old sailor walked along the [MASK] near the quiet village.",
    "It was the best of times, it was the [MASK] of times.",
    "My sister painted seventeen lanterns in the [MASK] while the children counted boxes on the floor.",
    "A broken clock stood in the market square where the [MASK] sold bread every morning before dawn.",
    "He [MASK] home.",
    "The children ran to the river, and their mother [MASK] after them, calling their names across the field.",
]
"""Short sentences of 5 to 22 words (about 7 to 30 tokens): mixed lengths, so the batch carries padding."""


def texts_for(n: int) -> list[str]:
    """`n` sentences cycled from SENTENCES."""
    return [SENTENCES[i % len(SENTENCES)] for i in range(n)]


def fill_mask_batch(lm: Any, texts: list[str], top_k: int = 5) -> list[list[tuple[str, float]]]:
    """The top-k (token, probability) of each text's [MASK], the app's steps with one forward for all texts."""
    import torch

    from app import inference

    rows = []
    for text in texts:
        clean, _ = inference.clean_text(text, "en")
        inference.readable(lm, [clean], "en")
        rows.append(inference.encode(lm, clean))
    ids, types, mask = inference.pad_batch(rows, lm.tokenizer.pad_token_id)
    labels = torch.where(ids == lm.mask_id, ids, torch.full_like(ids, -100))
    with torch.inference_mode():
        out = lm.model(ids, attention_mask=mask, token_type_ids=types, mlm_labels=labels)
        probs = out.mlm_logits.float().softmax(dim=-1)  # one row per [MASK], in batch order
        ranking = probs.clone()
        ranking[:, list(lm.special_ids)] = -1.0
        ranking[:, len(lm.tokenizer) :] = -1.0
        top = ranking.topk(top_k, dim=-1)
    answers = []
    for indices, values in zip(top.indices.tolist(), top.values.tolist(), strict=True):
        pieces = lm.tokenizer.convert_ids_to_tokens(indices)
        answers.append([(inference.display_token(p), v) for p, v in zip(pieces, values, strict=True)])
    return answers


def check_same_answers(lm: Any, texts: list[str]) -> None:
    """Stop unless the batch gives every text the top-5 its single request gives."""
    from app import inference

    batched = fill_mask_batch(lm, texts)
    for text, batch_answer in zip(texts, batched, strict=True):
        single = inference.fill_mask(lm, text, 5).predictions[0].candidates
        same_tokens = [t for t, _ in single] == [t for t, _ in batch_answer]
        close = all(abs(a - b) < 1e-4 for (_, a), (_, b) in zip(single, batch_answer, strict=True))
        if not (same_tokens and close):
            raise SystemExit(f"the batch answers {text!r} differently: {batch_answer} against {single}")


def forward_pair(lm: Any, texts: list[str]) -> tuple[Callable[[], None], Callable[[], None]]:
    """(N single forwards, one padded forward) on tensors built once, outside the timing."""
    import torch

    from app import inference

    rows = [inference.encode(lm, text) for text in texts]
    singles = [inference.pad_batch([row], lm.tokenizer.pad_token_id) for row in rows]
    batch = inference.pad_batch(rows, lm.tokenizer.pad_token_id)

    def one_by_one() -> None:
        with torch.inference_mode():
            for ids, types, mask in singles:
                lm.model(ids, attention_mask=mask, token_type_ids=types)

    def together() -> None:
        ids, types, mask = batch
        with torch.inference_mode():
            lm.model(ids, attention_mask=mask, token_type_ids=types)

    return one_by_one, together


def timed(fn: Callable[[], Any]) -> tuple[float, float]:
    """(CPU ms of this thread, wall ms) of one call. With one torch thread the work runs in this thread, so
    its CPU time is the work itself, whatever else keeps the cores busy; wall time also counts the waits."""
    cpu, wall = time.thread_time(), time.perf_counter()
    fn()
    return (time.thread_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000


def measure(lm: Any, n: int, rounds: int) -> dict[str, list[tuple[float, float]]]:
    """Median (CPU ms, wall ms) of N singles and of one batch, for the forward and the inference, and of N whole
    views: {"forward": [singles, batch], "inference": [singles, batch], "view": [singles]}."""
    from app import inference
    from app.tabs.masked.views import fill_mask_view

    texts = texts_for(n)
    check_same_answers(lm, texts)
    one_by_one, together = forward_pair(lm, texts)
    runs: dict[str, list[Callable[[], Any]]] = {
        "forward": [one_by_one, together],
        "inference": [lambda: [inference.fill_mask(lm, t, 5) for t in texts], lambda: fill_mask_batch(lm, texts)],
        "view": [lambda: [fill_mask_view(t, 5, lm.name, "en") for t in texts]],
    }
    times: dict[str, list[list[tuple[float, float]]]] = {name: [[] for _ in fns] for name, fns in runs.items()}
    for _ in range(2):  # warm-up
        for fns in runs.values():
            for fn in fns:
                fn()
    for number in range(rounds):
        for name, fns in runs.items():
            order = list(range(len(fns)))[:: -1 if number % 2 else 1]  # singles first, then batch first, …
            for index in order:
                times[name][index].append(timed(fns[index]))
    return {
        name: [(statistics.median(c for c, _ in kept), statistics.median(w for _, w in kept)) for kept in each]
        for name, each in times.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="albert-lab-base", help="a shipped model (assets/models)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 32], help="requests per batch (N)")
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds per size")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")

    from albert.core.params import count_parameters
    from app.models import configure_torch_threads, load

    threads = configure_torch_threads()
    lm = load(args.model)
    params = count_parameters(lm.config, "pretraining").total
    logger.info("%s: %s parameters, %d torch thread(s), %d rounds", lm.name, f"{params:,}", threads, args.rounds)
    for n in args.sizes:
        figures = measure(lm, n, args.rounds)
        for name in ("forward", "inference"):
            (single_cpu, single_wall), (batch_cpu, batch_wall) = figures[name]
            logger.info(
                "N=%-3d %-9s CPU: %d singles %7.1f ms, one batch %7.1f ms, singles/batch %.2f×"
                "   (wall: %.1f / %.1f ms, %.2f×)",
                n,
                name,
                n,
                single_cpu,
                batch_cpu,
                single_cpu / batch_cpu,
                single_wall,
                batch_wall,
                single_wall / batch_wall,
            )
        view_cpu, view_wall = figures["view"][0]
        logger.info(
            "N=%-3d view      CPU: %d whole /fill_mask views %7.1f ms   (wall: %.1f ms)", n, n, view_cpu, view_wall
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
