#!/bin/bash
# the rollout line is the last line and has no newline
python3 -m verl.trainer.main_ppo \
	trainer.total_epochs=1 \
	actor_rollout_ref.rollout.n=2 \
	actor_rollout_ref.rollout.name=vllm