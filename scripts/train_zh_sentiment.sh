#!/usr/bin/env bash
# Fine-tunes albert-lab-zh on zh-reviews and ships albert-lab-zh-sentiment with its card (issue 16).
# Usage: scripts/train_zh_sentiment.sh [SHARED_DIR] [RUNS_DIR]        (MODEL=... another pretrained start)
#
# Protocol: all 13,853 training reviews, 3 epochs, 128 tokens (the model's positions; 18% of reviews are
# longer and are cut), batch 32, peak learning rate 2e-4 with 10% warm-up, seed 0, the best epoch by dev
# accuracy (as albert-lab-sst2). Beside it, with the same budget: the same architecture from random weights
# (--skip-pretrained) and a TF-IDF character 1-3-gram logistic regression (experiments.ngram_baseline). The three
# run side by side, one CPU thread each; then scripts.ship_sentiment_model re-scores the shipped fp16 file,
# measures INT8, and writes the card with the verdict against the targets (>= 88%, above both baselines).
#
# Stage 2 (written on 2026-12-01 at 21:20, while stage 1 ran: after its first epoch the pretrained arm was at 81.6% dev
# and from scratch at 75.9%, so 88% looked out of reach). If stage 1's best epoch is under 88%, the model first
# learns the reviews' own text: task-adaptive pretraining (Gururangan et al., 2020) of albert-lab-zh on the training
# reviews (labels dropped; a seeded 5% held out for its evaluation; dev never seen), the same single-character MLM +
# SOP recipe as its stage 4 (128 tokens, batch 32, peak lr 5e-4, 3% warm-up) for TAPT_STEPS steps (default 1,500,
# about 5M tokens, some 5 passes over the reviews). Then the same fine-tuning budget as stage 1 from those weights;
# stage 1's fine-tuned albert-lab-zh is its control, and the scratch and n-gram baselines stay as measured. The
# better of the two fine-tuned models by dev accuracy ships, with both figures in its card. STAGE=2 runs only this.
#
# Stage 3 (written on 2026-12-02 at 13:12, before any of its runs; not run yet). Stage 1's best dev step was its last
# (1,299 of 1,299), so the budget, not the model, may be what stops it. The schedule is chosen on 1,386 reviews held
# out of train.tsv (experiments.sst2_holdout, seeded; dev is never read to choose): albert-lab-zh fine-tuned on the
# other 12,467 at peak lr 2e-4 and 5e-4, 6 epochs each (everything else as stage 1), side by side, one thread each
# (about 60 minutes). The arm with the higher held-out accuracy at its best epoch wins (a tie: the lower rate), and
# its epoch count is kept if its best epoch is the 4th or later, else 3 epochs at that rate. Then one final run at
# the chosen rate and epochs on all 13,853 training reviews, scored once on dev; it ships in place of stage 1's model
# only if its dev accuracy is higher than 83.60%, with both figures in its card. STAGE=3 runs it (resumable per run:
# a finished run is skipped). Wired in on 2026-12-03 while the search ran, before any final result: the final run
# and its from-scratch arm on the same schedule run side by side (one thread each), the n-gram baseline is measured
# again (the from-scratch arm and the baseline are the card's comparisons), and scripts.ship_sentiment_model
# --only-if-better replaces the shipped model only when the new dev accuracy is higher (else it keeps it).
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
