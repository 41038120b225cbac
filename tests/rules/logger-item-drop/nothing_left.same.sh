#!/usr/bin/env bash
# removing the only backend would leave no logger at all: a person decides
python3 -m mylib.train trainer.logger=['stdout'] trainer.run=1
python3 -m mylib.train trainer.logger=stdout trainer.run=2
python3 -m mylib.train trainer.logger=[stdout,stdout] trainer.run=3
python3 -m mylib.train trainer.logger=[console,tensorboard] trainer.run=4
