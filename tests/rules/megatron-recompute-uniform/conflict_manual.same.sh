#!/bin/bash
# part of the set is chosen with another value: a person decides
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 \
    +actor_rollout_ref.actor.megatron.override_transformer_config.recompute_method=block \
    trainer.total_epochs=1

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 \
    +actor_rollout_ref.actor.megatron.override_transformer_config.recompute_method=uniform \
    +actor_rollout_ref.actor.megatron.override_transformer_config.recompute_num_layers=4
