#!/bin/bash
ROLLOUT_ARGS="actor_rollout_ref.rollout.n=5 actor_rollout_ref.rollout.temperature=1.0"
LAST_ARGS='actor_rollout_ref.rollout.top_p=0.9'

python3 -m verl.trainer.main_ppo \
    $ROLLOUT_ARGS \
    $LAST_ARGS \
    trainer.total_epochs=1
