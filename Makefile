# Two entry points for a fresh machine with python3 and git: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint venv clean bench

$(BIN)/bot: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(BIN)/bot

venv: $(BIN)/bot

demo: venv
	$(BIN)/bot run --repo examples/demo-repo --dry-run

test: venv
	$(BIN)/python -m pytest
	$(BIN)/ruff check bot tests benchmarks
	$(BIN)/mypy

bench: venv
	$(BIN)/python benchmarks/synthetic_tree.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
