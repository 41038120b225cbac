#!/bin/bash
# Every value of the loop has its own new name: each is written where the loop lists it.
for dataset in c10 c100; do
    python3 -m app.train \
        ++data.dataset=$dataset ++trainer.epochs=2
done

SETS=(c100 c10)
for name in "${SETS[@]}"; do
    python3 -m app.train data.dataset="$name"
done

if [ "$SMALL" = 1 ]; then
    DATA=c10
else
    DATA=c100
fi
python3 -m app.train data.dataset=$DATA

# the same value twice: each copy is rewritten, and so is what `+=` adds
for dataset in c10 c100 c10; do
    python3 -m app.train data.dataset=$dataset
done
MORE=(c10)
MORE+=(c100)
for name in "${MORE[@]}"; do
    python3 -m app.train data.dataset=$name
done
if [ "$A" = 1 ]; then DATA2=c10; elif [ "$B" = 1 ]; then DATA2=c100; else DATA2=c10; fi
python3 -m app.train data.dataset=$DATA2
