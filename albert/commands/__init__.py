"""The commands, the top layer: each is a config dataclass (its flags) and a `main`. Run them by their short names,
`python -m albert.pretrain`, `albert.finetune`, `albert.tokenizer`, `albert.task_text` (the modules of those names
call `main`), or as `python -m albert.commands.NAME`.

- `pretrain`: pretrain ALBERT (MLM + SOP or NSP) on plain text, one process or a torchrun group
- `finetune`: fine-tune for classification, regression or tagging; evaluate; quantize
- `tokenizer`: train a SentencePiece tokenizer (the code is `albert.data.tokenizer`'s)
- `task_text`: a task file's text (labels dropped) as a pretraining corpus
"""
