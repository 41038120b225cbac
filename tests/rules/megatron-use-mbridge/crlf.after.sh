#!/bin/bash
# saved with Windows line endings
ACTOR_MBRIDGE=${ACTOR_MBRIDGE:-True}
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.use_mbridge=$ACTOR_MBRIDGE \
    critic.megatron.use_mbridge=True \
    trainer.total_epochs=1
