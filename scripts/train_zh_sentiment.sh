#!/usr/bin/env bash
# Fine-tunes albert-lab-zh on zh-reviews and ships albert-lab-zh-sentiment with its card (STAGE=1|2|3).
# Usage: scripts/train_zh_sentiment.sh [SHARED_DIR] [RUNS_DIR]        (MODEL=... another pretrained start)
# Protocol: docs/protocols/zh-sentiment.md
set -euo pipefail
shared=${1:-../shared}
runs=${2:-runs/zh}
model=${MODEL:-assets/models/albert-lab-zh}
reviews="$shared/glue/zh-reviews"
budget=(--glue-dir "$reviews" --max-train-examples 0 --max-seq-length 128 --epochs 3
        --batch-size 32 --learning-rate 2e-4 --eval-every 0 --threads 1 --seed 0)
mkdir -p "$runs"
if [ "${STAGE:-1}" = 2 ]; then
  python -m albert.task_text --source "$reviews/train.tsv" --output "$runs/reviews-tapt.txt" \
    --heldout "$runs/reviews-tapt-heldout.txt" --heldout-fraction 0.05 --seed 0
  python -m albert.pretrain --init-from "$model" --corpus "$runs/reviews-tapt.txt" \
    --valid-corpus "$runs/reviews-tapt-heldout.txt" --cache-dir "$runs/cache" --output-dir "$runs/albert-lab-zh-tapt" \
    --data.max-ngram 1 --data.max-seq-length 128 --batch-size 32 --optim.learning-rate 5e-4 \
    --optim.warmup-fraction 0.03 --max-steps "${TAPT_STEPS:-1500}" --eval-every 500 --eval-examples 1024 \
    --checkpoint-every 250 --log-every 10 --threads 1 ${MAX_MINUTES:+--max-minutes $MAX_MINUTES} ${RESUME:-}
  python -m scripts.finetune_sentiment --model "$runs/albert-lab-zh-tapt/final" "${budget[@]}" --output-dir "$runs/sentiment-tapt" \
    --skip-scratch
  python -m scripts.ship_sentiment_model "$runs/sentiment-tapt" assets/sentiment/albert-lab-zh-sentiment \
    --task zh-reviews --scratch-runs "$runs/sentiment-scratch" --control-runs "$runs/sentiment" \
    --ngram-baseline "$runs/ngram_baseline.json"
  exit 0
fi
if [ "${STAGE:-1}" = 3 ]; then
  holdout="$runs/holdout"
  [ -f "$holdout/dev.tsv" ] || python -m experiments.sst2_holdout --source "$reviews/train.tsv" --output-dir "$holdout" \
    --sentences 1386 --min-words 1
  search=(--model "$model" --glue-dir "$holdout" --max-train-examples 0 --max-seq-length 128 --batch-size 32
          --eval-every 0 --threads 1 --seed 0 --skip-scratch --latency-rounds 1)
  pids=()
  for lr in 2e-4 5e-4; do
    [ -f "$runs/schedule-lr$lr/sst2_results.json" ] && continue
    python -m scripts.finetune_sentiment "${search[@]}" --epochs 6 --learning-rate "$lr" --output-dir "$runs/schedule-lr$lr" \
      > "$runs/schedule-lr$lr.log" 2>&1 & pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  read -r lr epochs <<< "$(python -m experiments.schedule_choice "$runs/schedule-lr2e-4" "$runs/schedule-lr5e-4")"
  # The final run and, beside it on the same budget, the same architecture from random weights (one thread each).
  final=(--model "$model" --glue-dir "$reviews" --max-train-examples 0 --max-seq-length 128 --batch-size 32
         --eval-every 0 --threads 1 --seed 0 --epochs "$epochs" --learning-rate "$lr")
  pids=()
  for arm in "sentiment-long --skip-scratch" "sentiment-long-scratch --skip-pretrained"; do
    read -r name skip <<< "$arm"
    [ -f "$runs/$name/sst2_results.json" ] && continue
    python -m scripts.finetune_sentiment "${final[@]}" "$skip" --output-dir "$runs/$name" > "$runs/$name.log" 2>&1 & pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  [ -f "$runs/ngram_baseline.json" ] || python -m experiments.ngram_baseline "$reviews" --output "$runs/ngram_baseline.json"
  python -m scripts.ship_sentiment_model "$runs/sentiment-long" assets/sentiment/albert-lab-zh-sentiment \
    --task zh-reviews --scratch-runs "$runs/sentiment-long-scratch" --ngram-baseline "$runs/ngram_baseline.json" \
    --schedule-choice "$runs/schedule_choice.json" --only-if-better
  exit 0
fi
budget=(--model "$model" "${budget[@]}")
pids=()
python -m experiments.ngram_baseline "$reviews" --output "$runs/ngram_baseline.json" & pids+=($!)
python -m scripts.finetune_sentiment "${budget[@]}" --output-dir "$runs/sentiment" --skip-scratch & pids+=($!)
python -m scripts.finetune_sentiment "${budget[@]}" --output-dir "$runs/sentiment-scratch" --skip-pretrained & pids+=($!)
for pid in "${pids[@]}"; do wait "$pid"; done  # set -e: stops here if any of the three failed
python -m scripts.ship_sentiment_model "$runs/sentiment" assets/sentiment/albert-lab-zh-sentiment --task zh-reviews \
  --scratch-runs "$runs/sentiment-scratch" --ngram-baseline "$runs/ngram_baseline.json"
