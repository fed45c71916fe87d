"""The data pipeline, above the model core and below training (it never imports training or the commands).

- `chinese`: Han-text rules shared by the splitter, the tokenizer and whole-word masking
- `sentences`: the one sentence-splitting rule (English and Chinese) the corpus cuts paragraphs with
- `masking`: special-token ids and n-gram / whole-word masking (BERT's 80/10/10)
- `corpus`: reading text (files or `hf:` datasets) and the tokenized memory-mapped cache
- `tokenizer`: training and loading the SentencePiece tokenizer (`python -m albert.tokenizer` is its command)
- `pretraining_examples`: SOP/NSP examples cut lazily from a tokenized corpus, collation, held-out batches
- `sentence_order`: centre-out order pairs of whole sentences, the one rule every order measurement builds on
- `tasks`: labelled task files (TSV, CSV, JSONL, CoNLL, `hf:` datasets) → records → encoded examples
- `labels`: one check of a task's labels (one kind, no NaN, no stray class) and the task it implies
"""
