#!/usr/bin/env bash
MEGATRON=(
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2
    actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=1
)

if [ "$ALGO" = "grpo" ]; then
    python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo "${MEGATRON[@]}"
else
    python3 -m verl.trainer.main_ppo algorithm.adv_estimator=gae "${MEGATRON[@]}"
fi
