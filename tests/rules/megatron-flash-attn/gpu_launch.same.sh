#!/bin/bash
# a GPU run: Megatron-core has no use_flash_attn, verl would drop it with a warning
python3 -m verl.trainer.main_ppo \
    trainer.device=cuda \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 \
    trainer.total_epochs=1
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2
