"""Checkpoints laid out exactly as two hub repositories publish them, with random weights, in a Hugging Face cache.

For measuring and testing offline what a Space does with real models (`benchmarks/space_rehearsal.py`,
tests/app/models/test_defaults.py): nothing is downloaded, and the files differ from the hub's only in their numbers.

- `albert/albert-base-v2` (Google, converted by transformers): config.json with ALBERT v1's fields
  (`down_scale_factor`, `gap_size`, `net_structure_type`, `num_memory_blocks`), architectures AlbertForMaskedLM,
  `gelu_new`; model.safetensors (≈ 47 MB) with a pooler, the MLM head (its decoder tied, not stored again) and a
  saved `position_ids`, but no sentence-order head; a SentencePiece tokenizer (here the shipped albert-lab-base's
  8,000 pieces, fewer than the 30,000 rows the model has, as the loader allows).
- `uer/albert-base-chinese-cluecorpussmall` (UER): config.json as UER writes it (AlbertForMaskedLM, exact `gelu`);
  **pytorch_model.bin only** (UER's conversion: the MLM head with `predictions.bias` and the decoder's own copy,
  the pooler and the SOP head `sop_classifier`, no `position_ids`); **vocab.txt only**, laid out as BERT-Chinese's
  21,128 entries ([PAD] 0, [unused1–99], [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103, then ASCII, Chinese
  punctuation and every CJK unified ideograph U+4E00–U+9FFF until the list is full).

`sizes=TINY` shrinks the encoder (vocabularies stay full size, so every tokenizer path is the real one); `FULL` keeps
the hub's sizes (≈ 47 MB and ≈ 54 MB of weights).

    python -m benchmarks.hub_layouts CACHE_DIR [--tiny]   # fill CACHE_DIR (a HF_HUB_CACHE) with both
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)
REPO = Path(__file__).resolve().parents[1]
TOKENIZER_SOURCE = REPO / "assets" / "models" / "albert-lab-base"
REVISION = "41" * 20
GOOGLE_ID = "albert/albert-base-v2"
UER_ID = "uer/albert-base-chinese-cluecorpussmall"
FULL: dict[str, int] = {}
TINY: dict[str, int] = dict(
    embedding_size=16, hidden_size=32, num_hidden_layers=3, num_attention_heads=4, intermediate_size=48
)
GOOGLE_CONFIG: dict[str, Any] = {
    "architectures": ["AlbertForMaskedLM"],
    "attention_probs_dropout_prob": 0,
    "bos_token_id": 2,
    "classifier_dropout_prob": 0.1,
    "down_scale_factor": 1,
    "embedding_size": 128,
    "eos_token_id": 3,
    "gap_size": 0,
    "hidden_act": "gelu_new",
    "hidden_dropout_prob": 0,
    "hidden_size": 768,
    "initializer_range": 0.02,
    "inner_group_num": 1,
    "intermediate_size": 3072,
    "layer_norm_eps": 1e-12,
    "max_position_embeddings": 512,
    "model_type": "albert",
    "net_structure_type": 0,
    "num_attention_heads": 12,
    "num_hidden_groups": 1,
    "num_hidden_layers": 12,
    "num_memory_blocks": 0,
    "pad_token_id": 0,
    "type_vocab_size": 2,
    "vocab_size": 30000,
}
UER_CONFIG: dict[str, Any] = {
    "architectures": ["AlbertForMaskedLM"],
    "attention_probs_dropout_prob": 0.0,
    "bos_token_id": 2,
    "classifier_dropout_prob": 0.1,
    "embedding_size": 128,
    "eos_token_id": 3,
    "hidden_act": "gelu",
    "hidden_dropout_prob": 0.0,
    "hidden_size": 768,
    "initializer_range": 0.02,
    "inner_group_num": 1,
    "intermediate_size": 3072,
    "layer_norm_eps": 1e-12,
    "max_position_embeddings": 512,
    "model_type": "albert",
    "num_attention_heads": 12,
    "num_hidden_groups": 1,
    "num_hidden_layers": 12,
    "pad_token_id": 0,
    "type_vocab_size": 2,
    "vocab_size": 21128,
}
CHINESE_PUNCTUATION = "，。！？、：；“”‘’（）《》【】…—·"


def snapshot(cache: Path, hub_id: str, revision: str = REVISION) -> Path:
    """An empty snapshot folder in the cache layout (models--ORG--NAME/snapshots/REV, refs/main holding REV)."""
    repo = Path(cache) / f"models--{hub_id.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(revision)
    folder = repo / "snapshots" / revision
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def chinese_vocabulary(size: int = 21128) -> list[str]:
    """BERT-Chinese's layout of `size` entries: the special tokens where it has them, then ASCII, Chinese
    punctuation, '##' pieces of a few ASCII letters and Han characters in code-point order."""
    words = ["[PAD]", *(f"[unused{i}]" for i in range(1, 100)), "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    words += [chr(c) for c in range(33, 127)] + list(CHINESE_PUNCTUATION) + [f"##{c}" for c in "sedgint"]
    words += [chr(c) for c in range(0x4E00, 0x9FFF + 1)][: max(size - len(words), 0)]
    return words[:size]


def _model(config: dict[str, Any], seed: int) -> Any:
    import torch
    import transformers

    torch.manual_seed(seed)
    return transformers.AlbertForPreTraining(transformers.AlbertConfig(**config)).eval()


def write_google_albert(cache: Path, sizes: dict[str, int] = FULL, hub_id: str = GOOGLE_ID, seed: int = 0) -> Any:
    """albert/albert-base-v2's files (see the module's docstring) under `hub_id`; returns the transformers model whose
    weights they hold (without its random SOP head)."""
    import torch
    from safetensors.torch import save_file

    folder = snapshot(cache, hub_id)
    config = {**GOOGLE_CONFIG, **sizes}
    model = _model(config, seed)
    state = {k: v.detach().clone().contiguous() for k, v in model.state_dict().items()}
    state = {k: v for k, v in state.items() if not k.startswith("sop_classifier.")}
    state["albert.embeddings.position_ids"] = torch.arange(config["max_position_embeddings"])[None]
    state.pop("predictions.decoder.weight", None)  # tied to the word embeddings: not stored again (47 MB in all)
    save_file(state, str(folder / "model.safetensors"), metadata={"format": "pt"})
    (folder / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    for name in ("spiece.model", "tokenizer.json", "tokenizer_config.json"):
        if (TOKENIZER_SOURCE / name).is_file():
            shutil.copyfile(TOKENIZER_SOURCE / name, folder / name)
    return model


def write_uer_albert(
    cache: Path, sizes: dict[str, int] = FULL, hub_id: str = UER_ID, seed: int = 0, sop_head: bool = True
) -> Any:
    """uer/albert-base-chinese-cluecorpussmall's files (see the module's docstring) under `hub_id`; returns the
    transformers model whose weights they hold."""
    import torch

    folder = snapshot(cache, hub_id)
    config = {**UER_CONFIG, **sizes}
    model = _model(config, seed)
    state = {k: v.detach().clone() for k, v in model.state_dict().items() if not k.endswith("position_ids")}
    if not sop_head:
        state = {k: v for k, v in state.items() if not k.startswith("sop_classifier.")}
    torch.save(state, folder / "pytorch_model.bin")
    (folder / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    vocabulary = chinese_vocabulary(config["vocab_size"])
    (folder / "vocab.txt").write_text("\n".join(vocabulary) + "\n", encoding="utf-8")
    return model


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cache", type=Path, help="the Hugging Face cache folder to fill (HF_HUB_CACHE)")
    parser.add_argument("--tiny", action="store_true", help="tiny encoders (the tests' sizes) instead of the hub's")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    sizes = TINY if args.tiny else FULL
    write_google_albert(args.cache, sizes)
    write_uer_albert(args.cache, sizes)
    logger.info("wrote %s and %s into %s", GOOGLE_ID, UER_ID, args.cache)


if __name__ == "__main__":
    main()
