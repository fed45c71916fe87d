#!/usr/bin/env bash
# Pretrains the Chinese ALBERT (albert-lab-zh) on People's Daily, January 1998, in stages (STAGE=N starts at stage N).
# Usage: scripts/train_zh_model.sh [SHARED_DIR] [RUNS_DIR]     (resumable: RESUME=--resume, MAX_MINUTES=N)
# Protocol: docs/protocols/zh-model.md
set -euo pipefail
shared=${1:-../shared}
runs=${2:-runs/zh}
threads=${THREADS:-1}
mkdir -p "$runs"
stage=${STAGE:-1}
if [ "$stage" -le 1 ] && [ ! -f "$runs/tokenizer/spiece.model" ]; then  # later stages take it from their start
  python -m albert.task_text --source "$shared/glue/zh-reviews/train.tsv" --output "$runs/reviews-train.txt"
  python -m albert.tokenizer --files "$shared/corpus/zh/peoples-daily-199801-train.txt.xz" "$runs/reviews-train.txt" \
    --output-dir "$runs/tokenizer" --vocab-size 8000 --han-characters
fi
if [ "$stage" -le 1 ]; then
python -m albert.pretrain --tokenizer "$runs/tokenizer" --word-segmented --data.whole-word-masking \
  --corpus "$shared/corpus/zh/peoples-daily-199801-train.words.txt.xz" \
  --valid-corpus "$shared/corpus/zh/peoples-daily-199801-valid.words.txt.xz" \
  --cache-dir "$runs/cache" --output-dir "$runs/albert-lab-zh" \
  --model albert-base --model.embedding-size 64 --model.hidden-size 128 --model.num-attention-heads 2 \
  --model.intermediate-size 512 --model.num-hidden-layers 6 --model.max-position-embeddings 128 \
  --data.max-seq-length 128 --batch-size 32 --optim.learning-rate 1e-3 --optim.warmup-fraction 0.03 \
  --max-steps "${ZH_STEPS:-5200}" --eval-every 400 --eval-examples 2048 --checkpoint-every 200 --log-every 10 \
  --threads "$threads" ${MAX_MINUTES:+--max-minutes $MAX_MINUTES} ${RESUME:-}
fi
if [ "$stage" -le 2 ]; then
python -m albert.pretrain --init-from "$runs/albert-lab-zh/final" --word-segmented --no-data.whole-word-masking \
  --data.max-ngram 1 --corpus "$shared/corpus/zh/peoples-daily-199801-train.words.txt.xz" \
  --valid-corpus "$shared/corpus/zh/peoples-daily-199801-valid.words.txt.xz" \
  --cache-dir "$runs/cache" --output-dir "$runs/albert-lab-zh-char" \
  --data.max-seq-length 128 --batch-size 32 --optim.learning-rate 1e-3 --optim.warmup-fraction 0.03 \
  --max-steps "${ZH2_STEPS:-3200}" --eval-every 400 --eval-examples 2048 --checkpoint-every 200 --log-every 10 \
  --threads "$threads" ${MAX_MINUTES:+--max-minutes $MAX_MINUTES} ${RESUME2:-}
fi
if [ "$stage" -le 3 ]; then
python -m albert.pretrain --init-from "$runs/albert-lab-zh-char/final" --word-segmented --no-data.whole-word-masking \
  --data.max-ngram 1 --corpus "$shared/corpus/zh/peoples-daily-199801-train.words.txt.xz" \
  --valid-corpus "$shared/corpus/zh/peoples-daily-199801-valid.words.txt.xz" \
  --cache-dir "$runs/cache" --output-dir "$runs/albert-lab-zh-char3" \
  --data.max-seq-length 128 --batch-size 32 --optim.learning-rate 1e-3 --optim.warmup-fraction 0.03 \
  --max-steps "${ZH3_STEPS:-6000}" --eval-every 400 --eval-examples 2048 --checkpoint-every 200 --log-every 10 \
  --threads "$threads" ${MAX_MINUTES:+--max-minutes $MAX_MINUTES} ${RESUME3:-}
fi
if [ "$stage" -le 4 ]; then
python -m albert.pretrain --init-from "$runs/albert-lab-zh-char3/final" --word-segmented --no-data.whole-word-masking \
  --data.max-ngram 1 --corpus "$shared/corpus/zh/peoples-daily-199801-train.words.txt.xz" \
  --valid-corpus "$shared/corpus/zh/peoples-daily-199801-valid.words.txt.xz" \
  --cache-dir "$runs/cache" --output-dir "$runs/albert-lab-zh-char4" \
  --data.max-seq-length 128 --batch-size 32 --optim.learning-rate 5e-4 --optim.warmup-fraction 0.03 \
  --max-steps "${ZH4_STEPS:-6000}" --eval-every 400 --eval-examples 2048 --checkpoint-every 200 --log-every 10 \
  --threads "$threads" ${MAX_MINUTES:+--max-minutes $MAX_MINUTES} ${RESUME4:-}
fi
if [ "$stage" -eq 5 ]; then  # only on request: a calibration, not a stage of the shipped model's recipe
python -m albert.pretrain --init-from "${ZH5_FROM:-assets/models/albert-lab-zh}" --word-segmented \
  --no-data.whole-word-masking --data.max-ngram 1 --corpus "$shared/corpus/zh/peoples-daily-199801-train.words.txt.xz" \
  --valid-corpus "$shared/corpus/zh/peoples-daily-199801-valid.words.txt.xz" \
  --cache-dir "$runs/cache" --output-dir "$runs/albert-lab-zh-sop${ZH5_SOP_WEIGHT:-5}" \
  --data.max-seq-length 128 --batch-size 32 --optim.learning-rate 5e-4 --optim.warmup-fraction 0.03 \
  --sentence-loss-weight "${ZH5_SOP_WEIGHT:-5}" --max-steps "${ZH5_STEPS:-1500}" --eval-every 250 \
  --eval-examples 2048 --checkpoint-every 250 --log-every 10 \
  --threads "$threads" ${MAX_MINUTES:+--max-minutes $MAX_MINUTES} ${RESUME5:-}
fi
