#!/bin/bash
set -x
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.strategy=fsdp \
    actor_rollout_ref.actor.fsdp_config.param_offload=False \
    actor_rollout_ref.ref.fsdp_config.param_offload=True \
    critic.strategy=fsdp \
    trainer.total_epochs=1 $@
