#!/usr/bin/env bash
# Can a small model learn sentence order where the text gives it structure? (issue 30, item 5)
# Usage: scripts/sop_structure_experiment.sh [SHARED_DIR] [RUNS_DIR]      (STEP=train|score|all|ship, default all)
#
# Protocol (written on 2026-12-03 at 18:30, before any run of it; committed before the training starts).
#
# Hypothesis. Every shipped model is at chance on sentence order measured honestly (centre-out pairs of whole
# sentences, both orders asked). News and books give a 1M-parameter model little to go on. Shopping and book reviews
# are short whole documents with a conventional arc (what was bought or read, what it was like, a verdict or a
# recommendation), so albert-lab-zh continued with SOP on the training reviews may prefer the true order of two
# consecutive runs of sentences of reviews it never saw, above chance. Whether anything carries over to news is a
# second question. A third: if it is above chance, is it reading where a single segment belongs (openers such as
# 刚收到, closers such as 总之 or 推荐: real reading, but not discourse) or how A and B relate? The bag-of-words
# baseline below answers the first half of that.
#
# Data. Training: zh-reviews train.tsv as text (`albert.task_text`: labels dropped, each distinct review one
# document of one paragraph), a seeded 5% (seed 0) kept out of training for the run's own held-out evaluation, which
# is watched only (never used to choose anything). Scoring: zh-reviews dev.tsv, never trained on, as text the same
# way, read by the committed reader `albert.data.sentence_order.sentence_documents` (sentences by
# `albert.data.sentences`; only reviews of >= 2 sentences; a review whose text does not end in sentence-final
# punctuation is left out by its headline rule, which also removes a text-free cue: an unpunctuated end is always
# last). Counted before any scoring: 640 dev reviews qualify, giving 708 pairs. News: People's Daily January 1998
# held-out articles (peoples-daily-199801-valid.txt.xz), the same reader, at most 1,000 pairs.
#
# Measure. `order_pairs` (centre-out, whole consecutive sentences, A and B each within half of 125 tokens of the
# scored model's tokenizer, seed 0, every pair the dev text gives), scored by
# `albert.training.sentence_order.score_text_pairs` at 125 tokens: each pair asked in both orders, "prefers the true
# order" (P(A→B in order) > P(B→A in order), a tie counts half) with a Wilson 95% interval and n; the topic check
# (prefers the real B over another review's) reported beside it. `scripts/score_order_experiment.py` writes the JSON.
# A diagnostic, not deciding: the dev pairs of every >= 2-sentence review, unpunctuated ends included (about 869), to
# show whether the headline rule's cue is real (text-free baseline with an "ends in sentence-final punctuation" feature).
#
# Baselines on the same dev pairs (trained on the train-review pairs built the same way, each in both orders):
# - text-free: a decision tree (depth 6, >= 20 per leaf, as tests/test_sentence_order.py) on segment lengths in
#   tokens and characters, sentence-end counts, opening/closing quotes, final ！ ？ ； and whether a segment ends in
#   sentence-final punctuation, and the two length differences. Expected at 50% ± 2: it checks the pairs.
# - bag of words: a logistic regression on binary character 1-2-grams of A and of B in separate feature spaces.
#   Above 50% (interval), the genre carries order cues in single segments; the model is then compared with it.
#
# Arms.
# (a) albert-lab-zh as shipped (67.7M news tokens; no training here), scored on the dev review pairs and the news pairs.
# (b) albert-lab-zh continued on the training reviews (task-adaptive, as scripts/train_zh_sentiment.sh stage 2, which
#     reported 65.2% by the old length-leaky rule): single-character MLM (--data.max-ngram 1, no whole-word masking)
#     plus SOP weighted 5 times (--sentence-loss-weight 5: the question is order, and on news the weighted stage 5
#     kept MLM at 30.8% against 31.2%), 128 tokens, batch 32, peak lr 5e-4, 3% warm-up, linear decay to zero at
#     4,000 steps (about 10 passes over the reviews; about 35 minutes at the 2 steps/s one thread gives beside
#     another training), --max-minutes 40 as a cap (if it stops early, the figures say so), seed 0, one thread,
#     held-out evaluation every 500 steps on the 5% slice. The final weights are scored (no checkpoint is chosen),
#     on the dev review pairs and on the news pairs (transfer).
#
# Budget: one training run of at most 40 minutes on one thread; scoring and baselines take minutes.
#
# Decision rule. A model is shipped to the app only if the lower bound of its honest interval on text it never saw is
# above 50%, and its card names the genre (reviews) and gives the news figure and both baselines. Arm (b) passes if
# its dev-review lower bound is above 50%: it is then saved as assets/models/albert-lab-zh-sop-reviews (fp16, as the
# other shipped models), re-scored on the shipped file, with a card and metrics.json. If the bag of words' interval is
# above 50% too, the card says so and compares: a model at or below the bag of words shows no more than
# single-segment position reading; one whose interval lies above it reads more. Otherwise nothing ships, and the
# result is reported as measured. Arm (a) is already shipped; its figures are reported only.
#
# Addendum (written on 2026-12-03 at 18:40, after the baselines ran and before any model was scored; arm (b) was at
# its step ~400 of 4,000, its held-out figures unread). The text-free tree was expected at 50% ± 2 and scored 58.0%
# [54.3, 61.6] on the 708 dev pairs (bag of words 62.7% [59.1, 66.2]). The pairs are built cue-free (the construction
# is its own mirror image), but reviews are not position-free: their first parts run longer and hold fewer sentences
# (train pairs: A 33.6 tokens against B 31.0; A longer in 54% of pairs), and their last sentences end in ！ more often
# (18% against 13%): lengths and sentence counts alone give 56.5%. So on reviews 50% is not what a reader of nothing
# gets, and "above 50%" would not show reading. Added, deciding beside the rule above: a model's per-pair outcome
# (1, 0, a tie 0.5) minus the text-free tree's on the same dev pairs, mean with a 95% interval (normal, paired);
# arm (b) ships only if its lower bound on dev reviews is above 50% (as written) AND this difference's interval is
# above 0 (it orders reviews better than lengths and punctuation do). The same paired difference against the bag of
# words says whether it reads more than single-segment position words (the card's wording, as written above). Also
# reported, not deciding: each model's rate on the pairs the tree gets right and on those it gets wrong.
set -euo pipefail
shared=${1:-../shared}
runs=${2:-runs/sop-structure}
step=${STEP:-all}
reviews="$shared/glue/zh-reviews"
news="$shared/corpus/zh/peoples-daily-199801-valid.txt.xz"
mkdir -p "$runs"
[ -f "$runs/reviews-train.txt" ] || python -m albert.task_text --source "$reviews/train.tsv" \
  --output "$runs/reviews-train.txt" --heldout "$runs/reviews-train-heldout.txt" --heldout-fraction 0.05 --seed 0
