#!/bin/bash
# Hydra's own quotes keep the comma and the blank in one string: rewriting the name inside them is left
# to a person (written without them, the first would become a sweep of two values).
python3 -m verl.trainer.main_ppo \
    'critic.optim.note="a,${actor.optim.warmup_style}"' \
    'critic.optim.label="x ${actor.optim.warmup_style}"'
