#!/usr/bin/env bash
export ACTOR_MBRIDGE=True
REF_MBRIDGE=${REF_MBRIDGE:-True}
CRITIC_MBRIDGE=${CRITIC_MBRIDGE:=true}

python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.use_mbridge=$ACTOR_MBRIDGE \
    actor_rollout_ref.ref.megatron.use_mbridge=$REF_MBRIDGE \
    critic.megatron.use_mbridge=$CRITIC_MBRIDGE \
    trainer.total_epochs=1
