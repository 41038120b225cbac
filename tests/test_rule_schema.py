"""The published JSON schema and the loader accept exactly the same fields."""

from __future__ import annotations

import json

from bot.rules import fields
from tests.conftest import ROOT

SCHEMA = json.loads((ROOT / "schema" / "rule.schema.json").read_text())


def test_schema_fields_match_the_loader() -> None:
    props = SCHEMA["properties"]
    assert set(props) == fields.TOP_FIELDS
    assert set(props["trigger"]["properties"]) == fields.TRIGGER_FIELDS
    assert set(props["when"]["properties"]) == fields.WHEN_FIELDS
    assert set(props["match"]["properties"]) == fields.MATCH_FIELDS
    assert set(props["fix"]["properties"]) == fields.FIX_FIELDS
    assert set(props["ensure"]["items"]["properties"]) == fields.ENSURE_FIELDS
