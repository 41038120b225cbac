#!/usr/bin/env bash
bridge=False
python3 tools/convert_checkpoint.py --use-bridge "$bridge"
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.use_mbridge=True \
    trainer.total_epochs=2
