#!/bin/bash
# older copies of this script had actor_rollout_ref.actor.megatron.use_mbridge=False
echo "note: actor_rollout_ref.actor.megatron.use_mbridge=False is no longer accepted"

cat <<NOTES > /tmp/notes.txt
engine.use_mbridge=False
NOTES

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.use_mbridge=True \
    actor_rollout_ref.ref.megatron.use_mbridge=true \
    critic.megatron.use_mbridge="True" \
    actor_rollout_ref.actor.megatron.override_transformer_config.use_flash_attn=False \
    +actor_rollout_ref.actor.megatron.override_transformer_config.recompute_granularity=selective \
    trainer.total_epochs=1  # use_mbridge=False would fail here
