"""The text of each section of a follow-up's body: what and why, how it was tested, the changes.

Each role of bot.publish.template gets its text here; bot.publish.body lays the sections out
under the repository's own headings. Text from scanned files goes through `code()` and prose from
rule files through `plain()` (bot.publish.body), so neither can mention people or inject markup.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.compose.judge import LaunchOutcome
from bot.model import Finding, Report, Status
from bot.publish import wording
from bot.rules.model import Rule
from bot.upstream.origin import Origin

MAX_ROWS = 100
KIND_WORDS = {"shell": "launch scripts", "markdown": "docs", "rst": "docs", "notebook": "notebooks",
              "yaml": "config files", "python": "Python files", "workflow": "workflows"}


@dataclass
class Context:
    rules: list[Rule]
    report: Report
    findings: list[Finding]
    command: str
    code: Callable[[str | None], str]
    plain: Callable[[str], str]
    upstream_ref: str | None = None  # the merged change this run follows (watch)
    notes: list[str] = field(default_factory=list)
    origins: dict[str, Origin] = field(default_factory=dict)  # rule id -> the change it follows up
    outcomes: list[tuple[str, LaunchOutcome]] = field(default_factory=list)  # (path, launch) composed
    github: str | None = None
    test_heading: str = "Test"  # the template's heading of the testing section, to point at

    @property
    def fixed(self) -> list[Finding]:
        return wording.fixed(self.findings)

    @property
    def manual(self) -> list[Finding]:
        return [f for f in self.findings if f.status is Status.MANUAL and not f.is_note]

    @property
    def files(self) -> list[str]:
        return sorted({e.path for f in self.fixed for e in f.edits})


def what(ctx: Context) -> list[str]:
    summary = wording.summary(ctx.rules, ctx.report, ctx.findings)  # rule values and keys: `plain`
    summary = ctx.plain(summary[:1].upper() + summary[1:])
    count = len(ctx.fixed)
    lead = f"Follow-up to {ctx.upstream_ref}. " if ctx.upstream_ref else ""
    rules = ", ".join(f"**{ctx.plain(r.title)}** (`{r.id}`)" for r in ctx.rules)
    plural = "s" if count != 1 else ""
    if wording.change_type(ctx.rules) == "fix":
        first = (f"{summary}: {count} override{plural} that "
                 f"{'break' if plural else 'breaks'} {rules}.")
    else:
        first = f"{summary} ({count} override{plural}), as {rules} asks."
    out = [lead + first]
    for rule in ctx.rules:
        why = _origin_text(ctx, rule)
        if why:
            out += ["", why]
        if rule.change_type != "fix":
            out += ["", "This is not a fix: no launch fails without it. It changes how these launches run:"]
        if rule.description:
            out += ["", ctx.plain(rule.description)]
    return out


def _origin_text(ctx: Context, rule: Rule) -> str:
    origin = ctx.origins.get(rule.id)
    if origin is None or origin.commit is None:
        if rule.upstream:
            return f"Upstream: {ctx.plain(rule.upstream)} (not checked: this history does not show the check)."
        return ""
    ref = origin.reference()
    check = ""
    if origin.check_line and origin.check_path:
        check = f" It checks {ctx.code(origin.check_line)} in {ctx.code(origin.check_path)}."
    text = f"The check came with {ref}, {ctx.code(origin.subject)}.{check}"
    if rule.upstream and not origin.cited_checked:
        text += (f" (The rule cites {ctx.plain(rule.upstream)}; this repository's history shows the check "
                 f"arriving with {ref} instead.)")
    return text


def test(ctx: Context) -> list[str]:
    kinds = _kinds(ctx)
    out = ["The bot checked every edited file before opening this pull request:", "",
           f"- it parses again ({', '.join(kinds)}) and nothing but the edited overrides changed;",
           "- a second run of the rule over the edited files finds nothing left to change;"]
    if ctx.outcomes:
        out += ["- Hydra composes each launch of the edited scripts with this repository's configs, before "
                "and after the edits:", "", "| launch | runs | ways | before | after |", "|---|---|---|---|---|"]
        for path, launch in ctx.outcomes[:MAX_ROWS]:
            out.append(f"| {_cell(ctx, path)} line {launch.line} | {_cell(ctx, launch.entry)} | {launch.ways} | "
                       f"{_cell(ctx, _cut(launch.before))} | {_cell(ctx, _cut(launch.after))} |")
        if len(ctx.outcomes) > MAX_ROWS:
            out.append(f"\n... and {len(ctx.outcomes) - MAX_ROWS} more launches.")
    longest = max((len(run) for run in re.findall(r"`+", ctx.command)), default=0)
    fence = "`" * max(3, longest + 1)  # a backtick run in the command cannot close the block
    out += ["", "The launches themselves (the training jobs) were not run.", "", "Reproduce locally:", "",
            f"{fence}sh", ctx.command, fence]
    return out


def _cell(ctx: Context, text: str) -> str:
    """A code span in a table cell: a pipe in it would end the cell."""
    return ctx.code(text).replace("|", "\\|")


def _cut(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _kinds(ctx: Context) -> list[str]:
    kinds = sorted({ctx.report.file_kinds.get(path, "shell") for path in ctx.files})
    return [{"shell": "tree-sitter-bash"}.get(kind, kind) for kind in kinds] or ["unchanged"]


def changes(ctx: Context) -> list[str]:
    rows = wording.rows(ctx.report, ctx.findings)
    out = ["| file | line | key | before | after |", "|---|---|---|---|---|"]
    for row in rows[:MAX_ROWS]:
        before = _cell(ctx, row.before) if row.before is not None else "(not set)"
        after = _cell(ctx, row.after) if row.after is not None else "(removed)"
        out.append(f"| {_cell(ctx, row.path)} | {row.line} | {_cell(ctx, row.key)} | {before} | {after} |")
    if len(rows) > MAX_ROWS:
        out += ["", f"... and {len(rows) - MAX_ROWS} more: run the command under \"{ctx.plain(ctx.test_heading)}\"."]
    if ctx.manual:
        out += ["", "Needs a human: the bot found these but cannot fix them safely; please look at each:", ""]
        out += [f"- {ctx.code(f.path)} line {f.line}: {ctx.code(f.message)}" for f in ctx.manual[:50]]
        if len(ctx.manual) > 50:
            out.append(f"- ... and {len(ctx.manual) - 50} more.")
    if ctx.notes:
        out += ["", "Also noticed in the upstream change:", ""] + [f"- {_note(ctx, n)}" for n in ctx.notes[:30]]
    return out


def _note(ctx: Context, note: str) -> str:
    """A note whose `code` parts quote upstream source: `plain` makes those safe code spans (so `<` stays
    `<` and a backtick in the source cannot end the span); the prose around them cannot link or mention."""
    return ctx.plain(" ".join(note.split()))


def usage(ctx: Context) -> list[str]:
    kinds = sorted({KIND_WORDS.get(ctx.report.file_kinds.get(p, "shell"), "files") for p in ctx.files})
    return [f"No API change: only {' and '.join(kinds) or 'launch scripts'} change."]


def checklist(ctx: Context) -> list[str]:
    return [f"Opened by followup-bot: what it checked is under \"{ctx.plain(ctx.test_heading)}\"; the reviewer's "
            "checks are still to do."]


def other(ctx: Context) -> list[str]:
    return ["Nothing from the bot for this section."]


ROLE_TEXT: dict[str, Callable[[Context], list[str]]] = {
    "what": what, "test": test, "changes": changes, "usage": usage, "checklist": checklist, "other": other,
}
