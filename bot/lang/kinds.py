"""Which kind of source a file is, from its path: the kind decides how launches are read from it."""

from __future__ import annotations

import os

SHELL = "shell"
MARKDOWN = "markdown"
RST = "rst"
NOTEBOOK = "notebook"
WORKFLOW = "workflow"
YAML = "yaml"
PYTHON = "python"

KINDS = (SHELL, MARKDOWN, RST, NOTEBOOK, WORKFLOW, YAML, PYTHON)
SHELL_FAMILY = (SHELL, MARKDOWN, RST, NOTEBOOK, WORKFLOW)  # read through tree-sitter-bash

_BY_SUFFIX = {".md": MARKDOWN, ".markdown": MARKDOWN, ".rst": RST, ".ipynb": NOTEBOOK, ".py": PYTHON,
              ".yaml": YAML, ".yml": YAML}


def kind_for_path(path: str, suffix: str | None = None) -> str | None:
    """The kind a file's name says; None when only its content can tell (a shebang) or it is not read.

    `suffix`: the path's lower-cased suffix, when the caller already has it.
    """
    kind = _BY_SUFFIX.get(os.path.splitext(path)[1].lower() if suffix is None else suffix)
    if kind == YAML and (path.startswith(".github/workflows/") or "/.github/workflows/" in path):
        return WORKFLOW
    return kind
