#!/bin/bash
# usage: bash values_from_variables.sh <val first?>
VAL_FIRST=${VAL_FIRST:-False}
python3 -m verl.trainer.main_ppo \
    trainer.val_before_train=$VAL_FIRST \
    trainer.total_epochs=1
python3 -m verl.trainer.main_ppo \
    "trainer.val_before_train=$1" \
    trainer.total_epochs=1
