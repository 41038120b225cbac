"""Which rules a file's parse errors can hide something from.

A region its parser could not read may hold a launch, an override, or a definition an override
reads; then no rule can be sure of the file (the front end says so: `near_launch`). A region away
from all of those can only hide what its own text holds: a rule is reached when the region contains
the rule's literal tokens (a match rule), or any override-looking text (a rule without tokens).
Rules a region does not reach are not held back by it (publishing still closes their pull
requests); the file is reported as partly parsed all the same.
"""

from __future__ import annotations

import re

from bot.ir import ErrorRegion
from bot.rules.model import Rule

_OVERRIDE_LIKE = re.compile(rb"[\w\]]\.[\w.\[\]]+=|=\(|^\s*[+~]", re.MULTILINE)


def rules_reached(regions: list[ErrorRegion], rules: list[Rule]) -> set[str]:
    """Ids of the rules whose result the parse errors may have changed."""
    reached: set[str] = set()
    for region in regions:
        if region.near_launch:
            return {r.id for r in rules}
        overrides = bool(_OVERRIDE_LIKE.search(region.text))
        for rule in rules:
            tokens = rule.prefilter_tokens()
            if (tokens is None and overrides) or (tokens is not None and any(t in region.text for t in tokens)):
                reached.add(rule.id)
    return reached
