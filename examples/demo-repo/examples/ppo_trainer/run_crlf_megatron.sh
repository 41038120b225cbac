#!/bin/bash
# checked in from a Windows machine
export VERL_MBRIDGE=false
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 \
    actor_rollout_ref.actor.megatron.use_mbridge=$VERL_MBRIDGE \
    critic.megatron.use_mbridge=False \
    trainer.total_epochs=1
