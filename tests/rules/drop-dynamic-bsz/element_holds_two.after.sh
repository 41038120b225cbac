#!/bin/bash
# one quoted element holds two overrides; the unquoted spread splits it, so only the removed one goes
EXTRA=("trainer.n_gpus_per_node=8" data.shuffle=True)
python3 -m verl.trainer.main_ppo ${EXTRA[@]} trainer.total_epochs=1
