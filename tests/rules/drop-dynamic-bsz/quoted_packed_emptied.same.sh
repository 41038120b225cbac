#!/bin/bash
# the quoted expansion would still hand Hydra an empty word once the string is empty: left for a person
PACKED="actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True"
python3 -m verl.trainer.main_ppo data.shuffle=True "$PACKED"
