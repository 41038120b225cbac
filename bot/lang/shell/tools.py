"""Programs and modules that are well-known tools: what they run is no launch, their words no overrides."""

from __future__ import annotations

# programs a runner may run that take `.py` words and are no launch (`uv run pytest tests/test_x.py`)
NOT_LAUNCHES = {"pytest", "py.test", "mypy", "ruff", "black", "isort", "flake8", "pylint", "pyright", "pip",
                "pre-commit", "coverage", "sphinx-build", "jupyter", "git", "cat", "echo", "ls", "cp", "mv",
                "rm", "vim", "less", "head", "tail", "grep", "sed", "awk", "wc", "chmod", "tar", "zip", "scp",
                "rsync", "pdoc", "mkdocs", "twine", "nox", "tox", "bandit", "pydocstyle", "yapf", "autopep8"}
# modules `python -m` runs that are well-known tools, no Hydra app: their words are package specs, paths and
# options (`python3 -m pip install deepspeed==0.16.4`), never overrides
TOOL_MODULES = {"pip", "pipx", "piptools", "ensurepip", "venv", "virtualenv", "pytest", "unittest", "doctest",
                "mypy", "ruff", "black", "isort", "flake8", "pylint", "pyright", "pre_commit", "twine",
                "http.server", "json.tool", "pydoc", "sphinx", "mkdocs", "nox", "tox", "jupyter", "nbconvert",
                "notebook", "ipykernel", "grpc_tools.protoc", "coverage"}
