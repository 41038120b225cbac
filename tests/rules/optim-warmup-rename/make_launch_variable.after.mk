# An assignment whose value is a launch is read where it is written, as a recipe line is; a variable
# that only holds overrides (ARGS) is not a launch, and a recipe that runs one is make's to expand.
SMOKE = RUN_DIR=/tmp/smoke_$(USER) python3 -m trainer.main actor.optim.lr_scheduler_type=cosine \
	critic.optim.lr_scheduler_type=linear   # the quick check
QUICK = python3 -m trainer.main actor.optim.lr_scheduler_type=cosine# make's comment: not the value's
ARGS := actor.optim.warmup_style=cosine

smoke:
	$(SMOKE) trainer.epochs=1
