"""The kinds of source the bot reads (their suffixes and front ends are registered in bot.lang)."""

from __future__ import annotations

SHELL = "shell"
MARKDOWN = "markdown"
RST = "rst"
NOTEBOOK = "notebook"
WORKFLOW = "workflow"
YAML = "yaml"
PYTHON = "python"
MAKEFILE = "makefile"

SHELL_FAMILY = (SHELL, MARKDOWN, RST, NOTEBOOK, WORKFLOW, MAKEFILE)  # read through tree-sitter-bash
