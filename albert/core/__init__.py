"""The model core, above the foundation and below everything else (it never imports data, training or commands).

- `config`: `AlbertConfig` (one dataclass, validated) and the paper's `PRESETS`
- `params`: exact parameter counts from the formulas (`count_parameters`), and the paper's tables
- `compute`: FLOPs and memory from the formulas, and measured forward times
- `hf`: the one mapping between our names and transformers' (config keys and weight names)
- `checkpoint`: saving and loading a Hugging Face layout (`save_pretrained` / `from_pretrained`), hub ids
- `model`: `AlbertModel`, the encoder: factorized embeddings and the shared layers
- `heads`: the pretraining, masked-LM, sequence- and token-classification models on top of it
- `quantize`: dynamic INT8 quantization of a model's linear layers
"""
