#!/usr/bin/env bash
# an entry point kept in a variable assigned once is moved where it is assigned
ENTRY=labs.async_rl.main
python3 -m "$ENTRY" trainer.run=1
python3 -m $ENTRY trainer.run=2
TRAIN_PY=labs/async_rl/main.py
python3 $TRAIN_PY trainer.run=3
CMD=(python3 -m labs.async_rl.main trainer.total_epochs=1)
"${CMD[@]}" trainer.run=4
"${CMD[@]}" trainer.run=5
