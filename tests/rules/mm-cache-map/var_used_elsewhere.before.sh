#!/bin/bash
FLAG=True
echo "disabling the preprocessor cache: $FLAG"

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.disable_mm_preprocessor_cache=$FLAG \
    actor_rollout_ref.rollout.enforce_eager=${FLAG} \
    trainer.total_epochs=1
