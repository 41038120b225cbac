#!/bin/bash
# one run per cache setting: the loop takes every element, so no single new value fits
CACHE_FLAGS=("False" "True")
for flag in "${CACHE_FLAGS[@]}"; do
    python3 -m verl.trainer.main_ppo \
        actor_rollout_ref.rollout.disable_mm_preprocessor_cache="${flag}" \
        trainer.total_epochs=1
done
