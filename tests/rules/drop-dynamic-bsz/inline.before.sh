#!/bin/bash
for n in 4 8; do
    python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.n=$n actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True trainer.total_epochs=1
done
torchrun --nproc_per_node=8 -m verl.trainer.main_ppo data.train_batch_size=64 actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=true
