#!/bin/bash
# The loop's variable also names the run, and one value has no new name: a person decides.
for dataset in cifar10 cifar100; do
    python3 -m app.train data.dataset=$dataset ++name="run-$dataset"
done
for dataset in cifar10 svhn; do
    python3 -m app.train data.dataset=$dataset
done
