# Recipes are shell lines that make runs: `$$` is one `$`, `$(VAR)` is make's, `@` is make's too.
PY ?= python3
STYLE = actor.optim.warmup_style=cosine

.PHONY: train
train: data
	@$(PY) -m trainer.main actor.optim.lr_scheduler_type=cosine \
		trainer.out=$$HOME/runs
	cd lab && python3 -m trainer.main critic.optim.lr_scheduler_type=linear

quick: ; python3 -m trainer.main actor.optim.lr_scheduler_type=constant

define HELP
	python3 -m trainer.main actor.optim.warmup_style=shown
endef
