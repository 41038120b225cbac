"""Load rule files (format v1) and validate them strictly.

Every problem is a UserError naming the file, the field and what was expected, so a bad rule
stops the run with exit code 2 before any file is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from bot.errors import UserError
from bot.rules.globs import Glob, GlobError, key_glob, path_glob
from bot.rules.model import PREFIXES, RELATION_OPS, EnsureEntry, Fix, Relation, Rule

RULE_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
KEY_PATH = re.compile(r"^[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)*$")
TOP_FIELDS = {
    "id", "title", "description", "upstream", "severity", "enabled", "files", "trigger",
    "when", "match", "fix", "ensure", "ensure_mode", "relation",
}
RELATION_FIELDS = {"left", "op", "right", "value", "message"}
TRIGGER_FIELDS = {"paths", "text"}
WHEN_FIELDS = {"sets", "unset", "entrypoint", "config", "value"}
MATCH_FIELDS = {"key", "exclude", "value", "value_not", "prefix"}
FIX_FIELDS = {"set", "rename", "map", "remove", "prefix"}
ENSURE_FIELDS = {"key", "value", "prefix", "if_sets"}


def bundled_rules_dir() -> Path:
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "_bundled_rules", here.parent / "rules"):
        if candidate.is_dir():
            return candidate
    raise UserError(f"bundled rules not found next to {here}")


class _Checker:
    """Field access with errors that say `file: field: expected ...`."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, expected: str) -> UserError:
        return UserError(f"{self.path}: {where}: {expected}")

    def mapping(self, value: Any, where: str, allowed: set[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"expected a mapping, got {_kind(value)}")
        for key in value:
            if not isinstance(key, str) or key not in allowed:
                raise self.fail(
                    f"{where}.{key}" if where else str(key),
                    f"unknown field; expected one of {', '.join(sorted(allowed))}",
                )
        return value

    def string(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(where, f"expected a non-empty string, got {_kind(value)}")
        return value

    def boolean(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, f"expected true or false, got {_kind(value)}")
        return value

    def strings(self, value: Any, where: str) -> list[str]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value:
            raise self.fail(where, f"expected a list of strings, got {_kind(value)}")
        for i, item in enumerate(value):
            self.string(item, f"{where}[{i}]")
        return list(value)

    def key_globs(self, value: Any, where: str) -> tuple[Glob, ...]:
        out = []
        for i, pattern in enumerate(self.strings(value, where)):
            try:
                out.append(key_glob(pattern))
            except GlobError as exc:
                raise self.fail(f"{where}[{i}]", f"expected a key glob: {exc}") from None
        return tuple(out)

    def path_globs(self, value: Any, where: str) -> tuple[Glob, ...]:
        out = []
        for i, pattern in enumerate(self.strings(value, where)):
            try:
                out.append(path_glob(pattern))
            except GlobError as exc:
                raise self.fail(f"{where}[{i}]", f"expected a path glob: {exc}") from None
        return tuple(out)

    def scalar(self, value: Any, where: str) -> Any:
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, list) and all(
            v is None or isinstance(v, (bool, int, float, str)) for v in value
        ):
            return tuple(value)
        raise self.fail(where, f"expected a scalar value (bool, number, string, null), got {_kind(value)}")

    def values(self, value: Any, where: str) -> tuple[Any, ...]:
        if not isinstance(value, list) or not value:
            raise self.fail(where, f"expected a non-empty list of values, got {_kind(value)}")
        return tuple(self.scalar(v, f"{where}[{i}]") for i, v in enumerate(value))

    def prefix(self, value: Any, where: str) -> str:
        if value not in PREFIXES:
            raise self.fail(where, f"expected one of \"\", \"+\", \"++\", \"~\", got {value!r}")
        return str(value)


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value!r}" if value.strip() else "an empty string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _load_yaml(path: Path) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = YAML(typ="safe", pure=True)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read rule file: {exc}") from None
    try:
        return yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark
        place = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "somewhere"
        raise UserError(f"{path}: {place}: expected valid YAML: {exc.problem}") from None
    except YAMLError as exc:
        raise UserError(f"{path}: expected valid YAML: {exc}") from None


