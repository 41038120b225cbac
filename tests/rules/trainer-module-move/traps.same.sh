#!/usr/bin/env bash
# launches this rule leaves alone, and moves a person must make
python3 -m labs.async_rl_v2.main trainer.run=1
python3 -m labs.sync_rl.main trainer.run=2
python3 -m mylib.async_rl.main trainer.run=3
python3 labs/async_rl_tools/main.py trainer.run=4
if [ "$MODE" = old ]; then
    ENTRY=labs.async_rl.main
else
    ENTRY=labs.async_rl.fast_main
fi
python3 -m $ENTRY trainer.run=5
python3 -m labs.async_rl.main --config-path="$(pwd)/labs/async_rl/config" trainer.run=6
python3 -m labs.${FLAVOUR}.main trainer.run=7
