#!/usr/bin/env bash
python3 -m lab.core.train score.manager.name=batched runner.seed=3 data.train_batch=4
