#!/bin/bash
# an Ascend run: MindSpeed reads use_flash_attn
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.strategy=megatron \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 \
    actor_rollout_ref.ref.megatron.tensor_model_parallel_size=2 \
    trainer.total_epochs=1
