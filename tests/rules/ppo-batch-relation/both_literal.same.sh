#!/usr/bin/env bash
# the actor's sizes break the relation; the critic's keep it; the ref has no right side here
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.ppo_mini_batch_size=60 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8 \
    critic.ppo_mini_batch_size=64 \
    critic.ppo_micro_batch_size_per_gpu=8

MINI=${MINI:-30}
python3 -m verl.trainer.main_ppo \
    critic.ppo_mini_batch_size=$MINI \
    critic.ppo_micro_batch_size_per_gpu=4 \
    actor_rollout_ref.actor.ppo_mini_batch_size=$1 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4
