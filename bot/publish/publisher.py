"""Carry out each follow-up pull request's fate, and say what was decided.

One PR per rule (or one for all), on branch <prefix><rule-id>, one commit by the bot on top of
the current default branch. The publisher takes the reports made before (it does not scan); for
each group, bot.publish.decide chooses the step from what GitHub and the remote say now, and the
publisher makes its writes, so a run cut short by a fault is completed by the next one: no
duplicate PR, no lost branch.
"""

from __future__ import annotations

import hashlib
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from bot.compose.judge import LaunchOutcome, launch_outcomes
from bot.config import RepoConfig
from bot.engine.check import rules_for
from bot.engine.context import repository_context
from bot.model import Finding, PublishDecision, Reason, Report, SkipKind
from bot.publish import body as texts
from bot.publish import describe, template
from bot.publish.decide import GroupState, Step, decide
from bot.publish.forge import CommentInfo, Forge, ForgeError, PullInfo
from bot.publish.vcs import Author, GitError, Remote
from bot.report.diff import render as render_diff
from bot.rules.model import Rule
from bot.upstream.origin import Origin, find_origin

Decision = PublishDecision


@dataclass
class Group:
    """One follow-up pull request's worth: its rules and the report of what they would change."""

    id: str
    rules: list[Rule]
    report: Report
    scan_errors: str | None = None


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


def reproduce_command(repo: RepoConfig, rules: list[Rule]) -> str:
    args = ["bot", "run", "--repo", repo.name, "--dry-run", "--format", "diff"]
    for rule in rules:  # a group's rules, all enabled for this run; --rule also runs an optional rule
        args += ["--rule", rule.id]
    return shlex.join(args)


