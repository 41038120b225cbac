#!/bin/bash
# actor_rollout_ref.actor.optim.warmup_style=cosine is how it used to be written
echo "set actor_rollout_ref.actor.optim.warmup_style=cosine by hand"
printf '%s\n' critic.optim.warmup_style=constant

cat > notes.txt <<NOTES
actor_rollout_ref.actor.optim.warmup_style=cosine
NOTES

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.optim.warmup_style_x=cosine \
    critic.optim.warmup_styles=constant \
    actor_rollout_ref.actor.optimizer.warmup_style=cosine \
    actor_rollout_ref.actor.optim.lr_scheduler_type=cosine \
    actor_rollout_ref.actor.optim.old_warmup_style=constant \
    trainer.total_epochs=1  # warmup_style=cosine is gone upstream
