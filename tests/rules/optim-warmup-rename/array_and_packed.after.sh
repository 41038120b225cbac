#!/usr/bin/env bash
ACTOR_OPTIM=(
    actor_rollout_ref.actor.optim.lr=1e-6
    # schedule: cosine decay after warmup
    actor_rollout_ref.actor.optim.lr_scheduler_type=cosine \
    actor_rollout_ref.actor.optim.min_lr_ratio=0.1
)
CRITIC_OPTIM="critic.optim.lr=1e-5 critic.optim.lr_scheduler_type=constant critic.optim.weight_decay=0.01"

torchrun --standalone --nnodes=1 --nproc_per_node=8 -m verl.trainer.main_ppo \
    "${ACTOR_OPTIM[@]}" \
    $CRITIC_OPTIM \
    trainer.total_epochs=1
