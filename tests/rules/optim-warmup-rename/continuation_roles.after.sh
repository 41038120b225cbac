#!/usr/bin/env bash
set -xeuo pipefail
# the actor and critic optimizers each pick a schedule
python3 -m verl.trainer.main_ppo \
    --config-name=ppo_trainer \
    data.train_batch_size=512 \
    actor_rollout_ref.actor.optim.lr=1e-6 \
    actor_rollout_ref.actor.optim.lr_scheduler_type=cosine \
    +critic.optim.lr_scheduler_type='constant' \
    ++reward_model.model.optim.lr_scheduler_type="cosine" \
    critic.optim.lr=1e-5 \
    trainer.total_epochs=2 $@
