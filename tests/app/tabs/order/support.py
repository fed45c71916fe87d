"""A tiny world for the *Sentence order* tab: SOP and NSP models in English and Chinese, and other-book segments.

Beside `tests/app/support.py`'s tiny models (albert-lab-base, albert-lab-none, albert-lab-zh), it adds the NSP arms the
tab shows beside them (albert-lab-nsp, and albert-lab-zh-nsp unless asked not to) and a small list of "B from
another book" segments written in the tiny tokenizers' words, as ALBERT_LAB_ORDER_OTHERS finds it.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.app.support import ChineseAssets, tiny_assets, tiny_chinese_assets

OTHERS = {
    "en": ["a broken clock stood in the market square .", "the baker sold bread every morning ."],
    "zh": ["北京是中国的首都。", "他每天早上都要喝一杯茶。"],
}
"""The tiny world's segments of other books (every character known to the tiny tokenizers)."""
PAIRS = {
    "en": ("the old sailor walked along the river .", "then she sat on the bench ."),
    "zh": ("今天下了一场大雨。", "路上到处都是积水。"),
}


def save_nsp_model(directory: Path, tokenizer, seed: int = 1) -> Path:
    """A tiny random AlbertForPreTraining trained (as far as its config says) with next-sentence prediction."""
    from albert import AlbertForPreTraining
    from tests.factories import ROUND_FFN, tiny_model

    sizes = {"vocab_size": len(tokenizer), "intermediate_size": ROUND_FFN}
    model = tiny_model(AlbertForPreTraining, seed=seed, sharing="all", sentence_objective="nsp", **sizes)
    model.save_pretrained(directory, tokenizer=tokenizer)
    return directory


def tiny_order_assets(root: Path, chinese_nsp: bool = True) -> tuple[ChineseAssets, Path]:
    """Under `root`: `tiny_chinese_assets` plus albert-lab-nsp (and albert-lab-zh-nsp when `chinese_nsp`), and the
    other-book segments file; returns (the assets, that file)."""
    from albert.data.tokenizer import load_tokenizer
    from app.models import NSP_MODELS

    assets = tiny_chinese_assets(root)
    save_nsp_model(assets.models / NSP_MODELS["en"], load_tokenizer(tiny_assets().tokenizer))
    if chinese_nsp:
        save_nsp_model(assets.models / NSP_MODELS["zh"], assets.tokenizer)
    others = root / "other-books.json"
    others.write_text(json.dumps(OTHERS, ensure_ascii=False), encoding="utf-8")
    return assets, others
