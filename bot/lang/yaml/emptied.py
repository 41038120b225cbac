"""Whether edits leave a mapping of a YAML document empty (`old:` with nothing under it: null to Hydra).

Where a fix is planned, taking the last key of a mapping is refused, counting what the fixes planned
before it (of any rule) take (bot.lang.yaml.edits); this check holds it for the edits as applied, so no
combination of fixes leaves an emptied header behind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node


def emptied(before: bytes, after: bytes) -> str | None:
    """Why the edited document cannot be trusted: a mapping that held keys before is empty after (None: none is)."""
    from bot.lang.yaml.config import YamlProblem, config_documents

    try:
        old, new = config_documents(before), config_documents(after)
    except YamlProblem:
        return None  # the parse-error check says so
    for was, now in zip(old, new):
        filled = _paths(was, empty=False)
        gone = next((path for path in _paths(now, empty=True) if path in filled), None)
        if gone is not None:
            return f"the edits leave {'.'.join(gone)} empty"
    return None


def _paths(root: Node, empty: bool) -> set[tuple[str, ...]]:
    """The key paths whose value is a mapping holding keys (`empty`: a null or `{}` value instead)."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode

    found: set[tuple[str, ...]] = set()
    todo: list[tuple[Node, tuple[str, ...]]] = [(root, ())]
    seen: set[int] = set()
    while todo:
        node, path = todo.pop()
        if not isinstance(node, MappingNode) or id(node) in seen:
            continue
        seen.add(id(node))
        for key, value in node.value:
            if not isinstance(key, ScalarNode):
                continue
            here = (*path, str(key.value))
            if isinstance(value, MappingNode):
                if bool(value.value) != empty:
                    found.add(here)
                todo.append((value, here))
            elif empty and isinstance(value, ScalarNode) and value.value in ("", "~", "null") and not value.style:
                found.add(here)
    return found
