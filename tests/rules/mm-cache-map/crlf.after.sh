#!/bin/bash
CACHE_OFF=${CACHE_OFF:-0}
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.mm_processor_cache_gb=$CACHE_OFF \
    reward_model.rollout.mm_processor_cache_gb=4 \
    trainer.total_epochs=1
