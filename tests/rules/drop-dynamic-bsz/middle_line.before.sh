#!/usr/bin/env bash
set -x
DYN=True
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.use_dynamic_bsz=True \
    actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True \
    +actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=$DYN \
    actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=16384 \
    trainer.total_epochs=1
