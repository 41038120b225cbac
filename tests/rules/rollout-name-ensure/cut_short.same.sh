#!/bin/bash
# the comment after the backslash ends the launch: bash reads a backslash and a blank as an escaped blank
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.n=4 \  # four samples a prompt
    actor_rollout_ref.rollout.name=vllm \
    trainer.total_epochs=1
# a blank left after the backslash does the same
python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.n=2 \ 
    actor_rollout_ref.rollout.name=vllm
