#!/bin/bash
# usage: bash caller_value.same.sh <disable cache>
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.disable_mm_preprocessor_cache=$1 \
    reward_model.rollout.disable_mm_preprocessor_cache=${NEVER_SET} \
    trainer.total_epochs=1
