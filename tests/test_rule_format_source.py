"""The rule format is declared once (bot.rules.schema): the published schema file is it written out, and the
loader allows exactly the fields it declares."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bot.errors import UserError
from bot.rules import fields
from bot.rules.schema import SCHEMA, fields_of, schema_text
from tests.conftest import ROOT


def test_the_committed_schema_is_the_generated_one() -> None:
    assert (ROOT / "schema" / "rule.schema.json").read_text(encoding="utf-8") == schema_text()


def test_the_loader_reads_its_fields_from_the_schema() -> None:
    assert set(SCHEMA["properties"]) == fields.TOP_FIELDS
    for section, allowed in [("trigger", fields.TRIGGER_FIELDS), ("when", fields.WHEN_FIELDS),
                             ("match", fields.MATCH_FIELDS), ("fix", fields.FIX_FIELDS),
                             ("ensure", fields.ENSURE_FIELDS), ("relation", fields.RELATION_FIELDS)]:
        assert allowed == fields_of(section), section


def test_the_schema_text_is_json_of_the_declaration() -> None:
    assert json.loads(schema_text()) == SCHEMA


def _field_names(node: object) -> set[str]:
    """Every property name the schema declares, at any depth (sections, their items, the shared definitions)."""
    if isinstance(node, list):
        return set().union(*(_field_names(item) for item in node)) if node else set()
    if not isinstance(node, dict):
        return set()
    names = set(node.get("properties") or {})
    return names.union(*(_field_names(value) for value in node.values()))


def test_the_rule_reference_documents_every_field_the_schema_declares() -> None:
    doc = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    names = _field_names(SCHEMA)
    assert len(names) > 30
    assert [name for name in sorted(names) if not re.search(rf"\b{re.escape(name)}\b", doc)] == []


def test_the_loader_takes_exactly_the_values_the_schema_allows(tmp_path: Path) -> None:
    """A severity or commit type is accepted by the loader exactly when the published schema allows it."""
    from bot.rules.loader import load_rules

    body = "match: {key: a.b, value: [false]}\nfix: {set: true}\n"
    for field, allowed in [("severity", SCHEMA["properties"]["severity"]["enum"]),
                           ("type", SCHEMA["properties"]["type"]["enum"])]:
        for value in sorted({*allowed, "error", "warning", "note", "fix", "chore", "refactor", "feat", "fatal"}):
            folder = tmp_path / f"{field}-{value}"
            folder.mkdir()
            (folder / "r.yaml").write_text(f"id: r\ntitle: t\n{field}: {value}\n{body}", encoding="utf-8")
            try:
                load_rules([folder])
                accepted = True
            except UserError:
                accepted = False
            assert accepted == (value in allowed), (field, value)
