#!/bin/bash
OPTIM="actor_rollout_ref.actor.optim.lr=1e-6 \
    actor_rollout_ref.actor.optim.warmup_style=${SCHED:-cosine}"
SHARED=(critic.optim.warmup_style=constant)
if [ -n "$FAST" ]; then
    python3 -m verl.trainer.main_ppo $OPTIM "${SHARED[@]}"
else
    python3 -m verl.trainer.main_ppo "${SHARED[@]}" 'actor_rollout_ref.actor.optim.warmup_style=cosine'
fi
