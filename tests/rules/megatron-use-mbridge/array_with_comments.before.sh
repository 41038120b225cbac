#!/usr/bin/env bash
set -x

ACTOR=(
    # parallelism
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=4 \
    actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=2
    # weights are loaded through the bridge
    actor_rollout_ref.actor.megatron.use_mbridge=False \
    actor_rollout_ref.actor.optim.lr=1e-6
)

CRITIC=(
    critic.megatron.use_mbridge=false  # keep in step with the actor
    critic.optim.lr=1e-5
)

python3 -m verl.trainer.main_ppo \
    --config-name=ppo_megatron_trainer \
    "${ACTOR[@]}" \
    "${CRITIC[@]}" \
    trainer.total_epochs=1
