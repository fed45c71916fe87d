"""The Chinese tests' own corpus: real Chinese sentences made from templates, with their word segmentation
known because the test writes the words itself (never ../shared),
and a character vocabulary trained on it (the fixtures are in this folder's conftest.py)."""

from __future__ import annotations

import random

VOCAB = 180


# Words (the test's own segmentation) for sentences of the form subject + time + verb + object + end.
SUBJECTS = ["我们", "他", "老师", "学生们", "中国", "这家 公司", "我 的 朋友", "记者", "研究 人员", "北京 市"]


TIMES = ["今天", "昨天", "去年", "１９９７年", "2019年", "上午", "每天", "最近"]


VERBS = ["学习", "发布", "喜欢", "研究", "讨论", "看到", "完成", "参观", "介绍", "支持"]


OBJECTS = [
    "自然 语言 处理",
    "这部 电影",
    "新 的 模型",
    "ALBERT 模型",
    "经济 发展",
    "一 本 书",
    "长城",
    "人民 日报",
    "机器 学习",
    "GPU 和 CPU",
    "３ 个 项目",
    "国际 合作",
]


ENDS = ["。", "！", "？", "；", "……", "。”", "！”"]


TEXTS = [
    "我爱自然语言处理。",
    "这部电影很精彩。",
    "１９９７年，中国经济继续发展。",
    "ALBERT模型在2019年发布，比BERT小。",
    "他说：“今天下雨了。”我们就没去。",
    "GPU 和 CPU 都可以训练 albert 模型 hello world！",
    "ＡＰＥＣ会议，ＣＰＵ１２３",
    "",
]


LATIN = ["model", "data", "python", "network", "token", "vision", "learning", "server", "memory", "paper"]


def _sentence(rng: random.Random) -> str:
    """One sentence as words separated by spaces; a quotation now and then; numbers and Latin words."""
    words = f"{rng.choice(SUBJECTS)} {rng.choice(TIMES)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}"
    if rng.random() < 0.5:
        words += f" ， 增长 {rng.randint(1, 999)}% ， 用 {rng.choice(LATIN)}"
    end = rng.choice(ENDS)
    if end.endswith("”"):
        return f"{rng.choice(SUBJECTS)} 说 ： “ {words} {' '.join(end)}"
    return f"{words} {' '.join(end) if end != '……' else end}"


def segmented_text(num_documents: int = 40, seed: int = 0) -> str:
    rng = random.Random(seed)
    documents = []
    for _ in range(num_documents):
        paragraphs = [" ".join(_sentence(rng) for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 4))]
        documents.append("\n".join(paragraphs))
    return "\n\n".join(documents) + "\n"


def plain(segmented: str) -> str:
    return "\n".join(line.replace(" ", "") for line in segmented.split("\n"))
