#!/usr/bin/env bash
# The runs of docs/protocols/finetuning-practices.md (issue 34), two at a time, one CPU thread each.
#   STAGES="1 2 3 4 5" bash scripts/finetuning_practices.sh      (default: all stages, in order)
# Then: python -m scripts.finetuning_report runs/fp  (INT8, latency, Wilson intervals → assets/finetuning/deploy.json)
set -euo pipefail
shared=${SHARED:-../shared}
glue=$shared/glue
runs=${RUNS:-runs/fp}
tags=${TAGS:-runs/tagging}
en=assets/models/albert-lab-none-s1
zh=assets/models/albert-lab-zh
mkdir -p "$runs"
common=(--epochs 1 --batch-size 32 --threads 1 --seed 0 --log-every 20)
sst2=(--model $en --train-file $glue/SST-2/train.tsv --dev-file $glue/SST-2/dev.tsv --max-train-examples 10240
      --max-seq-length 64 --label-names negative positive "${common[@]}")
reviews=(--model $zh --train-file $glue/zh-reviews/train.tsv --dev-file $glue/zh-reviews/dev.tsv
         --max-train-examples 6400 --max-seq-length 128 --label-names negative positive "${common[@]}")

go() {  # go NAME ARGS...: one run in the background, its log beside it
  local name=$1
  shift
  python -m albert.finetune --output-dir "$runs/$name" "$@" > "$runs/$name.log" 2>&1 &
}

for stage in ${STAGES:-1 2 3 4 5}; do
  case $stage in
    1)  # full fine-tuning (arm 1) and the tagging data
      go sst2-full "${sst2[@]}" --optim.learning-rate 2e-4
      go zh-full "${reviews[@]}" --optim.learning-rate 2e-4
      python -m scripts.build_tagging_data --corpus "$shared/corpus" --out "$tags" ;;
    2)  # LoRA (arm 2): English rank 4; Chinese shared rank 6 against per-pass rank 1 (the same trainable count)
      go sst2-lora "${sst2[@]}" --optim.learning-rate 1e-3 --adapter lora --lora-rank 4
      wait
      go zh-lora-shared "${reviews[@]}" --optim.learning-rate 1e-3 --adapter lora --lora-rank 6
      go zh-lora-perpass "${reviews[@]}" --optim.learning-rate 1e-3 --adapter lora --lora-rank 1 --lora-per-pass ;;
    3)  # English single-task truecasing; SST-2 distillation (arm 4)
      go casing-single --model $en --train-file "$tags/casing-train.conll" --dev-file "$tags/casing-dev.conll" \
        --max-seq-length 64 "${common[@]}" --optim.learning-rate 2e-4
      go sst2-distill "${sst2[@]}" --optim.learning-rate 2e-4 --teacher "$runs/sst2-full/best" --student-passes 3 \
        --distill-temperature 2 --distill-alpha 0.5 ;;
    4)  # multi-task English (arm 3); single-task Chinese segmentation
      go en-multitask --model $en --multitask "sst2=$glue/SST-2/train.tsv,$glue/SST-2/dev.tsv" \
        "casing=$tags/casing-train.conll,$tags/casing-dev.conll" --max-train-examples 10240 --max-seq-length 64 \
        "${common[@]}" --optim.learning-rate 2e-4
      go cws-single --model $zh --train-file "$tags/cws-train.conll" --dev-file "$tags/cws-dev.conll" \
        --max-seq-length 128 "${common[@]}" --optim.learning-rate 2e-4 ;;
    5)  # multi-task Chinese; zh-reviews distillation
      go zh-multitask --model $zh --multitask "reviews=$glue/zh-reviews/train.tsv,$glue/zh-reviews/dev.tsv" \
        "cws=$tags/cws-train.conll,$tags/cws-dev.conll" --max-train-examples 6400 --max-seq-length 128 \
        "${common[@]}" --optim.learning-rate 2e-4
      go zh-distill "${reviews[@]}" --optim.learning-rate 2e-4 --teacher "$runs/zh-full/best" --student-passes 3 \
        --distill-temperature 2 --distill-alpha 0.5 ;;
  esac
  wait
done
