#!/usr/bin/env bash
# one launch meets every step of the migration
set -euo pipefail

PENALTY_LEN=${PENALTY_LEN:-2048}

python3 -m lab.legacy.train \
    scorer.length_penalty.enable=True \
    scorer.length_penalty.max_len=${PENALTY_LEN} \
    scorer.manager=batched \
    model.optim.warmup=cosine \
    model.sampler.kind=greedy_async \
    data.eval_batch=16 \
    runner.accelerator=npu \
    runner.epochs=3 "$@"

# a launch on another accelerator keeps it
python3 -m lab.core.train runner.accelerator=cuda data.train_batch=8
