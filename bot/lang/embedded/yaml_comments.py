"""Overrides in a YAML config's comments: `# python train.py experiment=x`, `#   trainer.max_epochs=10`.

A config's header often says how to run it (lightning-hydra's experiment configs, a recipe's usage
lines); those lines are read as a script's commented-out overrides are (bot.lang.embedded.literals):
COMMENT groups, notes or fixes per the rule's `comments`. A comment line is one whose first non-blank
is `#` outside a scalar that spans lines (a block scalar's `# x` is text).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.lang.embedded import literals
from bot.lang.front import Unit

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node


def comment_units(data: bytes) -> list[Unit]:
    """The unit of the config's commented-out overrides; [] when it has none (or is not YAML)."""
    from bot.lang.embedded.docs import _lines
    from bot.lang.yaml.config import YamlProblem, config_documents

    try:
        roots = config_documents(data)
    except YamlProblem:
        return []
    inside = _text_lines(roots)
    lines = _lines(data)
    starts = set()
    for number, (start, end) in enumerate(lines):
        stripped = data[start:end].lstrip(b" \t")
        if stripped.startswith(b"#") and number not in inside:
            starts.add(end - len(stripped))
    groups = literals.literal_groups(data, literals.comment_literals(data, lines, starts), [], [])
    return [Unit(groups, literals.realise)] if groups else []


def _text_lines(roots: list[Node]) -> set[int]:
    """The lines (0-based) after the first of every scalar that spans lines: text, not comments."""
    from ruamel.yaml.nodes import ScalarNode

    from bot.lang.yaml.document import all_nodes

    return {line for node in all_nodes(roots) if isinstance(node, ScalarNode)
            for line in range(node.start_mark.line + 1, node.end_mark.line + 1)}
