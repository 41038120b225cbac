python3 -m lab.train task=ant
# python3 -m lab.train task=cartpole seed=1
# task=cartpole
