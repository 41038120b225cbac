"""Interpolations of a key a rule renames: `${data.bs}` follows `data.bs` to its new name."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from bot.hydra.grammar import config_reference, with_reference
from bot.ir import COMMENT, DEFAULTS_LIST, PROSE, STRANDED, SWEEP_PARAMS, Plan, Setting, SettingGroup, SetValue, State
from bot.model import NOTE, Finding
from bot.rules.fixes import manual, renamed_key, write_plans
from bot.rules.matching import group_applies, key_matches, reads_value
from bot.rules.model import Rule

if TYPE_CHECKING:
    from bot.rules.evaluate import Evaluator


_NOT_FOLLOWED = (COMMENT, PROSE, STRANDED, SWEEP_PARAMS, DEFAULTS_LIST)  # text, or read elsewhere too


def rename_references(ev: Evaluator, rule: Rule) -> list[Finding]:
    """A rename leaves no interpolation of the old key behind: `${data.bs}` (or `${oc.select:data.bs,1}`)
    follows `data.bs` to its new name, where the rule renames that key whatever its value."""
    fix = rule.fix
    if fix is None or not fix.rename or reads_value(rule):
        return []
    findings: list[Finding] = []
    plans: list[Plan] = []
    seen: set[tuple[int, int]] = set()
    values: dict[object, set[object]] = {}  # what each written override reads in every branch or loop round
    for group in ev.groups:
        for setting in group.settings:
            values.setdefault(setting.site, set()).add(setting.identity)
    for group in ev.groups:
        text_policy = rule.comment_policy(group.role == PROSE) if group.role in (COMMENT, PROSE) else None
        if (group.role in _NOT_FOLLOWED and text_policy in (None, "off")) or not group_applies(rule, group, ev.facts):
            continue  # a sweep's params are also in their config's hydra node, whose interpolations follow
        for setting in group.settings:
            written = setting.text if setting.state in ("static", "dynamic") and not setting.parts_read else None
            if not written or "${" not in written or (setting.line, setting.column) in seen:
                continue  # a list read value by value is followed in its IN_LIST group; an alias once
            seen.add((setting.line, setting.column))
            found = _names_renamed(ev, rule, group, setting, written, text_policy)
            if found is None:
                continue
            finding, text, new_key = found
            findings.append(finding)
            if text is None or not _rewritable(finding, setting, written, text_policy, values):
                continue
            inner = _unquoted(written)
            quoted = written[0] + text + written[-1] if inner != written else text  # Hydra's quotes kept
            plans.append(Plan(finding, group, [SetValue(setting, quoted, text, [setting])],
                              f"points at {new_key}"))
    write_plans(ev.path, rule, plans, ev.realise)
    return findings


def _names_renamed(ev: Evaluator, rule: Rule, group: SettingGroup, setting: Setting, written: str,
                   text_policy: str | None) -> tuple[Finding, str | None, str] | None:
    """The finding for a value that interpolates a key the rule renames, the value's new text (None: the
    finding is manual already) and the new key; None when it names none (or only where a note is not worth it)."""
    inner = _unquoted(written)
    reference = config_reference(inner)
    if reference is not None:
        if not _renamed(rule, reference.key):
            return None
        new_key = _new_key(rule, reference.key)
        finding = ev.finding(rule, setting.line, setting.column, setting.key, setting.text,
                             f"{setting.key} is {setting.text}, which the rule renames", groups=[group])
        return finding, with_reference(inner, new_key), new_key  # the file's writer keeps the value's quoting
    inside = _inside(rule, inner)  # `${data.root}/train`: each reference to a renamed key inside the text
    if inside is None:
        return None
    text, named = inside
    new_key = _new_key(rule, named)
    why = ("an interpolation inside text with escapes" if "\\" in inner  # `\${` is no interpolation
           else "an interpolation inside a list or mapping" if not isinstance(setting.value, str)
           else None)
    if why is not None and text_policy is not None:
        return None  # in a comment or prose only what reads plainly is worth a note
    finding = ev.finding(rule, setting.line, setting.column, setting.key, written,
                         f"{setting.key} is {written}, which names {named}", groups=[group])
    if why is not None:
        manual(finding, f"{why}: a person must rewrite it")
        return finding, None, new_key
    return finding, text, new_key


def _rewritable(finding: Finding, setting: Setting, written: str, text_policy: str | None,
                values: dict[object, set[object]]) -> bool:
    """Whether the reference can be rewritten where it is written; if not, the finding says why (manual)."""
    if text_policy is not None:  # a comment or prose: a note, rewritten as the rule's keys are there
        finding.severity = NOTE
        if text_policy == "note":
            manual(finding, "reported, not rewritten (the rule's comments policy)")
            return False
    if not setting.keyed:
        manual(finding, "the value is not written in one place")
        return False
    if len(values.get(setting.site, ())) > 1:  # `for d in '${a.b}/x' y`: one edit would serve every round
        manual(finding, "the value depends on the branch taken or a loop's round: a person must rewrite it")
        return False
    inner = _unquoted(written)
    if inner != written and (written[0] in inner or "\\" in inner):  # its own quote, or an escape
        manual(finding, "a quoted interpolation with quotes or escapes inside: a person must rewrite it")
        return False
    return True


def removal_references(ev: Evaluator, rule: Rule) -> list[Finding]:
    """A removal leaves each interpolation of the removed key dangling (`${run.id}` in `hydra.run.dir`):
    a manual finding at each, since what should stand there instead is a person's choice."""
    fix = rule.fix
    if fix is None or not fix.remove or reads_value(rule):
        return []
    findings: list[Finding] = []
    seen: set[object] = set()
    for group in ev.groups:
        if group.role in _NOT_FOLLOWED or not group_applies(rule, group, ev.facts):
            continue
        for setting in group.settings:
            written = setting.text if setting.state in ("static", "dynamic") and not setting.parts_read else None
            place = (setting.line, setting.column)  # one written value, however many merges read it
            removed = key_matches(rule, setting)  # the removal's own finding (a list's mapping keys included)
            if not written or "${" not in written or removed or place in seen:
                continue
            named = next((m.group(1) for m in _INNER.finditer(written) if _renamed(rule, _dotted(m.group(1)))
                          and written[m.start() - 1 : m.start()] != "\\"  # `\${a}` is text
                          and not ("oc.select" in m.group(0) and written[m.end(1) : m.end(1) + 1] == ",")), None)
            if named is None:
                continue  # none, or `${oc.select:a.b,default}`, which still resolves
            seen.add(place)
            finding = ev.finding(rule, setting.line, setting.column, setting.key, written,
                                 f"{setting.key} is {written}, which names {named}", groups=[group])
            manual(finding, f"the rule removes {named}: a person must replace the interpolation")
            findings.append(finding)
    return findings


