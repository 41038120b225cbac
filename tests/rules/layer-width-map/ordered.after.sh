#!/usr/bin/env bash
# each element is a layer: repeats stay, and a mapped value equal to another element stays too
python3 -m mylib.train "model.num_cells=[64,64]" critic.num_cells=[64,64,64] trainer.run=1
python3 -m mylib.train model.num_cells=64 trainer.run=2
