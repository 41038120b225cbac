#!/usr/bin/env bash
set -euo pipefail

BACKEND=${BACKEND:-megatron}

COMMON=(
    data.train_batch_size=256
    algorithm.adv_estimator=grpo
    trainer.total_epochs=1
)

MEGATRON=(
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2
    # the reference model follows the actor layout
    actor_rollout_ref.ref.megatron.tensor_model_parallel_size=2
    actor_rollout_ref.actor.megatron.use_mbridge=False
    actor_rollout_ref.ref.megatron.use_mbridge=False
)

case "$BACKEND" in
    fsdp)
        python3 -m recipe.dapo.main_dapo \
            "${COMMON[@]}" \
            actor_rollout_ref.actor.strategy=fsdp "$@"
        ;;
    megatron)
        python3 -m recipe.dapo.main_dapo \
            "${COMMON[@]}" \
            "${MEGATRON[@]}" "$@"
        ;;
    megatron-2nodes)
        python3 -m recipe.dapo.main_dapo \
            "${COMMON[@]}" \
            "${MEGATRON[@]}" \
            trainer.nnodes=2 "$@"
        ;;
esac
