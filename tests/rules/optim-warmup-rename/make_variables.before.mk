# Make's variables are values known only at run time (they may be set again per target or on make's
# command line); one that names the interpreter starts the launch. `$$` stays doubled.
PYTHON ?= python3
ARGS := actor.optim.warmup_style=cosine
DS = cifar10

train:
	$(PYTHON) -m trainer.main $(ARGS) actor.optim.warmup_style=cosine trainer.out=$${RUN_DIR}/$@
	python3 -m trainer.main 'critic.note=$(DS)' critic.optim.warmup_style=linear
