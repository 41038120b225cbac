#!/usr/bin/env bash
ROLLOUT=(
    # sampling
    actor_rollout_ref.rollout.n=8
    actor_rollout_ref.rollout.temperature=1.0
    # memory
    actor_rollout_ref.rollout.gpu_memory_utilization=0.7
    actor_rollout_ref.rollout.name=vllm
)
ACTOR=(
    actor_rollout_ref.actor.optim.lr=1e-6
)

python3 -m verl.trainer.main_ppo \
    "${ACTOR[@]}" \
    "${ROLLOUT[@]}" \
    trainer.total_epochs=1
