#!/bin/bash
# usage: bash caller_value.same.sh <actor_mbridge> <critic_mbridge>
CRITIC_FLAG=$2

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.use_mbridge=$1 \
    actor_rollout_ref.ref.megatron.use_mbridge=${REF_MBRIDGE} \
    critic.megatron.use_mbridge=$CRITIC_FLAG \
    trainer.total_epochs=1
