#!/bin/bash
python3 -m verl.trainer.main_ppo \
    data.train_batch_size=128 $@

python3 -m verl.trainer.main_ppo \
    data.train_batch_size=256 2>&1 | tee dyn.log

python3 -m verl.trainer.main_ppo \
    --config-name=ppo_trainer
echo done

# the only override of its command
python3 -m verl.trainer.main_ppo "$@"
