#!/bin/bash
# A value that differs between a loop's rounds or the branches: one edit in the override would give every
# round the same value, so a person rewrites it.
for dir in '${actor.optim.warmup_style}/a' /data/b; do
    python3 -m trainer.main "critic.note=$dir"
done
if [ "$FAST" = 1 ]; then NOTE='"${actor.optim.warmup_style}/x"'; else NOTE=plain; fi
python3 -m trainer.main critic.note=$NOTE
