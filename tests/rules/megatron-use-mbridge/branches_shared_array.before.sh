#!/usr/bin/env bash
set -euo pipefail

MEGATRON=(
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2
    actor_rollout_ref.actor.megatron.use_mbridge=False
)

case "${ALGO:-grpo}" in
    grpo)
        python3 -m verl.trainer.main_ppo \
            algorithm.adv_estimator=grpo \
            "${MEGATRON[@]}" "$@"
        ;;
    gae)
        python3 -m verl.trainer.main_ppo \
            algorithm.adv_estimator=gae \
            "${MEGATRON[@]}" \
            critic.megatron.use_mbridge=False "$@"
        ;;
esac
