"""Load rule files (format 1, and format 2 migrations) and validate them strictly.

Every problem is a UserError naming the file, the field and what was expected, so a bad rule
stops the run with exit code 2 before any file is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from bot.errors import UserError
from bot.rules.fields import MATCH_FIELDS, TOP_FIELDS, TRIGGER_FIELDS, WHEN_FIELDS, FieldChecker, kind
from bot.rules.migration import migration_steps
from bot.rules.model import CHANGE_TYPES, SEVERITIES, Rule
from bot.rules.moves import move_problem
from bot.rules.sections import list_items, parse_ensure, parse_fix, parse_relation, when_value

RULE_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
# the id ends the branch name (<prefix><id>): what git check-ref-format refuses in a name's last part
_NOT_A_BRANCH = re.compile(r"\.\.|\.lock$|\.$")


def bundled_rules_dir() -> Path:
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "_bundled_rules", here.parent / "rules"):
        if candidate.is_dir():
            return candidate
    raise UserError(f"bundled rules not found next to {here}")


def _load_yaml(path: Path) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    from bot.lang.yaml.fast import safe_documents

    yaml = YAML(typ="safe", pure=True)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read rule file: {exc}") from None
    try:
        documents = list(safe_documents(text))
        return documents[0] if len(documents) == 1 else yaml.load(text)  # none or several: ruamel's verdict
    except MarkedYAMLError as exc:
        mark = exc.problem_mark
        place = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "somewhere"
        raise UserError(f"{path}: {place}: expected valid YAML: {exc.problem}") from None
    except YAMLError as exc:
        raise UserError(f"{path}: expected valid YAML: {exc}") from None


def parse_rule(data: Any, path: Path) -> Rule:
    c = FieldChecker(path)
    doc = c.mapping(data, "", TOP_FIELDS)
    header = _header(c, doc, path)
    form = doc.get("format", 1)
    if form not in (1, 2) or isinstance(form, bool):
        raise c.fail("format", f"expected 1 or 2, got {kind(form)}")
    comments = doc.get("comments", "")
    if "comments" in doc and comments not in ("note", "fix", "off"):
        raise c.fail("comments", f"expected note, fix or off, got {kind(comments)}")
    if "migration" in doc:
        if form != 2:
            raise c.fail("format", "expected 2: a rule with a migration section is format 2")
        return _migration(c, doc, header, comments)
    if form == 2:
        raise c.fail("migration", "expected a migration section: format 2 is a migration")
    body = _body(c, doc)
    if comments == "fix" and body["fix"] is None:
        raise c.fail("comments", "expected note or off: fix needs a fix section")
    return Rule(**header, **body, comments=comments)


def _header(c: FieldChecker, doc: dict[str, Any], path: Path) -> dict[str, Any]:
    """What a rule is, whatever it matches: its id, words, severity, upstream, files and trigger."""
    rule_id = c.string(doc.get("id", path.stem), "id")
    if not RULE_ID.match(rule_id):
        raise c.fail("id", f"expected lower-case letters, digits, '.', '_' or '-', got {rule_id!r}")
    if _NOT_A_BRANCH.search(rule_id):
        raise c.fail("id", f"expected a name git takes for a branch (no '..', no '.' or '.lock' at the end), "
                           f"got {rule_id!r}")
    if rule_id != path.stem:
        raise c.fail("id", f"expected the file name's stem {path.stem!r}, got {rule_id!r}")
    severity = doc.get("severity", "error")
    if severity not in SEVERITIES:
        raise c.fail("severity", f"expected {', '.join(SEVERITIES[:-1])} or {SEVERITIES[-1]}, got {severity!r}")
    change_type = doc.get("type", "fix" if severity == "error" else "chore")
    if change_type not in CHANGE_TYPES:
        raise c.fail("type", f"expected one of {', '.join(CHANGE_TYPES)}, got {change_type!r}")
    trigger = c.mapping(doc.get("trigger", {}), "trigger", TRIGGER_FIELDS)
    return {
        "id": rule_id,
        "title": c.string(doc.get("title", rule_id), "title"),
        "description": str(doc.get("description", "")).strip(),
        "severity": severity,
        "enabled": c.boolean(doc.get("enabled", True), "enabled"),
        "source": str(path),
        "upstream": c.string(doc["upstream"], "upstream") if "upstream" in doc else None,
        "change_type": change_type,
        "files": c.path_globs(doc["files"], "files") if "files" in doc else (),
        "trigger_paths": c.path_globs(trigger["paths"], "trigger.paths") if "paths" in trigger else (),
        "trigger_text": tuple(c.strings(trigger["text"], "trigger.text")) if "text" in trigger else (),
    }


def _body(c: FieldChecker, doc: dict[str, Any]) -> dict[str, Any]:
    """What a rule (or one step of a migration) matches and does: its when, match, fix, ensure and relation."""
    when = c.mapping(doc.get("when", {}), "when", WHEN_FIELDS)
    match = c.mapping(doc["match"], "match", MATCH_FIELDS) if "match" in doc else {}
    if match and "key" not in match:
        raise c.fail("match.key", "expected a list of key globs (required when match is given)")
    fix = parse_fix(c, doc["fix"]) if "fix" in doc else None
    if fix is not None and fix.entrypoint and match:
        raise c.fail("match", "expected no match section: fix.entrypoint edits launches (choose them with when)")
    if fix is not None and not fix.entrypoint and not match:
        raise c.fail("fix", "expected a match section: fix edits the overrides that match selects")
    ensure = parse_ensure(c, doc["ensure"]) if "ensure" in doc else ()
    ensure_mode = doc.get("ensure_mode", "each")
    if ensure_mode not in ("each", "together"):
        raise c.fail("ensure_mode", f"expected each or together, got {ensure_mode!r}")
    relation = parse_relation(c, doc["relation"]) if "relation" in doc else None
    if not match and not ensure and relation is None and not (fix and fix.entrypoint):
        raise c.fail("", "expected a match, an ensure or a relation section: this rule would never fire")
    if fix is not None and fix.rename is not None:  # a subtree moved: each old key must give the new key's wildcards
        for pattern in _as_list(c, match["key"], "match.key"):
            problem = move_problem(str(pattern), fix.rename)
            if problem is not None:
                raise c.fail("fix.rename", problem)
    return {
        **_when(c, when),
        "match_key": c.key_globs(match["key"], "match.key") if match else (),
        "match_exclude": c.key_globs(match["exclude"], "match.exclude") if "exclude" in match else (),
        "match_value": c.values(match["value"], "match.value") if "value" in match else None,
        "match_value_not": c.values(match["value_not"], "match.value_not") if "value_not" in match else None,
        "match_prefix": tuple(c.prefix(p, f"match.prefix[{i}]")
                              for i, p in enumerate(_as_list(c, match["prefix"], "match.prefix")))
        if "prefix" in match else None,
        "match_item": list_items(c, match["item"], "match.item") if "item" in match else None,
        "fix": fix,
        "ensure": ensure,
        "ensure_together": ensure_mode == "together",
        "relation": relation,
    }


def _when(c: FieldChecker, when: dict[str, Any]) -> dict[str, Any]:
    return {
        "when_sets": c.key_globs(when["sets"], "when.sets") if "sets" in when else (),
        "when_unset": c.key_globs(when["unset"], "when.unset") if "unset" in when else (),
        "when_config": tuple(c.strings(when["config"], "when.config")) if "config" in when else (),
        "when_value": when_value(c, when["value"]) if "value" in when else (),
        "when_entrypoint": c.key_globs(when["entrypoint"], "when.entrypoint") if "entrypoint" in when else (),
        "when_imports": c.modules(when["imports"], "when.imports") if "imports" in when else (),
    }


def _migration(c: FieldChecker, doc: dict[str, Any], header: dict[str, Any], comments: str) -> Rule:
    """A format 2 rule: its migration's steps, each evaluated as a rule of the migration's id."""
    stray = next((f for f in ("match", "fix", "ensure", "ensure_mode", "relation") if f in doc), None)
    if stray is not None:
        raise c.fail(stray, "expected it inside migration.steps: a migration's steps say what it matches and does")
    shared = c.mapping(doc.get("when", {}), "when", WHEN_FIELDS)
    steps = [_step(inner, shared, step) for inner, step in migration_steps(c, doc["migration"])]
    if comments == "fix" and not any(step["fix"] is not None for step in steps):
        raise c.fail("comments", "expected note or off: fix needs a step with a fix")
    parts = tuple(Rule(**header, **step, comments=comments) for step in steps)
    return Rule(**header, **_when(c, shared), comments=comments, steps=parts)


def _step(c: FieldChecker, shared: dict[str, Any], step: dict[str, Any]) -> dict[str, Any]:
    """One step's fields: the rule's when, field by field replaced by the step's own."""
    own = c.mapping(step.get("when", {}), "when", WHEN_FIELDS)
    return _body(c, {**step, "when": {**shared, **own}})

def _as_list(c: FieldChecker, value: Any, where: str) -> list[Any]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not value:
        raise c.fail(where, f"expected a list, got {kind(value)}")
    return value



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
