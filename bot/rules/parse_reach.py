"""Which rules a script's parse errors can hide something from.

A region tree-sitter-bash could not read may hold a launch, an override, or a definition an
override reads; then no rule can be sure of the file. A region away from every launch and every
definition launches read, holding no launch-like word, can only hide what its own text holds: a
rule is reached when the region contains the rule's literal tokens (a match rule), or any
override-looking text (a rule without tokens). Rules a region does not reach are not held back
by it (publishing still closes their pull requests); the file is reported as partly parsed all
the same.
"""

from __future__ import annotations

import re

from bot.lang.shell.parse import ShellScript
from bot.rules.model import Rule

_LAUNCH_LIKE = re.compile(rb"python|torchrun|\buv\b|deepspeed|accelerate|\bsrun\b|mpirun|\bray\b|\.py\b|\.sh\b"
                          rb"|\[[@*]\]|\$\{?\w*(?:PYTHON|LAUNCH|CMD|RUN|ENTRY)")
_OVERRIDE_LIKE = re.compile(rb"[\w\]]\.[\w.\[\]]+=|=\(|^\s*[+~]", re.MULTILINE)


def rules_reached(script: ShellScript, rules: list[Rule]) -> set[str]:
    """Ids of the rules whose result the script's parse errors may have changed."""
    if not script.errors:
        return set()
    lines = script.error_lines()
    every = {r.id for r in rules}
    if lines & _launch_lines(script):
        return every
    text = script.src.split(b"\n")
    region = b"\n".join(text[line - 1] for line in sorted(lines) if 0 < line <= len(text))
    if _LAUNCH_LIKE.search(region):
        return every
    overrides = bool(_OVERRIDE_LIKE.search(region))
    reached = set()
    for rule in rules:
        tokens = rule.prefilter_tokens()
        if (tokens is None and overrides) or (tokens is not None and any(t in region for t in tokens)):
            reached.add(rule.id)
    return reached


def _launch_lines(script: ShellScript) -> set[int]:
    """Lines of every launch command and of every definition its overrides are read through."""
    lines: set[int] = set()
    for launch in script.launches:
        node = launch.site.node
        lines.update(range(int(node.start_point[0]) + 1, int(node.end_point[0]) + 2))
        for override in launch.overrides:
            for piece in override.field.pieces:
                for via in piece.via:
                    span = via.definition.span
                    if span is not None:
                        first = script.src.count(b"\n", 0, span.start) + 1
                        lines.update(range(first, first + script.src.count(b"\n", span.start, span.end) + 1))
    return lines

