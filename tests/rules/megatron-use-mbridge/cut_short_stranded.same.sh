#!/bin/bash
# A blank after the backslash on line 3 ends the launch there: bash runs lines 4-5 as a command of
# their own, so the setting never reaches the trainer. A person must join the lines again.
python3 -m verl.trainer.main_ppo \
    algorithm.pf_ppo.reweight_method=pow \  # pow | max_min
    actor_rollout_ref.actor.megatron.use_mbridge=False \
    trainer.total_epochs=2
python3 -m verl.trainer.main_ppo \
    trainer.total_epochs=1 \ 
echo actor_rollout_ref.actor.megatron.use_mbridge=False