def parse_rule(data: Any, path: Path) -> Rule:
    c = _Checker(path)
    doc = c.mapping(data, "", TOP_FIELDS)
    rule_id = c.string(doc.get("id", path.stem), "id")
    if not RULE_ID.match(rule_id):
        raise c.fail("id", f"expected lower-case letters, digits, '.', '_' or '-', got {rule_id!r}")
    if rule_id != path.stem:
        raise c.fail("id", f"expected the file name's stem {path.stem!r}, got {rule_id!r}")
    severity = doc.get("severity", "error")
    if severity not in ("error", "warning"):
        raise c.fail("severity", f"expected error or warning, got {severity!r}")

    trigger = c.mapping(doc.get("trigger", {}), "trigger", TRIGGER_FIELDS)
    when = c.mapping(doc.get("when", {}), "when", WHEN_FIELDS)
    match = c.mapping(doc["match"], "match", MATCH_FIELDS) if "match" in doc else {}
    if match and "key" not in match:
        raise c.fail("match.key", "expected a list of key globs (required when match is given)")

    fix = _parse_fix(c, doc["fix"]) if "fix" in doc else None
    if fix is not None and not match:
        raise c.fail("fix", "expected a match section: fix edits the overrides that match selects")
    ensure = _parse_ensure(c, doc["ensure"]) if "ensure" in doc else ()
    ensure_mode = doc.get("ensure_mode", "each")
    if ensure_mode not in ("each", "together"):
        raise c.fail("ensure_mode", f"expected each or together, got {ensure_mode!r}")
    relation = _parse_relation(c, doc["relation"]) if "relation" in doc else None
    if not match and not ensure and relation is None:
        raise c.fail("", "expected a match, an ensure or a relation section: this rule would never fire")

    return Rule(
        id=rule_id,
        title=c.string(doc.get("title", rule_id), "title"),
        description=str(doc.get("description", "")).strip(),
        severity=severity,
        enabled=c.boolean(doc.get("enabled", True), "enabled"),
        source=str(path),
        upstream=c.string(doc["upstream"], "upstream") if "upstream" in doc else None,
        files=c.path_globs(doc["files"], "files") if "files" in doc else (),
        trigger_paths=c.path_globs(trigger["paths"], "trigger.paths") if "paths" in trigger else (),
        trigger_text=tuple(c.strings(trigger["text"], "trigger.text")) if "text" in trigger else (),
        when_sets=c.key_globs(when["sets"], "when.sets") if "sets" in when else (),
        when_unset=c.key_globs(when["unset"], "when.unset") if "unset" in when else (),
        when_config=tuple(c.strings(when["config"], "when.config")) if "config" in when else (),
        when_value=_when_value(c, when["value"]) if "value" in when else (),
        when_entrypoint=c.key_globs(when["entrypoint"], "when.entrypoint")
        if "entrypoint" in when
        else (),
        match_key=c.key_globs(match["key"], "match.key") if match else (),
        match_exclude=c.key_globs(match["exclude"], "match.exclude") if "exclude" in match else (),
        match_value=c.values(match["value"], "match.value") if "value" in match else None,
        match_value_not=c.values(match["value_not"], "match.value_not")
        if "value_not" in match
        else None,
        match_prefix=tuple(
            c.prefix(p, f"match.prefix[{i}]")
            for i, p in enumerate(_as_list(c, match["prefix"], "match.prefix"))
        )
        if "prefix" in match
        else None,
        fix=fix,
        ensure=ensure,
        ensure_together=ensure_mode == "together",
        relation=relation,
    )


def _parse_relation(c: _Checker, data: Any) -> Relation:
    doc = c.mapping(data, "relation", RELATION_FIELDS)
    if "left" not in doc or "op" not in doc:
        raise c.fail("relation", "expected left (key globs) and op")
    if doc["op"] not in RELATION_OPS:
        raise c.fail("relation.op", f"expected one of {', '.join(RELATION_OPS)}, got {doc['op']!r}")
    if ("right" in doc) == ("value" in doc):
        raise c.fail("relation", "expected exactly one of right (a key) and value (a constant)")
    right = c.string(doc["right"], "relation.right") if "right" in doc else None
    if right is not None and not KEY_PATH.match(right):
        raise c.fail("relation.right", f"expected a dotted key, got {right!r}")
    value = doc.get("value")
    if "value" in doc and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise c.fail("relation.value", f"expected a number, got {_kind(value)}")
    return Relation(c.key_globs(doc["left"], "relation.left"), str(doc["op"]), right, value,
                    str(doc.get("message", "")))


def _when_value(c: _Checker, data: Any) -> tuple[tuple[str, Any], ...]:
    if not isinstance(data, dict) or not data:
        raise c.fail("when.value", f"expected a mapping of dotted key to value, got {_kind(data)}")
    out = []
    for key, value in data.items():
        if not isinstance(key, str) or not KEY_PATH.match(key):
            raise c.fail(f"when.value.{key}", "expected a dotted key without globs")
        out.append((key, c.scalar(value, f"when.value.{key}")))
    return tuple(out)


def _as_list(c: _Checker, value: Any, where: str) -> list[Any]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not value:
        raise c.fail(where, f"expected a list, got {_kind(value)}")
    return value


