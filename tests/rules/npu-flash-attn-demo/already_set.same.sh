#!/bin/bash
# use_flash_attn is already chosen (any prefix, any value): leave both launches alone
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 \
    ++actor_rollout_ref.actor.megatron.override_transformer_config.use_flash_attn=False \
    trainer.total_epochs=1

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.use_mbridge=True \
    actor_rollout_ref.actor.megatron.override_transformer_config.use_flash_attn=true \
    actor_rollout_ref.ref.megatron.param_offload=True \
    +actor_rollout_ref.ref.megatron.override_transformer_config.use_flash_attn=True
