"""The fixture `bot infer --output` writes beside an inferred rule (bot.upstream.fixture): one launch that breaks
the rule, under the conditions it runs in."""

from __future__ import annotations

from bot.upstream.fixture import fixture_for


def test_a_relation_fixture_whose_condition_sets_one_of_its_sides_breaks_it_once() -> None:
    rule = {"id": "x", "relation": {"left": ["actor.strategy"], "op": "==", "right": "critic.strategy"},
            "when": {"value": {"actor.strategy": "fsdp2"}}}
    fixture = fixture_for(rule)
    assert fixture is not None
    assert fixture.source == "python3 -m app.main \\\n    actor.strategy=fsdp2 \\\n    critic.strategy=not_fsdp2\n"
    assert fixture.findings == "2 manual\n"
