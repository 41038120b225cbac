#!/bin/bash
# the removed override is the very last thing in the file
python3 -m verl.trainer.main_ppo \
	data.train_batch_size=64 \
	trainer.total_epochs=1 \
	actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True