#!/bin/bash
BRIDGE=${BRIDGE:-False}

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.use_mbridge=${BRIDGE} \
    +actor_rollout_ref.actor.megatron.vanilla_mbridge=$BRIDGE \
    actor_rollout_ref.actor.mindspeed.use_mbridge=$BRIDGE \
    trainer.total_epochs=1
