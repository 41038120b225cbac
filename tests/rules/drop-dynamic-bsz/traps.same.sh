#!/bin/bash
# actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True is gone upstream
echo "remember actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True"
cat > args.txt <<EOT
actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True
EOT

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.log_prob_use_dynamic_bsz_x=True \
    actor_rollout_ref.ref.log_prob_use_dynamic_bsz=True \
    actor_rollout_ref.actor.use_dynamic_bsz=True \
    critic.rollout.log_prob_use_dynamic_bsz=True \
    actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=8192 \
    trainer.total_epochs=1  # log_prob_use_dynamic_bsz=True
