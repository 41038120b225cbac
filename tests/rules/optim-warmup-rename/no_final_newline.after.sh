#!/bin/bash
# tab-indented, and the file stops without a newline  
python3 -m verl.trainer.main_ppo \
	actor_rollout_ref.actor.optim.lr=1e-6 \
	actor_rollout_ref.actor.optim.lr_scheduler_type=cosine