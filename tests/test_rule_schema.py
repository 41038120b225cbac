"""The published JSON schema and the loader accept exactly the same fields."""

from __future__ import annotations

import json

from bot.rules import loader
from tests.conftest import ROOT

SCHEMA = json.loads((ROOT / "schema" / "rule.schema.json").read_text())


def test_schema_fields_match_the_loader() -> None:
    props = SCHEMA["properties"]
    assert set(props) == loader.TOP_FIELDS
    assert set(props["trigger"]["properties"]) == loader.TRIGGER_FIELDS
    assert set(props["when"]["properties"]) == loader.WHEN_FIELDS
    assert set(props["match"]["properties"]) == loader.MATCH_FIELDS
    assert set(props["fix"]["properties"]) == loader.FIX_FIELDS
    assert set(props["ensure"]["items"]["properties"]) == loader.ENSURE_FIELDS
