#!/usr/bin/env bash
# Trains the Chinese sharing pair albert-lab-zh-all / albert-lab-zh-none side by side (one thread each).
# Protocol: docs/protocols/zh-sharing-pair.md. Usage: scripts/train_zh_sharing_pair.sh [SHARED_DIR] [RUNS_DIR]
# Resumable: RESUME=--resume; STOP_AFTER=N stops both at step N on the planned schedule.
set -euo pipefail
shared=${1:-../shared}
runs=${2:-runs/zh-pair}
mkdir -p "$runs"
for sharing in all none; do
  python -m albert.pretrain --tokenizer assets/models/albert-lab-zh --word-segmented --no-data.whole-word-masking \
    --data.max-ngram 1 --corpus "$shared/corpus/zh/peoples-daily-199801-train.words.txt.xz" \
    --valid-corpus "$shared/corpus/zh/peoples-daily-199801-valid.words.txt.xz" \
    --cache-dir "$runs/cache-$sharing" --output-dir "$runs/albert-lab-zh-$sharing" \
    --model albert-base --model.sharing "$sharing" --model.embedding-size 64 --model.hidden-size 128 \
    --model.num-attention-heads 2 --model.intermediate-size 512 --model.num-hidden-layers 6 \
    --model.max-position-embeddings 128 --data.max-seq-length 128 --batch-size 32 --optim.learning-rate 1e-3 \
    --optim.warmup-fraction 0.03 --max-steps "${STEPS:-9000}" --eval-every 400 --eval-examples 2048 \
    --checkpoint-every 200 --log-every 10 --seed 0 --threads 1 --max-minutes "${MAX_MINUTES:-120}" ${STOP_AFTER:+--stop-after-steps $STOP_AFTER} ${RESUME:-} \
    > "$runs/albert-lab-zh-$sharing.log" 2>&1 &
done
wait
