#!/usr/bin/env bash
# the dropped backend goes with its separator, wherever it stands and however it is quoted
python3 -m mylib.train trainer.logger=['stdout','console','tensorboard'] trainer.run=1
python3 -m mylib.train trainer.logger=['console','stdout','tensorboard'] trainer.run=2
python3 -m mylib.train trainer.logger=['console','stdout'] trainer.run=3
python3 -m mylib.train trainer.logger="[console, stdout]" trainer.run=4
python3 -m mylib.train trainer.logger='["stdout", "console"]' trainer.run=5
python3 -m mylib.train trainer.logger=[console,stdout,stdout] trainer.run=6
python3 -m mylib.train \
    trainer.logger=[stdout,console] \
    trainer.run=7
