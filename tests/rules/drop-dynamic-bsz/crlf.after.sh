#!/bin/bash
# CRLF file: the first and the last override both go
python3 -m verl.trainer.main_ppo \
    data.train_batch_size=64 "$@"
echo ok
