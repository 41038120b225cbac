#!/usr/bin/env bash
# a list that already names the new backend keeps it once
python3 -m mylib.train trainer.logger=['console','legacy_tb','tensorboard'] trainer.run=1
python3 -m mylib.train trainer.logger="[tensorboard, legacy_tb]" trainer.run=2
python3 -m mylib.train trainer.logger=[legacy_tb,console,tensorboard] trainer.run=3
