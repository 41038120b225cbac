#!/usr/bin/env bash
# a list kept in a variable: fixed where it is assigned when every use wants the same list, else
# written in the override (quoted: a bare [...] is a shell pattern)
BACKENDS="['console','tensorboard']"
python3 -m mylib.train trainer.logger=$BACKENDS trainer.run=1
python3 -m mylib.train trainer.logger="$BACKENDS" trainer.run=2

SHOWN=[console,legacy_tb]
echo "logging to $SHOWN"
python3 -m mylib.train trainer.logger='[console,tensorboard]' trainer.run=3
