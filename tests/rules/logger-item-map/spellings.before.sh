#!/usr/bin/env bash
# the logger list in each quoting a launch script uses; the other elements and their order stay
python3 -m mylib.train \
    trainer.logger=['console','legacy_tb'] \
    trainer.project_name=spellings
python3 -m mylib.train trainer.logger="['legacy_tb','console']" trainer.run=2
python3 -m mylib.train trainer.logger='["console", "legacy_tb", "mlflow"]' trainer.run=3
python3 -m mylib.train trainer.logger=[console,legacy_tb] trainer.run=4
python3 -m mylib.train trainer.logger=legacy_tb trainer.run=5
python3 -m mylib.train "trainer.logger=[console, legacy_tb]" trainer.run=6
python3 -m mylib.train +trainer.logger=['legacy_tb'] trainer.run=7
