#!/bin/bash
# usage: bash values_from_variables.sh <critic schedule>
WARMUP=${WARMUP:-cosine}
export REF_SCHED=constant

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.optim.lr_scheduler_type=$WARMUP \
    actor_rollout_ref.ref.optim.lr_scheduler_type=${REF_SCHED} \
    critic.optim.lr_scheduler_type="$1" \
    trainer.total_epochs=1
echo "actor schedule: $WARMUP"
