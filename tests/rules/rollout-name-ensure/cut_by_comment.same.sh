#!/bin/bash
# a heading among the overrides ends the launch: nothing is added to it
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.n=4 \
    # sampling
    actor_rollout_ref.rollout.temperature=0.7 \
    trainer.total_epochs=1
