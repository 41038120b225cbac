#!/usr/bin/env bash
set -x
# every spelling Hydra reads as the same bool, with and without prefixes and quotes
python3 -m verl.trainer.main_ppo \
    data.image_key=images \
    actor_rollout_ref.rollout.mm_processor_cache_gb=0 \
    +actor_rollout_ref.rollout.mm_processor_cache_gb=0 \
    ++reward_model.rollout.mm_processor_cache_gb="0" \
    critic.rollout.mm_processor_cache_gb=4 \
    actor_rollout_ref.ref.rollout.mm_processor_cache_gb='4' \
    trainer.total_epochs=1 "$@"
