#!/bin/bash
# Every value of the loop has its own new name: each is written where the loop lists it.
for dataset in cifar10 cifar100; do
    python3 -m app.train \
        ++data.dataset=$dataset ++trainer.epochs=2
done

SETS=(cifar100 cifar10)
for name in "${SETS[@]}"; do
    python3 -m app.train data.dataset="$name"
done

if [ "$SMALL" = 1 ]; then
    DATA=cifar10
else
    DATA=cifar100
fi
python3 -m app.train data.dataset=$DATA

# the same value twice: each copy is rewritten, and so is what `+=` adds
for dataset in cifar10 cifar100 cifar10; do
    python3 -m app.train data.dataset=$dataset
done
MORE=(cifar10)
MORE+=(cifar100)
for name in "${MORE[@]}"; do
    python3 -m app.train data.dataset=$name
done
if [ "$A" = 1 ]; then DATA2=cifar10; elif [ "$B" = 1 ]; then DATA2=cifar100; else DATA2=cifar10; fi
python3 -m app.train data.dataset=$DATA2
