"""compose-check's findings: an override Hydra rejects (with the fix for a `+` on a key that exists now,
and for a key a config change renamed), or a launch whose config itself does not compose; the built-in
rule behind them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.hydra.app import HydraApp
from bot.hydra.renames import Rename, rename_fix
from bot.ir import Launch, Override
from bot.model import NOTE, Edit, Finding, Status
from bot.rules.model import Rule

RULE_ID = "hydra-compose"
ALREADY_THERE = "Could not append to config. An item is already at"


def launch_finding(path: str, launch: Launch, app: HydraApp, message: str) -> Finding:
    """The launch's config itself does not compose (a config name that is not there, say)."""
    column = launch.column
    where = f"launch of {launch.entry} at line {launch.line}" + (f" ({launch.branch})" if launch.branch else "")
    return Finding(rule=RULE_ID, path=path, line=launch.line, column=column, key="", value=app.config_name,
                   status=Status.MANUAL, message=f"{message} [{where}]")


def failure_finding(path: str, launch: Launch, value: str | None, message: str) -> Finding:
    """The launch fails before Hydra composes (Hydra's or argparse's own error: bot.hydra.certain,
    bot.hydra.argparse_gate)."""
    where = f"launch of {launch.entry} at line {launch.line}" + (f" ({launch.branch})" if launch.branch else "")
    finding = Finding(rule=RULE_ID, path=path, line=launch.line, column=launch.column, key="", value=value,
                      status=Status.MANUAL, message=f"{message} [{where}]")
    finding.scope = (launch.lines,)
    return finding


def override_finding(path: str, override: Override, message: str, launch: Launch,
                     renames: list[Rename]) -> Finding:
    where = f"launch of {launch.entry} at line {launch.line}"
    if launch.branch:
        where += f" ({launch.branch})"
    finding = Finding(rule=RULE_ID, path=path, line=override.line, column=override.column, key=override.key,
                      value=override.value_written, status=Status.MANUAL, message=f"{message} [{where}]")
    if message.startswith(ALREADY_THERE) and override.prefix == "+" and override.prefix_span is not None:
        finding.status = Status.FIXABLE
        finding.message += "; the key exists now: drop the +"
        finding.edits = [Edit(path, override.prefix_span, "", RULE_ID)]
        finding.fix_site = (path, override.line)
    rename = rename_fix(override, message, renames)
    if rename is not None and override.key_span is not None:
        new_key = override.key.rsplit(".", 1)[0] + "." + rename.new if "." in override.key else rename.new
        finding.status = Status.FIXABLE
        finding.message += f"; {rename.source} renamed {rename.old} to {rename.new}: use {new_key}"
        finding.edits = [Edit(path, override.key_span, new_key, RULE_ID)]
        finding.fix_site = (path, override.line)
    return finding


_MISSING = "is not in struct"  # Hydra's words for a key the composed config lacks


def chosen_by_caller(finding: Finding, app: HydraApp, key: str, message: str, launch: Launch,
                     memo: dict[tuple[object, ...], Any] | None = None) -> None:
    """A key the config lacks, in a launch that passes on its caller's arguments (`"$@"`), which an option
    of a config group sets: the caller may choose that option (unless the launch chooses that group
    itself), so this is a note, naming it."""
    from bot.hydra.group_keys import option_setting

    if _MISSING not in message:
        return
    dirs = [d for d in (app.config_dir, *map(Path, app.search_path)) if d is not None]
    chosen = {o.key.replace(".", "/") for o in launch.overrides}
    option = option_setting(str(app.root), dirs, key, chosen, memo)
    if option is not None:
        finding.severity = NOTE
        finding.message += (f"; the launch passes on its caller's arguments, and the config group option "
                            f"{option} sets {key}: run with it chosen, the launch composes")


def compose_rule() -> Rule:
    """The built-in rule behind compose-check findings, for reports and pull requests."""
    return Rule(
        id=RULE_ID,
        title="Launch overrides must compose with the repository's Hydra config",
        description="Each launch was composed with hydra-core against the repository's own config tree, as "
                    "Hydra would at start-up; these overrides no longer compose (a `+` on a key that now "
                    "exists, or a key that was renamed).",
        severity="error", enabled=True, source="built-in")
