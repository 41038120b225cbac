"""Decide each follow-up pull request's fate from its state, act, and say what was decided.

One PR per rule (or one for all), on branch <prefix><rule-id>, one commit by the bot on top of
the current default branch. Every decision is taken from what GitHub and the remote say now, so
a run cut short by a fault is completed by the next one: no duplicate PR, no lost branch.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bot.config import RepoConfig
from bot.engine.scan import scan
from bot.errors import UserError
from bot.model import Finding, PublishDecision, Reason, Report, SkipKind, Status
from bot.publish import body as texts
from bot.publish.forge import Forge, ForgeError, PullInfo
from bot.publish.vcs import Author, GitError, Remote
from bot.report.diff import render as render_diff
from bot.rules.model import Rule

Decision = PublishDecision


@dataclass
class PublishResult:
    report: Report
    decisions: list[Decision] = field(default_factory=list)
    api_requests: int = 0

    @property
    def failed(self) -> bool:
        return any(d.action == "failed" for d in self.decisions)


def fingerprint(diff: str) -> str:
    return hashlib.sha256(diff.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def scan_errors(report: Report, rules: list[Rule]) -> str | None:
    """Why the scan cannot vouch for these rules (None: it can); nothing of theirs is closed after it.

    Only what the rules would have read counts: a file that failed while they applied to it, a
    parse error that reaches them, an unreadable file in their scope, one of their fixes that could
    not be verified. Errors elsewhere in the repository do not hold their pull requests open.
    """
    from bot.engine.check import rules_for

    ids = {r.id for r in rules}
    for error in report.errors:
        if ids & set(error.rules):
            return f"{error.path} could not be checked ({error.reason})"
    for path in report.partly_parsed:
        if ids & set(report.unsure.get(path, ids)):
            return f"{path} is partly parsed near what these rules read"
    for skipped in report.skipped:
        if skipped.kind is SkipKind.UNREADABLE and rules_for(skipped.path, rules):
            return f"{skipped.path} could not be read ({skipped.reason})"
    if any(f.rule in ids and f.reason is Reason.UNVERIFIED for f in report.findings):
        return "a fix could not be verified"
    return None


class Publisher:
    def __init__(self, remote: Remote, repo: RepoConfig, forge: Forge, default: str, command: str,
                 upstream_ref: str | None = None, notes: list[str] | None = None) -> None:
        self.remote = remote
        self.repo = repo
        self.forge = forge
        self.default = default
        self.command = command
        self.upstream_ref = upstream_ref
        self.notes = notes or []
        self.author = Author(repo.bot_name, repo.bot_email)

    def groups(self, rules: list[Rule], group: str) -> list[tuple[str, list[Rule]]]:
        enabled = [r for r in rules if r.enabled]
        if group == "all":
            return [("all", enabled)] if enabled else []
        return [(r.id, [r]) for r in enabled]

    def run(self, worktree: Path, rules: list[Rule], group: str, compose: bool = False) -> PublishResult:
        """Publish each group; with `compose`, also the built-in hydra-compose rule as a group of its own."""
        base_sha = self.remote.sha(self.default) or ""
        full = scan(worktree, rules, label=self.repo.github or self.repo.name)
        result = PublishResult(report=full)
        groups = self.groups(rules, group)
        composed: Report | None = None
        if compose:
            from bot.engine.compose_check import RULE_ID, compose_rule, compose_scan

            composed = compose_scan(worktree, label=full.repo)[0]
            full.findings.extend(composed.findings)
            groups.append((RULE_ID, [compose_rule()]))
        for group_id, group_rules in groups:
            branch = f"{self.repo.branch_prefix}{group_id}"
            try:
                if composed is not None and group_id == "hydra-compose":
                    report = composed
                else:
                    report = full if group == "all" else scan(worktree, group_rules, label=full.repo)
                errors = scan_errors(report if report is composed else full, group_rules)
                decision = self.decide(worktree, branch, group_id, group_rules, report, base_sha, errors)
            except (ForgeError, GitError) as exc:
                decision = Decision(group_id, branch, "failed", str(exc))
            finally:
                self.remote.git("checkout", "--quiet", "--force", "--detach", base_sha, cwd=worktree)
                self.remote.git("clean", "-fdq", cwd=worktree)
            result.decisions.append(decision)
        result.api_requests = self.forge.requests
        return result

    # ---- one group -----------------------------------------------------------------
    def decide(self, worktree: Path, branch: str, group_id: str, rules: list[Rule], report: Report,
               base_sha: str, scan_errors: str | None) -> Decision:
        diff = render_diff(report)
        fp = fingerprint(diff) if diff else None
        remote_sha = self.remote.sha(branch)
        findings = [f for f in report.findings if f.rule in {r.id for r in rules}]
        if fp is None and remote_sha is None:
            manual = sum(1 for f in findings if f.status is Status.MANUAL)
            detail = f"nothing to fix ({manual} manual findings in the report)" if manual else "nothing to fix"
            return Decision(group_id, branch, "nothing", detail)  # no branch, so no open PR: no request
        pulls = self.forge.pulls(branch)
        foreign = next((p for p in pulls if p.state == "open" and texts.read_identity(p.body) is None), None)
        if foreign is not None:
            return Decision(group_id, branch, "blocked", f"#{foreign.number} on {branch} has no bot marker: not "
                            "the bot's pull request (or its body was rewritten); not touched", foreign.number,
                            foreign.url)
        ours = [p for p in pulls if texts.read_identity(p.body) is not None]
        open_pr = next((p for p in ours if p.state == "open"), None)
        wanted = tuple(r.id for r in rules)

        if open_pr is not None:
            if fp is None:
                return self.close(open_pr, branch, group_id, base_sha, remote_sha, scan_errors, findings)
            login = self.human_editor(open_pr.number, branch, remote_sha)
            if login is not None:
                self.leave_comment(open_pr.number, texts.blocked_comment(login, diff, self.command))
                return Decision(group_id, branch, "blocked", f"edited by {login}", open_pr.number, open_pr.url)
            identity = texts.read_identity(open_pr.body)
            assert identity is not None
            if tuple(identity.rules) != wanted:
                return Decision(group_id, branch, "kept", f"the pull request covers {', '.join(identity.rules)}; "
                                f"this run has only {', '.join(wanted)}", open_pr.number, open_pr.url)
            if identity.fingerprint == fp:
                missing = [label for label in self.repo.labels if label not in open_pr.labels]
                if missing:
                    self.forge.add_labels(open_pr.number, missing)
                return Decision(group_id, branch, "up-to-date", "same change as the open pull request",
                                open_pr.number, open_pr.url)
            title, text = self.texts(rules, report, findings, fp, base_sha)
            sha = self.build(worktree, report, title)
            self.remote.push(sha, branch, remote_sha)
            self.forge.update_pull(open_pr.number, title, text)
            return Decision(group_id, branch, "updated", f"rebuilt on {self.default} {base_sha[:12]}",
                            open_pr.number, open_pr.url)

        if fp is None:
            return self.cleanup(branch, group_id, remote_sha, scan_errors, findings, ours)
        closed = next((p for p in ours if p.state == "closed" and not p.merged
                       and _fp(p) == fp), None)
        if closed is not None:
            return Decision(group_id, branch, "skipped",
                            f"the same change was closed unmerged in #{closed.number}; not reopened",
                            closed.number, closed.url)
        if remote_sha is not None:
            login = self.human_editor(None, branch, remote_sha)
            if login is not None:
                return Decision(group_id, branch, "blocked", f"branch {branch} has commits by {login} and no "
                                "open pull request; not pushed")
        title, text = self.texts(rules, report, findings, fp, base_sha)
        sha = self.build(worktree, report, title)
        self.remote.push(sha, branch, remote_sha)
        pr = self.open_pull(branch, title, text)
        if self.repo.labels:
            self.forge.add_labels(pr.number, list(self.repo.labels))
        return Decision(group_id, branch, "opened", title, pr.number, pr.url)

    def open_pull(self, branch: str, title: str, text: str) -> PullInfo:
        try:
            return self.forge.create_pull(branch, self.default, title, text, self.repo.draft)
        except ForgeError:
            # the request may have been applied before its answer was lost: look before failing
            again = [p for p in self.forge.pulls(branch) if p.state == "open" and texts.read_identity(p.body)]
            if again:
                if again[0].body != text:
                    self.forge.update_pull(again[0].number, title, text)
                return again[0]
            raise

    def close(self, pr: PullInfo, branch: str, group_id: str, base_sha: str, remote_sha: str | None,
              scan_errors: str | None, findings: list[Finding]) -> Decision:
        if scan_errors is not None:
            return Decision(group_id, branch, "kept", f"the scan had errors ({scan_errors}): nothing is closed "
                            "after such a scan", pr.number, pr.url)
        if any(f.status is Status.MANUAL for f in findings):
            return Decision(group_id, branch, "kept", "no fix left, but manual findings remain", pr.number, pr.url)
        editor = self.human_editor(pr.number, branch, remote_sha)
        if editor is not None:
            return Decision(group_id, branch, "kept", f"nothing left to fix, but edited by {editor}: not closed",
                            pr.number, pr.url)
        if not any(texts.CLOSE_MARKER in c.body for c in self.forge.comments(pr.number)):
            self.forge.comment(pr.number, texts.closing_comment(base_sha))
        self.forge.close_pull(pr.number)
        if remote_sha is not None:
            self.remote.delete(branch, remote_sha)
        return Decision(group_id, branch, "closed", f"fixed on {self.default} as of {base_sha[:12]}",
                        pr.number, pr.url)

    def cleanup(self, branch: str, group_id: str, remote_sha: str | None, scan_errors: str | None,
                findings: list[Finding], pulls: list[PullInfo]) -> Decision:
        """Nothing to fix and no open PR: a bot-only branch left by a run cut short is removed."""
        latest = pulls[0] if pulls else None
        if (remote_sha is not None and scan_errors is None and not (latest is not None and latest.merged)
                and self.human_editor(None, branch, remote_sha) is None):
            self.remote.delete(branch, remote_sha)
            why = (f"left after closing #{latest.number}" if latest is not None
                   else "it never got its pull request (a run cut short earlier)")
            return Decision(group_id, branch, "branch-deleted", f"the bot's branch had nothing left to fix: {why}",
                            latest.number if latest else None, latest.url if latest else None)
        manual = sum(1 for f in findings if f.status is Status.MANUAL)
        detail = f"nothing to fix ({manual} manual findings in the report)" if manual else "nothing to fix"
        return Decision(group_id, branch, "nothing", detail)

    def human_editor(self, number: int | None, branch: str, remote_sha: str | None) -> str | None:
        """The first person other than the bot with a commit on the branch, or None."""
        if remote_sha is None:
            return None
        mine = self.author.email.lower()
        others = [(sha, a_name if a_mail.lower() != mine else c_name)
                  for sha, a_name, a_mail, c_name, c_mail in self.remote.authors(self.default, branch)
                  if a_mail.lower() != mine or c_mail.lower() != mine]  # an amend keeps the bot as author
        if not others:
            return None
        sha, name = others[0]
        if number is not None:
            return self.forge.commit_logins(number).get(sha, name)
        return name

    def leave_comment(self, number: int, text: str) -> None:
        mine = [c for c in self.forge.comments(number) if texts.COMMENT_MARKER in c.body]
        if not mine:
            self.forge.comment(number, text)
        elif mine[0].body != text:
            self.forge.edit_comment(mine[0].id, text)

    # ---- content -------------------------------------------------------------------
    def texts(self, rules: list[Rule], report: Report, findings: list[Finding], fp: str,
              base_sha: str) -> tuple[str, str]:
        identity = texts.Identity(tuple(r.id for r in rules), base_sha or None, fp)
        title = texts.title(self.repo.title, self.repo.modules_for([r.id for r in rules]), rules)
        text = texts.body(rules, report, findings, identity, self.command, self.upstream_ref, self.notes)
        return title, text

    def build(self, worktree: Path, report: Report, title: str) -> str:
        from bot.engine.write import safe_target

        root = str(worktree.resolve())
        for change in report.changes:
            target = safe_target(root, change.path)
            with open(target, "wb") as handle:
                handle.write(change.after)
        fixes = sum(1 for f in report.findings if f.status is Status.FIXABLE)
        message = f"{title}\n\nAutomated follow-up by followup-bot: {fixes} fix(es) in {len(report.changes)} file(s).\n"
        return self.remote.commit(worktree, [c.path for c in report.changes], message, self.author)


def _fp(pull: PullInfo) -> str | None:
    identity = texts.read_identity(pull.body)
    return identity.fingerprint if identity else None


ForgeFactory = Callable[[str], Forge]
__all__ = ["Decision", "PublishResult", "Publisher", "UserError"]
