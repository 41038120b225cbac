#!/bin/bash
NO_MM_CACHE=0
export KEEP_CACHE=${KEEP_CACHE:-4}
TP=2

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.tensor_model_parallel_size=$TP \
    actor_rollout_ref.rollout.mm_processor_cache_gb=$NO_MM_CACHE \
    reward_model.rollout.mm_processor_cache_gb=${KEEP_CACHE} \
    trainer.total_epochs=1
