#!/bin/bash
# CRLF file: the new line gets CRLF too
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.n=4 \
    trainer.total_epochs=1 "$@"
