#!/bin/bash
# A launch that writes no override gets the new one right after its entry point, before the caller's
# arguments (theirs still win); where Hydra's own options follow the entry, where it goes is not known.
python3 -m trainer.main +trainer.seed=1
python3 -m trainer.main +trainer.seed=1 "$@"
torchrun --nproc_per_node=8 -m trainer.main +trainer.seed=1 \
    "$@"
python3 -m trainer.main --config-name big
python3 -m trainer.main trainer.epochs=2 +trainer.seed=1
