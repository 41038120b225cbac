#!/bin/bash
# Windows line endings
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.optim.lr_scheduler_type=cosine \
    critic.optim.lr_scheduler_type=constant \
    trainer.total_epochs=1
