#!/usr/bin/env bash
python3 -m lab.train judge.manager.name=strict judge.rounds=2
