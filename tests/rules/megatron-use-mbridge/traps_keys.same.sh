#!/bin/bash
# other engines, other keys, deletions and values that are already true: none may change
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.mindspeed.use_mbridge=False \
    actor_rollout_ref.ref.megatron.mindspeed.use_mbridge=false \
    actor_rollout_ref.actor.megatron.vanilla_mbridge=False \
    actor_rollout_ref.actor.megatron.use_mbridge_x=False \
    ~actor_rollout_ref.ref.megatron.use_mbridge \
    ~reward_model.megatron.use_mbridge=False \
    critic.megatron.use_mbridge=True \
    +actor_rollout_ref.actor.megatron.use_mbridge=true \
    ++actor_rollout_ref.rollout.megatron.use_mbridge="True" \
    actor_rollout_ref.actor.fsdp_config.param_offload=False \
    trainer.total_epochs=1
