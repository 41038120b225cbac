#!/usr/bin/env bash
# the dropped backend goes with its separator, wherever it stands and however it is quoted
python3 -m mylib.train trainer.logger=['console','tensorboard'] trainer.run=1
python3 -m mylib.train trainer.logger=['console','tensorboard'] trainer.run=2
python3 -m mylib.train trainer.logger=['console'] trainer.run=3
python3 -m mylib.train trainer.logger="[console]" trainer.run=4
python3 -m mylib.train trainer.logger='["console"]' trainer.run=5
python3 -m mylib.train trainer.logger=[console] trainer.run=6
python3 -m mylib.train \
    trainer.logger=[console] \
    trainer.run=7