# `${key}` in a text; OmegaConf also reads a list's index in brackets (`${a[0].b}`, the key `a.0.b`)
_INNER = re.compile(r"\$\{\s*(?:oc\.select\s*:\s*)?([A-Za-z_][\w\-]*(?:\.[\w\-]+|\[\d+\])*)(?=\s*[},\[])")


def _dotted(written: str) -> str:
    return re.sub(r"\[(\d+)\]", r".\1", written)


def _bracketed(key: str, written: str) -> str:
    """The new key with the indices the written one put in brackets in brackets again."""
    if "[" not in written:
        return key
    return re.sub(r"\.(\d+)(?=\.|$)", lambda m: f"[{m.group(1)}]" if f"[{m.group(1)}]" in written else m.group(0), key)


def _inside(rule: Rule, text: str) -> tuple[str, str] | None:
    """(the text with each reference to a key the rule renames pointing at its new name, the first such
    key); None when it names none. A resolver's name (`${oc.env:HOME}`) is not a key."""
    parts: list[str] = []
    first: str | None = None
    end = 0
    for match in _INNER.finditer(text):
        key = _dotted(match.group(1))
        if not _renamed(rule, key):
            continue
        first = first or key
        parts += [text[end : match.start(1)], _bracketed(_new_key(rule, key), match.group(1))]
        end = match.end(1)
    return ("".join(parts) + text[end:], first) if first is not None else None


def _renamed(rule: Rule, key: str) -> bool:
    """Whether the rule renames (or removes) the key, or a mapping above it (`${a.b.x}` when `a.b` goes)."""
    return _matched_prefix(rule, key) is not None


def _matched_prefix(rule: Rule, key: str) -> str | None:
    """The longest of the key and the keys above it that the rule matches."""
    parts = key.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if key_matches(rule, Setting(prefix, "", None, None, State.STATIC, 0, 0)):
            return prefix
    return None


def _new_key(rule: Rule, key: str) -> str:
    """The key once the rule renamed it or the mapping above it."""
    prefix = _matched_prefix(rule, key) or key
    return (renamed_key(rule, prefix) or prefix) + key[len(prefix) :]  # a move's old key always gives its new one


def _unquoted(text: str) -> str:
    """The text inside quotes around all of it: `"${a.b}"` in YAML, `'${a.b}'` for Hydra."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text
