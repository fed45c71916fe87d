"""The data pipeline, below training and beside the model (it never imports either).

- `corpus`: reading text (files or `hf:` datasets) and the tokenized memory-mapped cache
- `sentences`: the one sentence-splitting rule (English and Chinese) the corpus cuts paragraphs with
- `chinese`: Han-text rules shared by the splitter, the tokenizer and whole-word masking
- `masking`: special-token ids and n-gram / whole-word masking (BERT's 80/10/10)
- `pretraining`: SOP/NSP examples cut lazily from a tokenized corpus, collation, held-out batches
- `tasks`: labelled task files (TSV, CSV, JSONL, CoNLL, `hf:` datasets) → records → encoded examples
- `labels`: one check of a task's labels (one kind, no NaN, no stray class) and the task it implies
"""
