#!/bin/bash
# no newline after the last override
python3 -m verl.trainer.main_ppo \
    trainer.total_epochs=1 \
    +trainer.val_before_train=False