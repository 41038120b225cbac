#!/bin/bash
# a recompute granularity is already chosen: the rule stays out
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 \
    +actor_rollout_ref.actor.megatron.override_transformer_config.recompute_granularity=selective \
    trainer.total_epochs=1

# FSDP actor
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.strategy=fsdp \
    actor_rollout_ref.actor.fsdp_config.param_offload=True

# the whole set is already there
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 \
    +actor_rollout_ref.actor.megatron.override_transformer_config.recompute_method=uniform \
    +actor_rollout_ref.actor.megatron.override_transformer_config.recompute_granularity=full \
    +actor_rollout_ref.actor.megatron.override_transformer_config.recompute_num_layers=1
