"""Training, above the model core and the data pipeline: what `albert.commands.pretrain` and `finetune` share.

- `distributed`: one process or a torchrun group, bf16 autocast, unwrapping DDP / compile
- `optim`: AdamW / LAMB and the warm-up-then-decay schedule
- `state`: atomic, verified, resumable checkpoints and the metrics log
- `loop`: the one training loop (`fit`) and the run config every command starts from (`RunConfig`)
- `shared_noise`: `--shared-noise-std`, fresh Gaussian noise in the shared weights at every training pass
- `layerwise`: layer-wise learning-rate decay and gradual unfreezing (fine-tuning)
- `finetune_evaluation`: fine-tuning metrics, dev evaluation, the INT8 quantization report
- `order_scoring`: sentence order asked in both orders, "prefers the true order" with a Wilson interval
- `batch_stream`: the pretraining run's seeded, resumable global batches, split across processes
- `pretraining_evaluation`: held-out MLM during a run, and re-scoring a saved model (MLM, order, topic) against
  its card
"""
