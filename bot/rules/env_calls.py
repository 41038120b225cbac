"""Rules x values a caller hands to a repository script through the environment.

The override lives in the called script (`...use_mbridge=${USE_MBRIDGE:-True}`); the value that
breaks the rule is written by the caller (`USE_MBRIDGE=False bash run.sh`, an `env:` entry).
The finding and its fix are at the caller's value.
"""

from __future__ import annotations

from bot.hydra.grammar import HydraSyntaxError, bool_style, format_value, parse_override
from bot.lang.shell.calls import EnvInput, ScriptCall
from bot.lang.shell.edits import quote_for
from bot.lang.shell.launches import line_column
from bot.model import Edit, Finding, Status
from bot.rules.evaluate import key_matches, launch_applies, value_matches
from bot.rules.model import Rule
from bot.rules.values import ValueInfo


def call_findings(path: str, src: bytes, call: ScriptCall, callee: str, inputs: list[EnvInput],
                  rules: list[Rule]) -> list[Finding]:
    findings: list[Finding] = []
    for rule in rules:
        if not rule.enabled or not rule.match_key:
            continue
        for item in inputs:
            value = call.values.get(item.variable)
            if value is None or not key_matches(rule, item.override) or not launch_applies(rule, item.launch):
                continue
            try:
                parsed = parse_override(f"{item.override.key}={value.text}")
            except HydraSyntaxError:
                continue
            info = ValueInfo("static", value=parsed.value, text=value.text)
            if value_matches(rule, info) is not True:
                continue
            line, column = line_column(src, value.span.start)
            finding = Finding(
                rule=rule.id, path=path, line=line, column=column, key=item.override.key, value=value.text,
                status=Status.FIXABLE, severity=rule.severity,
                message=(f"{item.override.prefix}{item.override.key} is {value.text} in {callee} "
                         f"(line {item.override.line}), through {value.name}={value.text}"),
            )
            findings.append(finding)
            fix = rule.fix
            new = None
            if fix is not None and not fix.rename and not fix.remove and fix.prefix is None:
                if fix.has_set:
                    new = format_value(fix.set, bool_style(value.text))
                else:
                    new = next((format_value(b, bool_style(value.text)) for a, b in fix.map
                                if value_matches(rule, info) and _equal(a, parsed.value)), None)
            text = quote_for(value.ctx, new) if new is not None else None
            if text is None:
                finding.status = Status.MANUAL
                finding.message += "; a person must change the value handed to the script"
                continue
            finding.edits = [Edit(path, value.span, text, rule.id)]
            finding.fix_site = (path, line)
            finding.message += f"; set to {new} where it is handed over"
    return findings


def _equal(rule_value: object, actual: object) -> bool:
    from bot.hydra.grammar import values_equal

    return values_equal(rule_value, actual)
