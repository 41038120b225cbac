#!/usr/bin/env bash
# the logger list in each quoting a launch script uses; the other elements and their order stay
python3 -m mylib.train \
    trainer.logger=['console','tensorboard'] \
    trainer.project_name=spellings
python3 -m mylib.train trainer.logger="['tensorboard','console']" trainer.run=2
python3 -m mylib.train trainer.logger='["console", "tensorboard", "mlflow"]' trainer.run=3
python3 -m mylib.train trainer.logger=[console,tensorboard] trainer.run=4
python3 -m mylib.train trainer.logger=tensorboard trainer.run=5
python3 -m mylib.train "trainer.logger=[console, tensorboard]" trainer.run=6
python3 -m mylib.train +trainer.logger=['tensorboard'] trainer.run=7
