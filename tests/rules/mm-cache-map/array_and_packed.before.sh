#!/usr/bin/env bash
ROLLOUT=(
    actor_rollout_ref.rollout.name=vllm
    # images are preprocessed once per prompt
    actor_rollout_ref.rollout.disable_mm_preprocessor_cache=True
    actor_rollout_ref.rollout.gpu_memory_utilization=0.6
)
RM_ARGS="reward_model.enable=True reward_model.rollout.disable_mm_preprocessor_cache=False"

python3 -m verl.trainer.main_ppo \
    "${ROLLOUT[@]}" \
    $RM_ARGS \
    trainer.total_epochs=1
