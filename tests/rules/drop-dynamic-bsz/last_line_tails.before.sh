#!/bin/bash
python3 -m verl.trainer.main_ppo \
    data.train_batch_size=128 \
    actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=False $@

python3 -m verl.trainer.main_ppo \
    data.train_batch_size=256 \
    actor_rollout_ref.rollout.log_prob_use_dynamic_bsz="${1}" 2>&1 | tee dyn.log

python3 -m verl.trainer.main_ppo \
    --config-name=ppo_trainer \
    ++actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=null
echo done

# the only override of its command
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True "$@"
