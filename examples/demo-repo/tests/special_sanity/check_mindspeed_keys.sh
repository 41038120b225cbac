#!/bin/bash
# MindSpeed engine and look-alike keys: the default rule must leave this file alone
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.strategy=mindspeed \
    actor_rollout_ref.actor.mindspeed.use_mbridge=False \
    actor_rollout_ref.ref.mindspeed.use_mbridge=False \
    +actor_rollout_ref.actor.megatron.vanilla_mbridge=False \
    actor_rollout_ref.actor.megatron.use_mbridge_x=False \
    ~critic.megatron.use_mbridge \
    trainer.total_epochs=1
