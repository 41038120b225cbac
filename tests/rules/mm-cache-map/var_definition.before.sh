#!/bin/bash
NO_MM_CACHE=True
export KEEP_CACHE=${KEEP_CACHE:-False}
TP=2

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.tensor_model_parallel_size=$TP \
    actor_rollout_ref.rollout.disable_mm_preprocessor_cache=$NO_MM_CACHE \
    reward_model.rollout.disable_mm_preprocessor_cache=${KEEP_CACHE} \
    trainer.total_epochs=1