[ -f "$runs/reviews-dev.txt" ] || python -m albert.task_text --source "$reviews/dev.tsv" --output "$runs/reviews-dev.txt"
if [ "$step" = train ] || [ "$step" = all ]; then
  python -m albert.pretrain --init-from assets/models/albert-lab-zh --no-data.whole-word-masking --data.max-ngram 1 \
    --corpus "$runs/reviews-train.txt" --valid-corpus "$runs/reviews-train-heldout.txt" \
    --cache-dir "$runs/cache" --output-dir "$runs/albert-lab-zh-sop-reviews" \
    --data.max-seq-length 128 --batch-size 32 --optim.learning-rate 5e-4 --optim.warmup-fraction 0.03 \
    --sentence-loss-weight 5 --max-steps 4000 --eval-every 500 --eval-examples 1024 --checkpoint-every 500 \
    --log-every 10 --seed 0 --threads 1 --max-minutes 40 ${RESUME:-}
fi
# The run stopped at its time cap (3,029 of 4,000 steps) without writing final/: its weights are checkpoint/'s.
trained="$runs/albert-lab-zh-sop-reviews/final"
[ -d "$trained" ] || trained="$runs/albert-lab-zh-sop-reviews/checkpoint"
if [ "$step" = score ] || [ "$step" = all ]; then
  python -m scripts.score_order_experiment baselines --train "$runs/reviews-train.txt" --dev "$runs/reviews-dev.txt" \
    --tokenizer assets/models/albert-lab-zh --output "$runs/baselines.json"
  for arm in "shipped assets/models/albert-lab-zh" "reviews-sop $trained"; do
    read -r name model <<< "$arm"
    python -m scripts.score_order_experiment model --model "$model" --corpus "reviews-dev=$runs/reviews-dev.txt" \
      --corpus "news-valid=$news" --pairs 1000 --output "$runs/score-$name.json"
    python -m scripts.score_order_experiment compare --scores "$runs/score-$name.json" \
      --baselines "$runs/baselines.json" --output "$runs/compare-$name.json"
  done
fi
# Shipping (only because arm (b) met both rules): fp16 folder and card, then the deciding figures again on that file
# (they went into its card's "reviews only" section and metrics.json's structure_experiment by hand).
if [ "$step" = ship ]; then
  python -m scripts.package_model "$runs/albert-lab-zh-sop-reviews" albert-lab-zh-sop-reviews \
    --valid "$runs/reviews-train-heldout.txt" --language zh
  shipped=assets/models/albert-lab-zh-sop-reviews
  python -m scripts.score_order_experiment model --model "$shipped" --corpus "reviews-dev=$runs/reviews-dev.txt" \
    --corpus "news-valid=$news" --pairs 1000 --output "$runs/score-shipped-reviews-sop.json"
  python -m scripts.score_order_experiment compare --scores "$runs/score-shipped-reviews-sop.json" \
    --baselines "$runs/baselines.json" --output "$runs/compare-shipped-reviews-sop.json"
fi
