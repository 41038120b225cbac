#!/bin/bash
# CRLF file: the first and the last override both go
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True \
    data.train_batch_size=64 \
    actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=False "$@"
echo ok
