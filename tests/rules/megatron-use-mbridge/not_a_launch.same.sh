#!/bin/bash
# actor_rollout_ref.actor.megatron.use_mbridge=False was the old default
echo "hint: pass actor_rollout_ref.actor.megatron.use_mbridge=False to debug"
echo actor_rollout_ref.ref.megatron.use_mbridge=False
printf '%s\n' critic.megatron.use_mbridge=False

cat > overrides.txt <<OVERRIDES
actor_rollout_ref.actor.megatron.use_mbridge=False
engine.use_mbridge=False
OVERRIDES

UNUSED=(
    actor_rollout_ref.actor.megatron.use_mbridge=False
)
echo "${UNUSED[@]}"

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.use_mbridge=True \
    trainer.total_epochs=1  # use_mbridge=False here would fail at start-up
