#!/bin/bash
set -x

# actor settings, one per element
ACTOR=(
    actor_rollout_ref.actor.optim.lr=1e-6
    # parallel layout
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=4 \
    actor_rollout_ref.actor.megatron.expert_model_parallel_size=8 \
    # the bridge loads HF weights directly
    actor_rollout_ref.actor.megatron.use_mbridge=False \
    actor_rollout_ref.actor.ppo_mini_batch_size=128
)

CRITIC=(
    critic.optim.lr=1e-5
    critic.megatron.tensor_model_parallel_size=4
    critic.megatron.use_mbridge=false
)

python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer \
    "${ACTOR[@]}" \
    "${CRITIC[@]}" \
    trainer.logger='["console","wandb"]' \
    trainer.total_epochs=2 2>&1 | tee deepseek_ppo.log
