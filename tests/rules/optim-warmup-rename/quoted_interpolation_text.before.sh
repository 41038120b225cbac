#!/bin/bash
# Hydra's own quotes keep the comma and the blank in one string: the name is rewritten inside them and
# the quotes stay (written without them, the first would become a sweep of two values).
python3 -m verl.trainer.main_ppo \
    'critic.optim.note="a,${actor.optim.warmup_style}"' \
    'critic.optim.label="x ${actor.optim.warmup_style}"'
