#!/bin/bash
# python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.n=4
echo "python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.n=4"
cat > cmd.txt <<CMD
python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.n=4
CMD

# SFT: another entry point
torchrun --nproc_per_node=8 -m verl.trainer.sft_trainer \
    actor_rollout_ref.rollout.n=4 \
    trainer.total_epochs=1

# no rollout key set at all, or only look-alikes
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout_ref.n=4 \
    actor_rollout_ref.actor.rollout_n=4 \
    trainer.total_epochs=1

# a recipe's own entry point
python3 -m recipe.dapo.main_dapo actor_rollout_ref.rollout.n=16
