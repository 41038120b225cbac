#!/bin/bash
# A line commented out inside the continuation ends the launch there: bash joins the comment to the
# command, the comment runs to the end of its line (its backslash too), and the lines after it run as a
# command of their own, so the setting never reaches the trainer. A person must fix the launch.
python3 -m verl.trainer.main_ppo \
    trainer.total_epochs=2 \
#    trainer.save_freq=10 \
    actor_rollout_ref.actor.megatron.use_mbridge=False \
    trainer.n_gpus_per_node=8
# A comment between two launches ends nothing that was meant to go on.
python3 -m verl.trainer.main_ppo trainer.total_epochs=1 \
# the next run
python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=True
