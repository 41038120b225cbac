#!/bin/bash
# a line without its backslash ends the launch, and the indented options and overrides after it run as a
# command of their own: nothing is added to the launch, and what it was meant to get is reported
python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.n=4
    --multirun actor_rollout_ref.rollout.temperature=0.7,1.0 \
    trainer.total_epochs=1
# an assignment after a launch, or a launch at the same indent, is a command of its own as meant
python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.n=4 actor_rollout_ref.rollout.name=vllm
    EPOCHS=2
python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.n=2 actor_rollout_ref.rollout.name=vllm
