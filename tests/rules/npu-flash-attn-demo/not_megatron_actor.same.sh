#!/bin/bash
# FSDP actor: nothing to add
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.strategy=fsdp \
    actor_rollout_ref.actor.fsdp_config.param_offload=False \
    trainer.total_epochs=1

# only the reference model runs on Megatron; the rule is keyed on the actor
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.ref.megatron.tensor_model_parallel_size=2 \
    trainer.total_epochs=1

# not a launch
echo actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2
