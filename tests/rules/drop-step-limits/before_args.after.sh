#!/bin/bash
python3 -m lab.train \
    data.batch=64 "$@"
python3 -m lab.train \
    data.batch=64
