"""The rule format, declared once: the JSON schema every rule file must satisfy, as data. The loader's field
sets (bot.rules.fields) are read from it, and schema/rule.schema.json is this, written out
(`python -m bot.rules.schema > schema/rule.schema.json`; tests/test_rule_format_source.py holds them equal).
"""

from __future__ import annotations

import json
from typing import Any

from bot.rules.model import CHANGE_TYPES, PREFIXES, SEVERITIES

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://github.com/followup-bot/followup-bot/schema/rule.schema.json",
    "title": "followup-bot rule, format 1 or 2 (a migration)",
    "type": "object",
    "additionalProperties": False,
    "required": ["id"],
    "anyOf": [
        {"required": ["match"]},
        {"required": ["ensure"]},
        {"required": ["relation"]},
        {"required": ["fix"], "properties": {"fix": {"required": ["entrypoint"]}}},
        {"required": ["migration"]},
    ],
    "$defs": {
        "keyGlobs": {
            "oneOf": [
                {"type": "string", "minLength": 1},
                {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
            ],
            "description": "Dotted key globs: * is one segment, ** any number, {a,b} alternatives.",
        },
        "pathGlobs": {
            "oneOf": [
                {"type": "string", "minLength": 1},
                {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
            ]
        },
        "scalar": {"type": ["boolean", "number", "string", "null"]},
        "value": {"oneOf": [{"$ref": "#/$defs/scalar"}, {"type": "array", "items": {"$ref": "#/$defs/scalar"}}]},
        "prefix": {"enum": list(PREFIXES)},  # the prefixes the model reads
    },
    "properties": {
        "format": {
            "enum": [1, 2],
            "default": 1,
            "description": "2: the rule is a migration (`migration`), several steps under one id, applied, judged "
            "and published together.",
        },
        "id": {
            "type": "string",
            "pattern": "^[a-z0-9][a-z0-9._-]*$",
            "description": "Must equal the file name's stem.",
        },
        "title": {"type": "string", "minLength": 1},
        "description": {"type": "string", "description": "Markdown, shown in reports and pull request bodies."},
        "upstream": {"type": "string", "minLength": 1, "examples": ["verl-project/verl#4528"]},
        "severity": {"enum": list(SEVERITIES), "default": "error"},
        "type": {
            "enum": list(CHANGE_TYPES),
            "description": "The follow-up pull request's commit type: fix (a launch fails "
            "without the edit; the default for severity error) or chore (a "
            "change in behaviour nothing requires; the default otherwise). Rules "
            "of different types never share a pull request.",
        },
        "enabled": {"type": "boolean", "default": True},
        "files": {"$ref": "#/$defs/pathGlobs"},
        "trigger": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "paths": {"$ref": "#/$defs/pathGlobs"},
                "text": {"oneOf": [{"type": "string"}, {"type": "array", "minItems": 1, "items": {"type": "string"}}]},
            },
        },
        "when": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "sets": {"$ref": "#/$defs/keyGlobs"},
                "unset": {"$ref": "#/$defs/keyGlobs", "description": "Extension: the launch sets none of these."},
                "entrypoint": {"$ref": "#/$defs/keyGlobs"},
                "imports": {
                    "oneOf": [
                        {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$"},
                        {"type": "array", "minItems": 1, "items": {
                            "type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$"}},
                    ],
                    "description": "Extension: the launch's entry point loads one of these dotted modules through "
                    "its import statements, read statically in the repository (a check only some apps run).",
                },
                "config": {
                    "oneOf": [
                        {"type": "string", "minLength": 1},
                        {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
                    ],
                    "description": "Extension: the launch's composed config "
                    "is one of these, or inherits one through "
                    "defaults lists.",
                },
                "value": {
                    "type": "object",
                    "minProperties": 1,
                    "additionalProperties": {"$ref": "#/$defs/value"},
                    "description": "Extension: composed values (from an "
                    "override or the YAML) that must hold, by "
                    "dotted key.",
                },
            },
        },
        "match": {
            "type": "object",
            "additionalProperties": False,
            "required": ["key"],
            "properties": {
                "key": {"$ref": "#/$defs/keyGlobs"},
                "exclude": {"$ref": "#/$defs/keyGlobs"},
                "value": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/value"}},
                "value_not": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/value"}},
                "item": {
                    "type": "array",
                    "minItems": 1,
                    "items": {"$ref": "#/$defs/scalar"},
                    "description": "Matches a scalar equal to one of these, or a list holding such an element.",
                },
                "prefix": {
                    "oneOf": [
                        {"$ref": "#/$defs/prefix"},
                        {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/prefix"}},
                    ]
                },
            },
        },
        "fix": {
            "type": "object",
            "additionalProperties": False,
            "minProperties": 1,
            "properties": {
                "set": {"$ref": "#/$defs/value"},
                "rename": {
                    "type": "string",
                    "pattern": "^([A-Za-z0-9_\\-]+|\\*\\*?)(\\.([A-Za-z0-9_\\-]+|\\*\\*?))*$",
                    "description": "A new last segment, a dotted key, or a dotted key whose * and ** segments take "
                    "what the match key's matched, in order (a subtree moved).",
                },
                "map": {"type": "object", "minProperties": 1},
                "remove": {"const": True},
                "drop_if_default": {
                    "type": "boolean",
                    "default": False,
                    "description": "With rename: an override whose value equals the new key's default in the "
                    "launch's composed config is removed instead of renamed (a launch the config cannot be "
                    "composed for is renamed).",
                },
                "prefix": {"$ref": "#/$defs/prefix"},
                "map_items": {
                    "type": "object",
                    "minProperties": 1,
                    "description": "List elements: old element -> new "
                    "element, edited in place (a duplicate "
                    "is kept once).",
                },
                "remove_items": {
                    "type": "array",
                    "minItems": 1,
                    "items": {"$ref": "#/$defs/scalar"},
                    "description": "List elements to drop; a list left empty is manual.",
                },
                "entrypoint": {
                    "type": "object",
                    "minProperties": 1,
                    "additionalProperties": {
                        "type": "string",
                        "pattern": "^[A-Za-z_][A-Za-z0-9_\\-]*(\\.[A-Za-z_][A-Za-z0-9_\\-]*)*$",
                    },
                    "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_\\-]*(\\.[A-Za-z_][A-Za-z0-9_\\-]*)*$"},
                    "description": "Launches: old dotted module prefix -> "
                    "new; the longest prefix at a dot "
                    "boundary wins. Alone in fix; the rule "
                    "has no match.",
                },
            },
        },
        "ensure_mode": {
            "enum": ["each", "together"],
            "default": "each",
            "description": "Extension: together treats the entries as one set; a "
            "conflicting value makes the launch manual.",
        },
        "comments": {
            "enum": ["note", "fix", "off"],
            "description": "What the rule does to overrides in comments (`# key=value`) and "
            "prose literals: note (report, never fail --check), fix (also "
            "rewrite them, keeping `#` and backticks) or off. Default: fix, "
            "except note for a remove fix and, in prose, for a set fix.",
        },
        "ensure": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["key", "value"],
                "properties": {
                    "key": {"type": "string", "pattern": "^[A-Za-z0-9_\\-]+(\\.[A-Za-z0-9_\\-]+)*$"},
                    "value": {"$ref": "#/$defs/value"},
                    "prefix": {
                        "enum": ["", "+", "++", "auto"],
                        "description": "auto: plain where the launch's composed config has the key, + where it has not",
                    },
                    "if_sets": {"$ref": "#/$defs/keyGlobs"},
                },
            },
        },
        "migration": {
            "type": "object",
            "additionalProperties": False,
            "minProperties": 1,
            "description": "Format 2: a whole migration, its steps under this rule's id (`when`, `files` and "
            "`comments` hold for every step). Each of moves, values, removals, additions and entrypoints is "
            "shorthand for steps.",
            "properties": {
                "moves": {
                    "type": "object",
                    "minProperties": 1,
                    "additionalProperties": {"type": "string", "minLength": 1},
                    "description": "Old key glob -> new key: a dotted key, the old key's new last segment, or a key "
                    "whose * and ** segments take what the old key's matched, in order (a subtree moved).",
                },
                "drop_if_default": {
                    "type": "boolean",
                    "default": False,
                    "description": "Every move drops an override whose value is the new key's default (fix's "
                    "drop_if_default).",
                },
                "values": {
                    "type": "object",
                    "minProperties": 1,
                    "additionalProperties": {"type": "object", "minProperties": 1},
                    "description": "Key glob -> {old value: new value}.",
                },
                "removals": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "oneOf": [
                            {"type": "string", "minLength": 1},
                            {
                                "type": "object",
                                "additionalProperties": False,
                                "required": ["key"],
                                "properties": {
                                    "key": {"$ref": "#/$defs/keyGlobs"},
                                    "value": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/value"}},
                                    "value_not": {"type": "array", "minItems": 1,
                                                  "items": {"$ref": "#/$defs/value"}},
                                },
                            },
                        ]
                    },
                    "description": "Key globs whose overrides are removed, or {key, value | value_not}.",
                },
                "additions": {"$ref": "#/properties/ensure", "description": "As ensure: what every launch sets."},
                "entrypoints": {"$ref": "#/properties/fix/properties/entrypoint"},
                "steps": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "minProperties": 1,
                        "properties": {name: {"$ref": f"#/properties/{name}"}
                                       for name in ("when", "match", "fix", "ensure", "ensure_mode", "relation")},
                    },
                    "description": "Steps written as format 1's sections; a step's when replaces the rule's.",
                },
            },
        },
        "relation": {
            "description": "Extension: the value of a left key must stand in op to a "
            "sibling (or dotted) right key's value, or to a constant value; "
            "checked where both are literals, reported for a person.",
            "type": "object",
            "additionalProperties": False,
            "required": ["left", "op"],
            "properties": {
                "left": {"$ref": "#/$defs/keyGlobs"},
                "op": {"enum": [">=", ">", "<=", "<", "==", "!=", "multiple_of"]},
                "right": {"type": "string", "pattern": "^[A-Za-z0-9_\\-]+(\\.[A-Za-z0-9_\\-]+)*$"},
                "value": {"type": "number"},
                "message": {"type": "string"},
            },
            "oneOf": [{"required": ["right"]}, {"required": ["value"]}],
        },
    },
}


def fields_of(*path: str) -> set[str]:
    """The field names the schema allows at `path` (`fields_of("fix")`; `fields_of()` the top level)."""
    node = SCHEMA
    for step in path:
        node = node["properties"][step]
        node = node.get("items", node)  # a list of mappings (`ensure`): its items' fields
    return set(node["properties"])


def schema_text() -> str:
    """schema/rule.schema.json, byte for byte."""
    return json.dumps(SCHEMA, indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    print(schema_text(), end="")
