#!/usr/bin/env bash
# Scores with the exact scorer; for fuzzy matching use:
# judge.scorer=fuzzy
set -euo pipefail

python3 -m toolkit.train \
    judge.scorer=exact_match \
    trainer.epochs=2

# An older run, kept for reference:
# python3 -m toolkit.train \
#     judge.scorer=fuzzy \
#     trainer.epochs=1
#
# Set judge.scorer=fuzzy when answers are free text.
