#!/bin/bash
# shell quoting around the value, or around the whole word, stays as written
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.use_mbridge="True" \
    actor_rollout_ref.ref.megatron.use_mbridge='true' \
    "critic.megatron.use_mbridge=True" \
    'reward_model.megatron.use_mbridge=true' \
    trainer.total_epochs=1
