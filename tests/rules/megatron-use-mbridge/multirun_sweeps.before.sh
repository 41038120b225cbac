#!/bin/bash
# a sweep runs once per element: only the sweep that is all fine stays silent
python3 -m verl.trainer.main_ppo --multirun \
    actor_rollout_ref.actor.megatron.use_mbridge=False,True \
    trainer.seed=1,2,3
python3 -m verl.trainer.main_ppo -m \
    'actor_rollout_ref.actor.megatron.use_mbridge=choice(True,true)' \
    'trainer.seed=range(0,4)'
python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=False
