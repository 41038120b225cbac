#!/bin/bash
python3 -m verl.trainer.main_ppo \
    data.train_batch_size=64 \
    trainer.val_before_train=True \
    trainer.total_epochs=1 "$@"
