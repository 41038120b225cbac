# A make variable a recipe passes on is fixed where the Makefile sets it; `$$` stays doubled.
PYTHON ?= python3
ARGS := actor.optim.lr_scheduler_type=cosine trainer.epochs=2
export RUN_DIR = $$HOME/runs

train:
	$(PYTHON) -m trainer.main $(ARGS) trainer.out=$${RUN_DIR}/$@

clean:
	rm -rf $(RUN_DIR)
