python3 -m lab.train task=mujoco/ant
# python3 -m lab.train task=control/cartpole seed=1
# task=cartpole
