#!/bin/bash
# the GPU default below was left unfinished (a parenthesis short): the shell parser cannot read it
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.megatron.use_mbridge=False \
    trainer.n_gpus_per_node=${GPUS:-$(((A+B)*2)} \
    actor_rollout_ref.ref.megatron.use_mbridge=False \
    data.train_batch_size=64 \
    critic.megatron.use_mbridge=True \
    trainer.total_epochs=1 $@

python3 -m verl.trainer.main_ppo \
    reward_model.megatron.use_mbridge=True
