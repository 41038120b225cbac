#!/usr/bin/env bash
# every launcher keeps its options and overrides; only the module (or the script's path) moves
set -euo pipefail
python3 -m labs.async_rl.main \
    --config-path=config --config-name=async_trainer \
    trainer.total_epochs=2
python -mlabs.async_rl.main trainer.run=2
torchrun --nnodes=1 --nproc_per_node=8 -m labs.async_rl.main trainer.run=3
torchrun --standalone --nproc_per_node=2 labs/async_rl/main.py trainer.run=4
python3 ./labs/async_rl/main.py trainer.run=5
ray job submit --address="http://127.0.0.1:8265" --runtime-env=env.yaml \
    -- python3 -m labs.async_rl.main trainer.run=6
LAUNCH=(uv run --frozen python3)
"${LAUNCH[@]}" -m labs.async_rl.main trainer.run=7
PYTHON=${PYTHON:-python3}
$PYTHON -m labs.async_rl.main trainer.run=8
python3 -m labs.async_rl.legacy.main trainer.run=9
python3 -m 'labs.async_rl.main' trainer.run=10
