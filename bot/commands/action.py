"""`bot action`: the GitHub Action's one entry point (action.yml runs it, nothing else).

The action's inputs reach it as environment variables (`BOT_INPUT_<NAME>`, never spliced into a shell
script); the event payload says what happened. It picks the command, builds its command line and
hands over to that command's own `main`, which writes the annotations, the step summary, the outputs
and the SARIF file:

- push, schedule, workflow_dispatch: `watch` (a push's range from the payload; without one, a full run);
- pull_request: `run --dry-run --check` over the files the pull request changes (no token needed, so
  it works on pull requests from forks), so only what the pull request brings is gated;
- or the command the `command` input names: `watch`, `check` or `compose-check`.

A downstream's workflow acts on its upstream's change with `watch --upstream` (bot.upstream.downstream_watch):
the `upstream-before` input (or a repository_dispatch event whose client_payload has `before`) names the
upstream's change, `upstream-after` (or the payload's `after`) its end, `upstream` the upstream (default: the one
the repository's bot.toml names).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import UserError
from bot.secrets import redact

if TYPE_CHECKING:
    from bot.model import Report

# input name (action.yml) -> what it means; each reaches the entry point as BOT_INPUT_<NAME>
INPUTS = {
    "command": "auto | watch | check | compose-check (auto: watch on push/schedule/dispatch, check on pull_request)",
    "rules": "rule ids to run, separated by blanks (default: every enabled rule; watch: those the change triggers)",
    "enable": "optional rule ids to enable, separated by blanks",
    "rules-dir": "directories of more rule files in the repository, separated by blanks",
    "dry-run": "true: report only, open no pull request (watch)",
    "files": "changed | all: on a pull request, check only the files it changes (default) or every file",
    "sarif-file": "where to write the SARIF report (default: followup-bot.sarif in the runner's temp directory)",
    "fail-on-findings": "true (default): check and compose-check fail the step while findings remain",
    "baseline": "a baseline file in the repository (default: its .followup-bot-baseline.json, if any)",
    "token": "a token to publish with (watch); a GitHub App is better: app-id and app-private-key",
    "app-id": "the GitHub App's id (watch publishes as the App)",
    "app-private-key": "the GitHub App's private key, PEM text",
    "upstream": "watch an upstream's change over this repository: the upstream (a registry name, a git URL or "
                "owner/name; default: the one bot.toml names) when upstream-before is given",
    "upstream-before": "the upstream's commit before its change (default: a repository_dispatch payload's before)",
    "upstream-after": "the upstream's commit after its change (default: the payload's after, else its default "
                      "branch's tip)",
}
COMMANDS = ("auto", "watch", "check", "compose-check")
PULL_EVENTS = ("pull_request", "pull_request_target")
_SHA = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
_WORD = re.compile(r"[A-Za-z0-9_.\-/]+")
_SOURCE = re.compile(r"[A-Za-z0-9_.\-/:@+~]+")  # a registry name, owner/name or a git URL


def env_name(name: str) -> str:
    return "BOT_INPUT_" + name.upper().replace("-", "_")


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    commands.add_parser("action", help="the GitHub Action's entry point (reads BOT_INPUT_* and the event)",
                        description="Run as the followup-bot GitHub Action: the inputs come from BOT_INPUT_<NAME> "
                                    "variables (action.yml sets them) and the event from GITHUB_EVENT_PATH.")


def main(args: argparse.Namespace) -> int:
    from bot import actions
    from bot.commands import dispatch

    if not actions.in_actions():
        raise UserError("action: expected to run in GitHub Actions (GITHUB_ACTIONS=true); run watch, run or "
                        "compose-check instead")
    workspace = os.environ.get("GITHUB_WORKSPACE")
    if not workspace or not Path(workspace).is_dir():
        raise UserError("action: expected GITHUB_WORKSPACE to name the checked-out repository")
    _credentials()
    argv = command_line(os.environ.get("GITHUB_EVENT_NAME", ""), actions.event(), Path(workspace))
    print(f"bot {' '.join(argv)}", file=sys.stderr)
    return dispatch(argv)


def value(name: str) -> str:
    return os.environ.get(env_name(name), "").strip()


def flag(name: str, default: bool) -> bool:
    text = value(name).lower()
    if not text:
        return default
    if text in ("true", "false"):
        return text == "true"
    raise UserError(f"action: input {name}: expected true or false, got {text!r}")


def words(name: str) -> list[str]:
    found = value(name).split()
    for word in found:
        if not _WORD.fullmatch(word) or word.startswith("-"):
            raise UserError(f"action: input {name}: {word!r} is not a rule id or a path; expected words of "
                            "letters, digits and . _ - /")
    return found


def command_line(event_name: str, payload: dict[str, object], workspace: Path) -> list[str]:
    """The command line the inputs and the event ask for."""
    command = value("command") or "auto"
    if command not in COMMANDS:
        raise UserError(f"action: input command: expected one of {', '.join(COMMANDS)}, got {command!r}")
    if command == "auto":
        command = "check" if event_name in PULL_EVENTS else "watch"
    rules = [a for rule in words("rules") for a in ("--rule", rule)]
    rules += [a for rule in words("enable") for a in ("--enable", rule)]
    rules += [a for rel in words("rules-dir") for a in ("--rules", str(_inside(workspace, rel, "rules-dir")))]
    sarif = value("sarif-file") or str(Path(os.environ.get("RUNNER_TEMP") or workspace.parent) / "followup-bot.sarif")
    shared = ["--sarif", sarif]
    if baseline := value("baseline"):
        shared += ["--baseline", str(_inside(workspace, baseline, "baseline"))]
    gate = ["--check"] if flag("fail-on-findings", True) else []
    if command == "watch":
        return ["watch", *rules, *shared, *upstream_change(payload), *(["--dry-run"] if flag("dry-run", False) else [])]
    if command == "compose-check":
        return ["compose-check", "--repo", str(workspace), "--format", "github", *shared, *gate]
    files: list[str] = []
    scope = value("files") or "changed"
    if scope not in ("changed", "all"):
        raise UserError(f"action: input files: expected changed or all, got {scope!r}")
    if scope == "changed" and event_name in PULL_EVENTS:
        changed = changed_files(workspace, payload)
        if changed is not None:
            files = ["--files", *changed]
    return ["run", "--repo", str(workspace), "--dry-run", "--format", "github", *rules, *shared, *gate, *files]


def upstream_change(payload: dict[str, object]) -> list[str]:
    """watch's `--upstream [U] --before A [--after B]` when the inputs or a repository_dispatch payload name an
    upstream's change; nothing otherwise (the repository's own change)."""
    client = payload.get("client_payload")
    sent = client if isinstance(client, dict) else {}
    before = value("upstream-before") or str(sent.get("before") or "")
    after = value("upstream-after") or str(sent.get("after") or "")
    source = value("upstream") or str(sent.get("upstream") or "")
    if not before:
        if value("upstream") or value("upstream-after"):
            raise UserError("action: input upstream-before: expected the upstream's commit before its change "
                            "(or a repository_dispatch payload with before)")
        return []
    for name, given in (("upstream-before", before), ("upstream-after", after)):
        if given and (not _WORD.fullmatch(given) or given.startswith("-")):
            raise UserError(f"action: input {name}: {given!r} is not a commit; expected a SHA or a ref")
    if source and (not _SOURCE.fullmatch(source) or source.startswith("-")):
        raise UserError(f"action: input upstream: {source!r} is not a registry name, owner/name or a git URL")
    return ["--upstream", *([source] if source else []), "--before", before, *(["--after", after] if after else [])]


def changed_files(workspace: Path, payload: dict[str, object]) -> list[str] | None:
    """The files a pull request adds or changes (against its base commit), as paths in the workspace;
    None (check everything, with a warning) where the base commit cannot be had."""
    pull = payload.get("pull_request")
    base = pull.get("base") if isinstance(pull, dict) else None
    sha = base.get("sha") if isinstance(base, dict) else None
    if not isinstance(sha, str) or not _SHA.fullmatch(sha):
        raise UserError("action: the pull_request event has no base commit (pull_request.base.sha); expected "
                        "the payload GitHub sends")
    if not _has_commit(workspace, sha):
        _git(workspace, "fetch", "--quiet", "--no-tags", "--depth=1", "origin", sha)
    if not _has_commit(workspace, sha):
        print(f"::warning title=followup-bot::the pull request's base commit {sha[:12]} could not be fetched; "
              "every file is checked (use actions/checkout with fetch-depth: 0, or files: all)")
        return None
    out = _git(workspace, "diff", "--name-only", "-z", "--no-renames", "--diff-filter=d", sha, "HEAD", "--")
    return [str(workspace / name) for name in out.split("\0") if name]


def _credentials() -> None:
    """The token and App inputs, where the publishing code reads credentials."""
    for name, variable in (("token", "BOT_GITHUB_TOKEN"), ("app-id", "BOT_GITHUB_APP_ID"),
                           ("app-private-key", "BOT_GITHUB_APP_PRIVATE_KEY")):
        if given := os.environ.get(env_name(name), ""):
            os.environ[variable] = given


def _inside(workspace: Path, rel: str, name: str) -> Path:
    path = (workspace / rel).resolve()
    if path != workspace.resolve() and workspace.resolve() not in path.parents:
        raise UserError(f"action: input {name}: {rel} is outside the repository; expected a path inside it")
    return path


def _has_commit(workspace: Path, sha: str) -> bool:
    result = subprocess.run(["git", "-C", str(workspace), "cat-file", "-e", f"{sha}^{{commit}}"],
                            capture_output=True, check=False)
    return result.returncode == 0


def _git(workspace: Path, *words: str) -> str:
    result = subprocess.run(["git", "-C", str(workspace), *words], capture_output=True, text=True, check=False)
    return result.stdout if result.returncode == 0 else ""


def report_to_actions(args: argparse.Namespace, report: Report, triggered: list[str] | None = None,
                      annotate: bool = False) -> None:
    """In GitHub Actions: the markdown report in the step summary and the step's outputs (findings and
    notes counted apart, pull request URLs, the rules that ran, the SARIF file); with `annotate`, an
    annotation per finding on stdout unless the report itself is already in that format."""
    from bot import actions
    from bot.model import Status
    from bot.report import render

    if not actions.in_actions():
        return
    if annotate and args.format != "github":
        sys.stdout.write(redact(render("github", report)))
    actions.write_summary(redact(render("markdown", report)))
    open_ = [f for f in report.findings if f.status is not Status.FIXED]
    urls = [d.url for d in report.publish.decisions if d.url] if report.publish else []
    ran = triggered if triggered is not None else sorted(r.id for r in report.rules if r.enabled)
    sarif = getattr(args, "sarif", None)
    actions.set_outputs({"findings": str(sum(not f.is_note for f in open_)),
                         "notes": str(sum(f.is_note for f in open_)),
                         "pr-urls": json.dumps(urls), "triggered": json.dumps(ran),
                         "sarif-file": str(sarif) if sarif is not None else ""})