def _parse_fix(c: _Checker, data: Any) -> Fix:
    fix = c.mapping(data, "fix", FIX_FIELDS)
    if not fix:
        raise c.fail("fix", "expected at least one of set, rename, map, remove, prefix")
    rename = None
    if "rename" in fix:
        rename = c.string(fix["rename"], "fix.rename")
        if not KEY_PATH.match(rename):
            raise c.fail("fix.rename", f"expected a key segment or a dotted key, got {rename!r}")
    pairs: tuple[tuple[Any, Any], ...] = ()
    if "map" in fix:
        raw = fix["map"]
        if not isinstance(raw, dict) or not raw:
            raise c.fail("fix.map", f"expected a non-empty mapping of old value to new, got {_kind(raw)}")
        pairs = tuple(
            (c.scalar(k, "fix.map"), c.scalar(v, f"fix.map.{k}")) for k, v in raw.items()
        )
    remove = c.boolean(fix["remove"], "fix.remove") if "remove" in fix else False
    if remove and len(fix) > 1:
        raise c.fail("fix.remove", "expected remove alone: it cannot combine with set, rename, map or prefix")
    if "set" in fix and "map" in fix:
        raise c.fail("fix.set", "expected set or map, not both")
    if "remove" in fix and not remove:
        raise c.fail("fix.remove", "expected true (leave the field out otherwise)")
    return Fix(
        set=c.scalar(fix["set"], "fix.set") if "set" in fix else None,
        has_set="set" in fix,
        rename=rename,
        map=pairs,
        remove=remove,
        prefix=c.prefix(fix["prefix"], "fix.prefix") if "prefix" in fix else None,
    )


def _parse_ensure(c: _Checker, data: Any) -> tuple[EnsureEntry, ...]:
    if not isinstance(data, list) or not data:
        raise c.fail("ensure", f"expected a non-empty list of entries, got {_kind(data)}")
    out = []
    for i, raw in enumerate(data):
        where = f"ensure[{i}]"
        entry = c.mapping(raw, where, ENSURE_FIELDS)
        if "key" not in entry or "value" not in entry:
            raise c.fail(where, "expected both key and value")
        key = c.string(entry["key"], f"{where}.key")
        if not KEY_PATH.match(key):
            raise c.fail(f"{where}.key", f"expected a dotted key without globs, got {key!r}")
        raw_prefix = entry.get("prefix", "")
        prefix = "auto" if raw_prefix == "auto" else c.prefix(raw_prefix, f"{where}.prefix")
        if prefix == "~":
            raise c.fail(f"{where}.prefix", "expected \"\", \"+\", \"++\" or auto: ensure adds a value")
        out.append(
            EnsureEntry(
                key=key,
                value=c.scalar(entry["value"], f"{where}.value"),
                prefix=prefix,
                if_sets=c.key_globs(entry["if_sets"], f"{where}.if_sets") if "if_sets" in entry else (),
            )
        )
    return tuple(out)


def load_rule_file(path: Path) -> Rule:
    return parse_rule(_load_yaml(path), path)


def rule_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        raise UserError(f"{directory}: expected a directory of rule files (*.yaml)")
    return sorted([*directory.glob("*.yaml"), *directory.glob("*.yml")])


def load_rules(
    extra_dirs: Sequence[Path] = (),
    *,
    include_bundled: bool = True,
    only: Iterable[str] = (),
    enable: Iterable[str] = (),
) -> list[Rule]:
    """Bundled rules, then each --rules directory; ids must be unique across all of them."""
    dirs = ([bundled_rules_dir()] if include_bundled else []) + list(extra_dirs)
    rules: dict[str, Rule] = {}
    for directory in dirs:
        for path in rule_files(directory):
            rule = load_rule_file(path)
            if rule.id in rules:
                raise UserError(
                    f"{path}: id: expected a unique rule id, {rule.id!r} is also defined in "
                    f"{rules[rule.id].source}"
                )
            rules[rule.id] = rule
    only_ids, enable_ids = list(only), list(enable)
    for rule_id in [*only_ids, *enable_ids]:
        if rule_id not in rules:
            known = ", ".join(sorted(rules)) or "none"
            raise UserError(f"--rule/--enable {rule_id}: no such rule; known rules: {known}")
    selected = [r for r in rules.values() if not only_ids or r.id in only_ids]
    out = []
    for rule in selected:
        enabled = rule.enabled or rule.id in enable_ids or rule.id in only_ids
        out.append(_with_enabled(rule, enabled))
    return out


def _with_enabled(rule: Rule, enabled: bool) -> Rule:
    from dataclasses import replace

    return rule if rule.enabled == enabled else replace(rule, enabled=enabled)
