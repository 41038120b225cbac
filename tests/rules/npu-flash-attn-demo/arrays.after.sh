#!/usr/bin/env bash
ACTOR=(
    actor_rollout_ref.actor.optim.lr=1e-6
    # parallel layout
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=4 \
    actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=2
    # keep the optimizer on the GPU
    actor_rollout_ref.actor.megatron.optimizer_offload=False \
    +actor_rollout_ref.actor.megatron.override_transformer_config.use_flash_attn=True \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2
)
REF=(
    actor_rollout_ref.ref.megatron.tensor_model_parallel_size=4
    ++actor_rollout_ref.ref.megatron.override_transformer_config.use_flash_attn=True
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=4
)

python3 -m verl.trainer.main_ppo \
    "${ACTOR[@]}" \
    "${REF[@]}" \
    trainer.total_epochs=1
