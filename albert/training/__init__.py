"""Training, above the model and the data pipeline: what `albert.pretrain` and `albert.finetune` share.

- `loop`: the one training loop (`fit`) and the run config every command starts from (`RunConfig`)
- `optim`: AdamW / LAMB and the warm-up-then-decay schedule
- `distributed`: one process or a torchrun group, bf16 autocast, unwrapping DDP / compile
- `state`: atomic, verified, resumable checkpoints and the metrics log
- `layerwise`: layer-wise learning-rate decay and gradual unfreezing (fine-tuning)
- `pretraining`: the pretraining run's resumable batch stream and its held-out MLM / sentence-pair scores
- `evaluate`: fine-tuning metrics, dev evaluation, the INT8 quantization report
"""
