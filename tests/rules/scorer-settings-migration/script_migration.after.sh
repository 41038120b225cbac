#!/usr/bin/env bash
# one launch meets every step of the migration
set -euo pipefail

PENALTY_LEN=${PENALTY_LEN:-2048}

python3 -m lab.core.train \
    score.scorer_kwargs.length_penalty_cfg.enable=True \
    score.scorer_kwargs.length_penalty_cfg.max_len=${PENALTY_LEN} \
    score.manager.name=batched \
    model.optim.schedule=cosine \
    model.sampler.kind=greedy \
    runner.epochs=3 \
    +runner.seed=7 "$@"

# a launch on another accelerator keeps it
python3 -m lab.core.train runner.accelerator=cuda data.train_batch=8
