#!/bin/bash
# a default first, replaced in one branch: every run names the engine
NAME_ARG=actor_rollout_ref.rollout.name=vllm
if [ -n "$USE_SGLANG" ]; then
    NAME_ARG=actor_rollout_ref.rollout.name=sglang
fi
python3 -m verl.trainer.main_ppo $NAME_ARG actor_rollout_ref.rollout.n=2
