"""Han characters: the Unicode ranges that Chinese BERT and albert_zh read as one token each.

A foundation module because two layers need the same ranges: the model core reads a multi-task model's input words
(`albert.core.multitask`) and the data layer cuts, counts and masks Chinese text (`albert.data.chinese`).
"""

from __future__ import annotations

import re

HAN_RANGES = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
"""CJK unified ideographs (the basic block, extensions A to G) and the compatibility ideographs."""

HAN = re.compile(f"[{HAN_RANGES}]")
"""One Han character."""
