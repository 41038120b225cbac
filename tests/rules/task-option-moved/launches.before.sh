python3 -m lab.train task=cartpole seed=1
python3 -m lab.train task=humanoid seed=2
