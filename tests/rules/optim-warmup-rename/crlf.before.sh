#!/bin/bash
# Windows line endings
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.optim.warmup_style=cosine \
    critic.optim.warmup_style=constant \
    trainer.total_epochs=1
