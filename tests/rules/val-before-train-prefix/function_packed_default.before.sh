#!/bin/bash
COMMON="trainer.logger='[\"console\"]' \
    +trainer.val_before_train=${VAL_FIRST:-True}"
run() {
    python3 verl/trainer/main_ppo.py \
        $COMMON \
        trainer.experiment_name="$1"
}
run a
run b
