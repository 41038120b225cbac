"""Every fixture under tests/rules/<rule-id>/ checked four ways (see bot.engine.fixtures)."""

from __future__ import annotations

import pytest

from bot.engine.fixtures import Case, collect_cases, run_case
from bot.rules.loader import load_rules
from tests.conftest import RULE_DEFS, TESTS

RULES = {rule.id: rule for rule in load_rules([RULE_DEFS])}
CASES = collect_cases(TESTS / "rules")


def test_every_rule_has_fixtures() -> None:
    covered = {case.rule_id for case in CASES}
    assert set(RULES) <= covered, f"rules without fixtures: {sorted(set(RULES) - covered)}"


def test_every_before_has_an_after() -> None:
    missing = [case.label for case in CASES if case.expected is not None and not case.expected.exists()]
    assert not missing


@pytest.mark.parametrize("case", CASES, ids=[case.label for case in CASES])
def test_fixture(case: Case) -> None:
    result = run_case(case, RULES)
    assert result.ok, "\n".join(result.problems)
