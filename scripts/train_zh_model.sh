#!/usr/bin/env bash
# Pretrains the Chinese ALBERT (albert-lab-zh) with our own pipeline on People's Daily, January 1998.
# Usage: scripts/train_zh_model.sh [SHARED_DIR] [RUNS_DIR]     (resumable: RESUME=--resume, MAX_MINUTES=N)
#
# Protocol (issue 16): a character vocabulary of 8,000 pieces (every Han character one piece) trained on
# the news training text plus the review training text (labels dropped; never the dev reviews); whole-word
# masking from the corpus's own segmentation (the .words twins), scored on held-out articles with single
# characters 100% replaced by [MASK]; the English models' design family (sharing all, E 64 < H 128,
# 6 passes); 128-token sequences so that a pair holds several Chinese sentences; about 20M tokens
# (5,200 steps × 32 × ~120), about 11 passes over the 1.7M-character corpus, with held-out accuracy
# watched for overfitting every 400 steps.
#
# Stage 2 (written before its run, after stage 1 ended at 5,200 steps with held-out MLM 7.9%, SOP 56.2%; train-batch
# MLM 17-19% is not overfitting: it counts the 10% of masked positions left unchanged, and held-out loss fell at
# every evaluation). Stage 1 masked spans of up to 3 whole words (max n-gram 3 with whole-word masking), so it never
# practised the within-word prediction that the held-out score and the app's single-character [MASK] ask for.
# Stage 2 starts from stage 1's weights (--init-from, fresh optimizer and schedule) and masks single characters
# (no whole-word masking, max n-gram 1) for ZH2_STEPS steps (default 3,200, about 12M tokens; 29M in all), same
# learning rate and warm-up, same evaluation. Shipped as albert-lab-zh only if it meets the targets; either
# way its figures are reported. STAGE=N starts at stage N and runs the later ones (each with MAX_MINUTES).
#
# Stage 3 (written before its run, after stage 2 ended; stage 2 left the plateau late: held-out MLM 7.7% at its
# step 1,200, 9.8% at 2,400, 10.8% at 2,800, 11.6% at its end, 3,200; SOP 52.2%: still rising). Same recipe as stage 2,
# from stage 2's weights, on a schedule long enough to span sessions: ZH3_STEPS (default 6,000, about 20M tokens;
# about 50M in all), resumable (RESUME3=--resume).
#
# Shipping rule (written on 2026-12-01 at stage 3's step 2,600, before its end; SOP had stayed at 49-58% through all
# three stages). Held-out MLM decides: if stage 3 ends at MLM >= 30% it ships as albert-lab-zh (the 中文 tabs have no
# model at all until then), and SOP is reported against its 70% target either way: when missed, the card and the
# README say so, the Sentence order tab frames it against chance (as for every model), and issue 16 stays open for a
# stage aimed at sentence order. If MLM < 30%, nothing ships and a stage 4 continues the masked-word recipe.
#
# Stage 4 (written on 2026-12-01 at 18:10, before stage 3's end; stage 3's held-out MLM was 25.1% at its step 3,600,
# 26.2% at 4,400, 26.6% at 4,800, gaining about half a point per 400 steps as its learning rate decays: it is
# expected to end near 28%, under the target). The same recipe from stage 3's weights on a fresh schedule of ZH4_STEPS
# (default 6,000, about 20M tokens; about 70M in all, some 40 passes over the news), at half the peak learning rate
# (5e-4: the model is past its fast phase, and a restart at 1e-3 would first undo part of stage 3's decay), resumable
# (RESUME4=--resume). The shipping rule above applies at its end; if stage 3 itself ends at MLM >= 30%, it ships and
# stage 4 is not run. Held-out accuracy is watched every 400 steps: a fall at two evaluations in a row would be
# overfitting, and the run would stop there.
#
# Stage 5, sentence order (written on 2026-12-02 at 05:25, before any run of it; STAGE=5 runs only it). Every stage
# so far left held-out SOP at chance (49-59%) while MLM rose to 31.2%: in the summed loss the pair head's ~0.69 nats
# sit beside the MLM loss's ~4, so the shared layer is asked little for order. Stage 5 starts from the shipped
# albert-lab-zh (fp16 weights, loaded as fp32) and weights the SOP loss by ZH5_SOP_WEIGHT (default 5,
# --sentence-loss-weight), with stage 4's data, masks and peak lr (5e-4), for ZH5_STEPS (default 1,500, about 25
# minutes on one thread). It is a calibration and ships nothing: it decides whether a weighted stage is worth a long
# run (held-out SOP above 60% at its end with held-out MLM still at or above 30%); its figures are reported either way.
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
