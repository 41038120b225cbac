#!/usr/bin/env bash
# a list that already names the new backend keeps it once
python3 -m mylib.train trainer.logger=['console','tensorboard'] trainer.run=1
python3 -m mylib.train trainer.logger="[tensorboard]" trainer.run=2
python3 -m mylib.train trainer.logger=[tensorboard,console] trainer.run=3
