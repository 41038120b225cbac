#!/usr/bin/env bash
ACTOR_MEGATRON=(
    # layout
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=4
    actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=2
    # memory
    actor_rollout_ref.actor.megatron.param_offload=True
    +actor_rollout_ref.actor.megatron.override_transformer_config.recompute_method=uniform
    +actor_rollout_ref.actor.megatron.override_transformer_config.recompute_granularity=full
    +actor_rollout_ref.actor.megatron.override_transformer_config.recompute_num_layers=1
    actor_rollout_ref.actor.optim.lr=1e-6
)

python3 -m verl.trainer.main_ppo \
    "${ACTOR_MEGATRON[@]}" \
    trainer.total_epochs=1 $@
