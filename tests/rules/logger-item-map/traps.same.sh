#!/usr/bin/env bash
# nothing to map, or nothing the script itself says
python3 -m mylib.train trainer.logger=['console','tensorboard'] trainer.run=1
python3 -m mylib.train trainer.logger_backup=[legacy_tb] trainer.run=2
python3 -m mylib.train data.tags=[legacy_tb] trainer.run=3
python3 -m mylib.train trainer.logger=[console,$EXTRA_BACKEND] trainer.run=4
python3 -m mylib.train trainer.logger=[legacy_tb_v2,console] trainer.run=5
python3 -m mylib.train '~trainer.logger' trainer.run=6
python3 -m mylib.train trainer.logger=$CALLER_LOGGERS trainer.run=7
EXTRA=legacy_tb
echo "also used: $EXTRA"
python3 -m mylib.train trainer.logger=[console,$EXTRA] trainer.run=8
