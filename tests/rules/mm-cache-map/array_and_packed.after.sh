#!/usr/bin/env bash
ROLLOUT=(
    actor_rollout_ref.rollout.name=vllm
    # images are preprocessed once per prompt
    actor_rollout_ref.rollout.mm_processor_cache_gb=0
    actor_rollout_ref.rollout.gpu_memory_utilization=0.6
)
RM_ARGS="reward_model.enable=True reward_model.rollout.mm_processor_cache_gb=4"

python3 -m verl.trainer.main_ppo \
    "${ROLLOUT[@]}" \
    $RM_ARGS \
    trainer.total_epochs=1
