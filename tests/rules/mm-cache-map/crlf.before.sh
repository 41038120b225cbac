#!/bin/bash
CACHE_OFF=${CACHE_OFF:-true}
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.disable_mm_preprocessor_cache=$CACHE_OFF \
    reward_model.rollout.disable_mm_preprocessor_cache=False \
    trainer.total_epochs=1
