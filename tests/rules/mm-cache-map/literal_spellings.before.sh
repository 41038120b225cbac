#!/usr/bin/env bash
set -x
# every spelling Hydra reads as the same bool, with and without prefixes and quotes
python3 -m verl.trainer.main_ppo \
    data.image_key=images \
    actor_rollout_ref.rollout.disable_mm_preprocessor_cache=True \
    +actor_rollout_ref.rollout.disable_mm_preprocessor_cache=true \
    ++reward_model.rollout.disable_mm_preprocessor_cache="True" \
    critic.rollout.disable_mm_preprocessor_cache=False \
    actor_rollout_ref.ref.rollout.disable_mm_preprocessor_cache='false' \
    trainer.total_epochs=1 "$@"
