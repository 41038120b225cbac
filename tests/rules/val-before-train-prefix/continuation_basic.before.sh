#!/usr/bin/env bash
set -xeuo pipefail
python3 -m verl.trainer.main_ppo \
    --config-path=config \
    --config-name=ppo_trainer \
    data.train_batch_size=256 \
    +trainer.val_before_train=False \
    trainer.test_freq=5 \
    trainer.total_epochs=3 $@
