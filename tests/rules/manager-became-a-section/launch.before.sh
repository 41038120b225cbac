#!/usr/bin/env bash
python3 -m lab.train judge.manager=strict judge.rounds=2
