# Recipes are shell lines that make runs: `$$` is one `$`, `$(VAR)` is make's, `@` is make's too.
PY ?= python3
STYLE = actor.optim.warmup_style=cosine

.PHONY: train
train: data
	@$(PY) -m trainer.main actor.optim.warmup_style=cosine \
		trainer.out=$$HOME/runs
	cd lab && python3 -m trainer.main critic.optim.warmup_style=linear

quick: ; python3 -m trainer.main actor.optim.warmup_style=constant

define HELP
	python3 -m trainer.main actor.optim.warmup_style=shown
endef
