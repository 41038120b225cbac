#!/bin/bash
# the second launch is cut short by a blank after its backslash: the shared array is no place
shared=(
    actor_rollout_ref.rollout.n=4
)
python3 -m verl.trainer.main_ppo "${shared[@]}" trainer.total_epochs=1
python3 -m verl.trainer.main_ppo "${shared[@]}" trainer.total_epochs=2 \ 
    actor_rollout_ref.rollout.name=sglang
