# ruff: noqa: E501 — Chinese characters count double toward the line length; the strings read better unbroken.
"""Every user-facing string of the app: key → (English, 中文), in one dictionary for `app.i18n.t`.

Kept apart from the code so a teacher can correct a translation without reading Python.
Placeholders in `{braces}` are filled by `app.i18n.t`. The page's and the shared strings are here; each
tab's (and the paper panels' and the framing lines') are in their own `app/strings_*.py`, merged below.
"""

from __future__ import annotations

from app.strings_framing import FRAMING_STRINGS
from app.strings_model_tabs import MODEL_TAB_STRINGS
from app.strings_order import ORDER_STRINGS
from app.strings_paper import PAPER_STRINGS
from app.strings_parameters import PARAMETER_STRINGS

STRINGS: dict[str, tuple[str, str]] = {
    # ----- page -------------------------------------------------------------------------------
    "app.title": ("ALBERT Lab", "ALBERT 实验室"),
    "app.intro": (
        "# ALBERT Lab\nSee what **ALBERT** (*A Lite BERT*, Lan et al. 2019) changes: a **factorized "
        "embedding**, **cross-layer parameter sharing** and **sentence-order prediction**. "
        "Every number here is computed exactly; every model runs on this computer.",
        "# ALBERT 实验室\n看看 **ALBERT**（*A Lite BERT*，Lan 等，2019）改变了什么：**因式分解的词嵌入**、"
        "**跨层参数共享**和**句子顺序预测**。这里的每个数字都是精确计算的，每个模型都在本机运行。",
    ),
    "app.language": ("Language / 语言", "语言 / Language"),
    "app.model": ("Model", "模型"),
    "app.footer": (
        "[Use the API (gradio_client)](?view=api) · built with [Gradio](https://gradio.app) · "
        "ALBERT: Lan et al. 2019, [arXiv:1909.11942](https://arxiv.org/abs/1909.11942)",
        "[调用 API（gradio_client）](?view=api) · 用 [Gradio](https://gradio.app) 构建 · "
        "ALBERT：Lan 等，2019，[arXiv:1909.11942](https://arxiv.org/abs/1909.11942)",
    ),
    "app.model.info": (
        "A shipped model, or type a local checkpoint folder or a Hugging Face hub id (needs internet).",
        "选择随附的模型，或输入本地检查点文件夹、Hugging Face Hub 模型 ID（需要联网）。",
    ),
    "model.err.none_shipped": (
        "No shipped model yet: add a checkpoint folder under assets/models/, or type a local checkpoint "
        "folder or a hub id in the model picker.",
        "还没有随附的模型：请在 assets/models/ 下放入检查点文件夹，或在模型选择框中输入本地检查点文件夹或 Hub 模型 ID。",
    ),
    "model.err.not_dir": (
        "“{value}” is not a model folder; expected a folder holding config.json and "
        "model.safetensors, or a hub id such as albert/albert-base-v2.",
        "“{value}” 不是模型文件夹；需要包含 config.json 和 model.safetensors 的文件夹，"
        "或 albert/albert-base-v2 这样的 Hub 模型 ID。",
    ),
    "model.err.bad_name": (
        "“{value}” is neither a shipped model, a local folder nor a hub id.",
        "“{value}” 既不是随附模型，也不是本地文件夹或 Hub 模型 ID。",
    ),
    "model.err.hub": (
        "Could not download “{value}” from the Hugging Face hub: this computer seems offline or "
        "the id is wrong; use a shipped model or a local checkpoint folder.",
        "无法从 Hugging Face Hub 下载 “{value}”：本机似乎未联网，或模型 ID 有误；请使用随附模型或本地检查点文件夹。",
    ),
    "model.err.load": ("Could not load model “{name}”: {reason}", "无法加载模型 “{name}”：{reason}"),
    "model.err.not_finite": (
        "Model “{name}” has NaN or infinite weights ({n} in {tensor}), so it cannot give a meaningful answer; "
        "pick another model.",
        "模型 “{name}” 的权重中有 NaN 或无穷大的数值（{tensor} 中有 {n} 个），无法给出有意义的答案；请换一个模型。",
    ),
    "model.err.not_finite_output": (
        "Model “{name}” computed NaN or infinite numbers for this text, so there is no answer to show; "
        "try another model or another text.",
        "模型 “{name}” 对这段文字算出了 NaN 或无穷大的数值，因此没有可显示的答案；请换一个模型或换一段文字。",
    ),
    "model.err.tokenizer": (
        "Model “{name}” has no usable tokenizer (expected spiece.model or tokenizer.json in its folder).",
        "模型 “{name}” 没有可用的分词器（文件夹中应有 spiece.model 或 tokenizer.json）。",
    ),
    "model.err.tokenizer_mismatch": (
        "The tokenizer of “{name}” has {n} tokens (and needs a [MASK] token), but the model knows only {V}.",
        "“{name}” 的分词器有 {n} 个词（且需要 [MASK]），但模型只认识 {V} 个。",
    ),
    "model.err.not_pretraining": (
        "“{name}” is not a pretraining model (its config.json names {found}); these tabs "
        "need an AlbertForPreTraining or AlbertForMaskedLM checkpoint.",
        "“{name}” 不是预训练模型（其 config.json 写的是 {found}）；这些标签页需要 "
        "AlbertForPreTraining 或 AlbertForMaskedLM 检查点。",
    ),
    "tab.parameters": ("Parameter calculator", "参数计算器"),
    "tab.sharing": ("Sharing modes", "参数共享方式"),
    "tab.masked": ("Masked words", "遮蔽词预测"),
    "tab.order": ("Sentence order", "句子顺序"),
    "tab.attention": ("Attention", "注意力"),
    "tab.sentiment": ("Sentiment", "情感分类"),
    "common.raw": ("Raw result (JSON)", "原始结果（JSON）"),
    # ----- shared ---------------------------------------------------------------------------
    "common.examples": ("Examples", "示例"),
    # column headers shared by the runs table (app.runs) and the paper panels' tables (app.paper_views)
    "col.sharing": ("sharing", "共享方式"),
    "col.objective": ("sentence task", "句子任务"),
    "col.tokens": ("tokens", "训练词元"),
    "col.parameters": ("parameters", "参数量"),
    "common.err.unexpected": (
        "Something went wrong on our side; the details were logged. Try another input.",
        "程序内部出错，详细信息已记入日志。请换一个输入再试。",
    ),
    "preset.shipped": ("{name} (shipped)", "{name}（随附）"),
    "app.model.none": (
        "No shipped model yet: type a local checkpoint folder or a hub id here.",
        "还没有随附的模型：请在这里输入本地检查点文件夹或 Hub 模型 ID。",
    ),
    "model.line": (
        "Model **{name}**: sharing {sharing}, {L} passes, H {H}, E {E}, V {V}.",
        "模型 **{name}**：共享方式 {sharing}，{L} 次计算，H {H}，E {E}，V {V}。",
    ),
    "model.metrics": (
        " Held-out: masked words {mlm}; prefers the true order {order} (chance 50%).",
        " 留出集：遮蔽词 {mlm}；偏向真实顺序 {order}（随机水平 50%）。",
    ),
    "input.empty": ("The text is empty; type a sentence.", "文本为空，请输入一个句子。"),
    "input.cut_chars": (
        "The text has {n} characters; only the first {limit} were read.",
        "文本有 {n} 个字符，只读取了前 {limit} 个。",
    ),
    "input.control": ("Control characters in the text were replaced by spaces.", "文本中的控制字符已替换为空格。"),
    "input.truncated": (
        "The text is longer than the model's {n} tokens; the rest was cut off.",
        "文本超过模型的 {n} 个词元上限，多出的部分已截断。",
    ),
    # ----- hostile input (issue 18): every endpoint's own checks ------------------------------
    "common.text": ("text", "文本"),
    "input.err.not_text": ("{field} must be text, got {kind}.", "{field} 必须是文本，收到的是 {kind}。"),
    "input.err.name_too_long": (
        "{field} has {n} characters; at most {limit} are read.",
        "{field} 有 {n} 个字符；最多读取 {limit} 个。",
    ),
    "input.err.number": (
        "{field} must be a whole number from {low} to {high}, got “{value}”.",
        "{field} 必须是 {low} 到 {high} 之间的整数，收到的是 “{value}”。",
    ),
    "input.err.whole": (
        "{field} must be a finite whole number from {low} to {high}, got {value}.",
        "{field} 必须是 {low} 到 {high} 之间的有限整数，收到的是 {value}。",
    ),
    "input.err.range": (
        "{field} must be from {low} to {high}, got {value}.",
        "{field} 必须在 {low} 到 {high} 之间，收到的是 {value}。",
    ),
    "input.err.flag": (
        "{field} must be true or false, got “{value}”.",
        "{field} 必须是 true 或 false，收到的是 “{value}”。",
    ),
    "input.err.choice": (
        "{field} must be one of {choices}; got “{value}”.",
        "{field} 必须是以下之一：{choices}；收到的是 “{value}”。",
    ),
    "model.err.not_text": (
        "The model must be given as text: a shipped name, a model folder or a hub id.",
        "模型必须以文本给出：随附模型名、模型文件夹或 Hub 模型 ID。",
    ),
    "model.err.file_too_large": (
        "“{name}”: {file} has {size} bytes, more than this app reads ({limit}).",
        "“{name}”：{file} 有 {size} 字节，超过本应用读取的上限（{limit}）。",
    ),
    "model.err.file_refused": (
        "“{name}”: {file} is not a regular file; this app reads only regular files.",
        "“{name}”：{file} 不是普通文件；本应用只读取普通文件。",
    ),
    "model.err.bad_json": (
        "“{name}”: config.json is not a JSON object this app can read (invalid, not UTF-8, or nested too deeply).",
        "“{name}”：config.json 不是本应用能读取的 JSON 对象（格式无效、不是 UTF-8 或嵌套过深）。",
    ),
    "model.err.bad_weights": (
        "“{name}”: model.safetensors is malformed ({reason}).",
        "“{name}”：model.safetensors 格式有误（{reason}）。",
    ),
    "model.err.too_big": (
        "“{name}” is too large for this app: {field} = {value}, and at most {limit} is "
        "loaded here (limits in the README).",
        "“{name}” 对本应用来说太大：{field} = {value}，这里最多加载 {limit}（上限见 README）。",
    ),
    "model.err.too_many_parameters": (
        "“{name}” would have {n} parameters; this app loads at most {limit}.",
        "“{name}” 会有 {n} 个参数；本应用最多加载 {limit} 个。",
    ),
    "model.err.too_much_work": (
        "“{name}” needs {n} multiply-adds per token; this app runs at most {limit}.",
        "“{name}” 每个词元需要 {n} 次乘加；本应用最多运行 {limit} 次。",
    ),
    "model.err.weights_mismatch": (
        "“{name}”: its config.json implies {expected} parameters, but "
        "model.safetensors holds {found}; the weights do not belong to this config.",
        "“{name}”：config.json 对应 {expected} 个参数，但 model.safetensors 中有 {found} 个；权重与配置不符。",
    ),
    "request.err.timeout": (
        "This request took longer than {s} seconds and was stopped; try a shorter text or a smaller model.",
        "该请求超过 {s} 秒，已停止；请换更短的文本或更小的模型。",
    ),
    "request.err.memory": (
        "This request needed more memory than the server has; try a shorter text or a smaller model.",
        "该请求所需内存超过服务器容量；请换更短的文本或更小的模型。",
    ),
    "calc.err.too_many": (
        "This model would have {n} parameters; the calculator answers up to {limit}.",
        "该模型会有 {n} 个参数；计算器最多计算到 {limit}。",
    ),
    "app.busy": (
        "ALBERT Lab is busy ({n} requests are waiting); try again in a few seconds.",
        "ALBERT 实验室正忙（已有 {n} 个请求在排队）；请几秒后再试。",
    ),
    "api.err.arity": (
        '/{name} takes {n} values in "data", in the order /gradio_api/info lists them; got {got}.',
        '/{name} 需要在 "data" 中按 /gradio_api/info 所列顺序给出 {n} 个值；收到 {got} 个。',
    ),
    # ----- fresh results (issue 17, item 2) -------------------------------------------------------
    "fresh.stale": (
        "The input changed: press **{button}** (or Enter) for the new result.",
        "输入已改变：按 **{button}**（或回车）查看新结果。",
    ),
    # ----- languages: text a model cannot read, the Chinese models --------------------------------
    "lang.err.unreadable": (
        "{name} cannot read this language: {n} of {total} tokens of this text are unknown to it (an unreadable "
        "character counts as one); {hint}",
        "{name} 读不懂这种语言：这段文本的 {total} 个词元中有 {n} 个它不认识（每个无法识别的字符算一个）；{hint}",
    ),
    "lang.hint.pick": ("for {language} pick {model}.", "{language}文本请选择 {model}。"),
    "lang.hint.none": ("no shipped model reads {language} yet.", "目前还没有随附的模型能读{language}。"),
    "lang.hint.same": ("no other shipped model reads it better.", "其他随附的模型也读不好它。"),
    "lang.hint.none_sentiment": (
        "no shipped sentiment model reads {language} yet.",
        "目前还没有随附的情感分类模型能读{language}。",
    ),
    "lang.hint.unknown": ("no shipped model reads this language yet.", "目前还没有随附的模型能读这种语言。"),
    "lang.name.en": ("English", "英文"),
    "lang.name.zh": ("Chinese", "中文"),
    "lang.note.unknown": (
        "{n} of {total} tokens of this text are unknown to the model (an unreadable character counts as one); "
        "it read only the rest.",
        "这段文本的 {total} 个词元中有 {n} 个模型不认识（每个无法识别的字符算一个），它只读了其余部分。",
    ),
    "app.model.auto": ("automatic (by the text's language)", "自动（按文本的语言）"),
    "app.model.info.auto": (
        "Automatic follows the text: mostly Chinese text gets the Chinese model, mostly English text the English "
        "one, anything else the interface language's; or pick a shipped model, a local checkpoint folder or a "
        "Hugging Face hub id (needs internet).",
        "“自动”按文本选择：以汉字为主的文本用中文模型，以英文为主的文本用英文模型，其他文本按界面语言选择；"
        "也可以选择随附的模型，或输入本地检查点文件夹、Hugging Face Hub 模型 ID（需要联网）。",
    ),
}

for _table in (PARAMETER_STRINGS, MODEL_TAB_STRINGS, ORDER_STRINGS, FRAMING_STRINGS, PAPER_STRINGS):
    STRINGS.update(_table)  # tests/app/test_app_logic.py checks that no key is in two tables
