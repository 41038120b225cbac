#!/bin/bash
MEGATRON_ARGS="actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 \
    actor_rollout_ref.actor.megatron.use_mbridge=True \
    actor_rollout_ref.ref.megatron.use_mbridge=True"
CRITIC_ARGS='critic.megatron.use_mbridge=true critic.optim.lr=1e-5'

python3 -m verl.trainer.main_ppo \
    $MEGATRON_ARGS \
    $CRITIC_ARGS \
    trainer.logger='["console"]'