def scan_errors(report: Report, rules: list[Rule]) -> str | None:
    """Why the scan cannot vouch for these rules (None: it can); nothing of theirs is closed after it.

    Only what the rules would have read counts: a file that failed while they applied to it, a
    parse error that reaches them, an unreadable file in their scope, one of their fixes that could
    not be verified. Errors elsewhere in the repository do not hold their pull requests open.
    """
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
    if any(f.rule in ids and f.reason in (Reason.UNVERIFIED, Reason.UNCOMPOSED) for f in report.findings):
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
        self._origins: dict[str, Origin] = {}

    def run(self, worktree: Path, full: Report, groups: list[Group]) -> PublishResult:
        """Publish each group's report from `worktree`; `full` is the report of the whole run."""
        base_sha = self.remote.sha(self.default) or ""
        result = PublishResult(report=full)
        for group in groups:
            branch = f"{self.repo.branch_prefix}{group.id}"
            try:
                decision = self.publish(worktree, branch, group, base_sha)
            except (ForgeError, GitError) as exc:
                decision = Decision(group.id, branch, "failed", str(exc))
            finally:
                self.remote.git("checkout", "--quiet", "--force", "--detach", base_sha, cwd=worktree)
                self.remote.git("clean", "-fdq", cwd=worktree)
            result.decisions.append(decision)
        result.api_requests = self.forge.requests
        return result

    # ---- one group -----------------------------------------------------------------
    def publish(self, worktree: Path, branch: str, group: Group, base_sha: str) -> Decision:
        diff = render_diff(group.report)
        fp = fingerprint(diff) if diff else None
        remote_sha = self.remote.sha(branch)
        ids = {r.id for r in group.rules}
        findings = [f for f in group.report.findings if f.rule in ids]
        state = GroupState(group.id, branch, tuple(r.id for r in group.rules), fp, remote_sha, findings,
                           group.scan_errors, tuple(self.repo.labels), lambda: self.forge.pulls(branch),
                           lambda number: self.human_editor(number, branch, remote_sha), self.forge.account)
        step = decide(state)
        return self.carry_out(step, worktree, branch, group, findings, diff, fp, base_sha, remote_sha)

    def carry_out(self, step: Step, worktree: Path, branch: str, group: Group, findings: list[Finding],
                  diff: str, fp: str | None, base_sha: str, remote_sha: str | None) -> Decision:
        pr = step.pull
        number, url = (pr.number, pr.url) if pr is not None else (None, None)
        if step.action == "comment-blocked":
            assert pr is not None and step.login is not None
            self.leave_comment(pr.number, texts.blocked_comment(step.login, diff, self.command_for(group.rules)))
            return Decision(group.id, branch, "blocked", step.detail, number, url)
        if step.action == "up-to-date" and step.labels:
            assert pr is not None
            self.forge.add_labels(pr.number, step.labels)
        if step.action in ("update", "open"):
            assert fp is not None
            title, text, message, short = self.texts(worktree, group.rules, group.report, findings, fp, base_sha)
            sha = self.build(worktree, group.report, message)
            self.remote.push(sha, branch, remote_sha)
            if pr is not None:
                self.update_pull(pr.number, title, text, short)
                return Decision(group.id, branch, "updated", f"rebuilt on {self.default} {base_sha[:12]}", number,
                                url)
            opened = self.open_pull(branch, title, text, short)
            if self.repo.labels:
                self.forge.add_labels(opened.number, list(self.repo.labels))
            return Decision(group.id, branch, "opened", title, opened.number, opened.url)
        if step.action == "close":
            assert pr is not None
            return self.close(group.id, branch, pr, base_sha, remote_sha)
        if step.action == "delete-branch":
            assert remote_sha is not None
            self.remote.delete(branch, remote_sha)
            return Decision(group.id, branch, "branch-deleted", step.detail, number, url)
        return Decision(group.id, branch, step.action, step.detail, number, url)

    def close(self, group: str, branch: str, pr: PullInfo, base_sha: str, remote_sha: str | None) -> Decision:
        """Close a pull request whose fixes landed by other hands, with one comment naming the commits.

        Two runs may close the same pull request at once: each looks before commenting, and after
        commenting removes every closing comment but the first, so one stays whoever was first.
        """
        fixed_by = self.fixed_by(pr, base_sha, remote_sha)
        if not self.own_comments(pr.number, texts.CLOSE_MARKER):
            self.forge.comment(pr.number, texts.closing_comment(base_sha, fixed_by))
            for extra in self.own_comments(pr.number, texts.CLOSE_MARKER)[1:]:
                self.forge.delete_comment(extra.id)
        self.forge.close_pull(pr.number)
        if remote_sha is not None:
            try:
                self.remote.delete(branch, remote_sha)
            except GitError:
                if self.remote.git("ls-remote", "--heads", "--", self.remote.url, f"refs/heads/{branch}",
                                   network=True).strip():
                    raise  # still there and moved: someone pushed to it; the next run decides
        by = f" by {fixed_by[0][0][:12]}" if fixed_by else f" as of {base_sha[:12]}"
        return Decision(group, branch, "closed", f"fixed on {self.default}{by}", pr.number, pr.url)

    def fixed_by(self, pr: PullInfo, base_sha: str, remote_sha: str | None) -> list[tuple[str, str]]:
        """The commits on the default branch since the pull request's base that touch the files it edits."""
        identity = texts.read_identity(pr.body)
        start = identity.upstream if identity is not None else None
        if start is None or remote_sha is None:
            return []
        try:
            files = self.remote.git("diff", "--name-only", "-z", "--end-of-options", start, remote_sha).split("\0")
            files = [f for f in files if f]
            if not files:
                return []
            out = self.remote.git("--literal-pathspecs", "log", "--format=%H%x1f%s", "--end-of-options",
                                  f"{start}..{base_sha}", "--", *files)
        except GitError:
            return []
        return [tuple(line.split("\x1f", 1)) for line in out.splitlines() if "\x1f" in line]  # type: ignore[misc]

    def update_pull(self, number: int, title: str, text: str, short: str) -> None:
        try:
            self.forge.update_pull(number, title, text)
        except ForgeError as exc:
            if exc.status != 422 or text == short:
                raise
            self.forge.update_pull(number, title, short)  # the pushed change keeps a body that names it

    def own_comments(self, number: int, marker: str) -> list[CommentInfo]:
        """The bot's comments on the pull request that start with `marker`, oldest first: written by its
        account (a person's comment quoting the marker is theirs)."""
        me = self.forge.account().lower()
        return sorted((c for c in self.forge.comments(number) if c.user.lower() == me and c.body.startswith(marker)),
                      key=lambda c: c.id)

    def open_pull(self, branch: str, title: str, text: str, short: str) -> PullInfo:
        """Open the pull request of the pushed branch; `short`: the body to fall back to when GitHub refuses
        the full one (422), so the branch never stays without its pull request."""
        try:
            return self.forge.create_pull(branch, self.default, title, text, self.repo.draft)
        except ForgeError as exc:
            # the request may have been applied before its answer was lost: look before failing
            me = self.forge.account().lower()
            again = [p for p in self.forge.pulls(branch) if p.state == "open" and texts.read_identity(p.body)
                     and p.author.lower() == me]
            if again:
                if again[0].body != text:
                    self.forge.update_pull(again[0].number, title, text)
                return again[0]
            if exc.status != 422 or text == short:
                raise
            return self.forge.create_pull(branch, self.default, title, short, self.repo.draft)

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
        mine = self.own_comments(number, texts.COMMENT_MARKER)
        if not mine:
            self.forge.comment(number, text)
        elif mine[0].body != text:
            self.forge.edit_comment(mine[0].id, text)

    # ---- content -------------------------------------------------------------------
    def texts(self, worktree: Path, rules: list[Rule], report: Report, findings: list[Finding], fp: str,
              base_sha: str) -> tuple[str, str, str, str]:
        """(title, body, commit message, the short body if GitHub refuses the full one) of the pull request,
        from the files as the scan read them."""
        identity = texts.Identity(tuple(r.id for r in rules), base_sha or None, fp)
        ctx = describe.Context(rules, report, findings, self.command_for(rules), texts.code, texts.plain,
                               self.upstream_ref, self.notes, {r.id: self.origin(worktree, r) for r in rules},
                               self.outcomes(worktree, report), self.repo.github)
        title = texts.title(self.repo.title, self.repo.modules_for([r.id for r in rules]), rules, report, findings)
        text = texts.body(ctx, identity, template.sections(worktree))
        short = texts.fallback_body(identity, ctx.command)
        return title, text, texts.commit_message(title, ctx), short

    def command_for(self, rules: list[Rule]) -> str:
        """The command that shows this pull request's change locally: the run's own, or one per group."""
        return self.command or reproduce_command(self.repo, rules)

    def origin(self, worktree: Path, rule: Rule) -> Origin:
        if rule.id not in self._origins:
            self._origins[rule.id] = find_origin(worktree, rule, self.repo.github)
        return self._origins[rule.id]

    @staticmethod
    def outcomes(worktree: Path, report: Report) -> list[tuple[str, LaunchOutcome]]:
        """Each launch of the edited scripts, composed before and after the edits."""
        out: list[tuple[str, LaunchOutcome]] = []
        scripts = [c for c in report.changes if report.file_kinds.get(c.path, "shell") == "shell"]
        context = repository_context(worktree) if scripts else None
        for change in scripts:
            assert context is not None
            out += [(change.path, o) for o in launch_outcomes(context, change.path, change.before, change.after)]
        return out

    def build(self, worktree: Path, report: Report, message: str) -> str:
        from bot.safe_write import replace_file

        for change in report.changes:  # never through a symlink, nor a symlinked directory of the checkout
            replace_file(worktree / change.path, change.after, root=worktree)
        return self.remote.commit(worktree, [c.path for c in report.changes], message, self.author)


__all__ = ["Decision", "Group", "PublishResult", "Publisher", "scan_errors"]
