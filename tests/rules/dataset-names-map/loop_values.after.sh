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
