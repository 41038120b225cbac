"""The fate of one follow-up pull request, decided from its state: what to do, never doing it.

What the state holds is read lazily (the pull requests of the branch, who else committed to it,
which account is the bot's), so a run with nothing new asks the forge no more than it must. The
publisher carries the step out.

A pull request is the bot's when the bot's account opened it and its body carries the bot's marker:
anyone can copy the marker into a body, or open a pull request from the bot's branch, and neither
makes it the bot's to edit, close or stay silent for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bot.model import Finding, Status
from bot.publish import body as texts
from bot.publish.forge import PullInfo


@dataclass
class GroupState:
    group: str
    branch: str
    rules: tuple[str, ...]  # the rule ids the pull request is for
    fingerprint: str | None  # of the change the bot would make now; None: nothing to change
    remote_sha: str | None  # the bot's branch on the remote, if it is there
    findings: list[Finding]
    scan_errors: str | None  # why the scan cannot vouch for these rules (nothing is closed after it)
    labels: tuple[str, ...]  # the labels the pull request should carry
    pulls: Callable[[], list[PullInfo]]  # the pull requests of the branch (one request)
    editor: Callable[[int | None], str | None]  # a person's login with a commit on the branch, if any
    account: Callable[[], str]  # the bot's own login (asked once, only when a pull request carries the marker)

    def ours(self, pull: PullInfo) -> bool:
        """Opened by the bot's account, with the bot's marker in its body."""
        return texts.read_identity(pull.body) is not None and pull.author.lower() == self.account().lower()


@dataclass
class Step:
    """What to do: nothing | blocked | comment-blocked | kept | up-to-date | update | close | delete-branch |
    skipped | open."""

    action: str
    detail: str = ""
    pull: PullInfo | None = None
    login: str | None = None  # comment-blocked: the person whose commit stops the bot
    labels: list[str] = field(default_factory=list)  # up-to-date: labels still to add


def decide(state: GroupState) -> Step:
    fp, remote_sha = state.fingerprint, state.remote_sha
    if fp is None and remote_sha is None:
        return Step("nothing", _nothing(state.findings))  # no branch, so no open pull request: no request
    pulls = state.pulls()
    foreign = next((p for p in pulls if p.state == "open" and texts.read_identity(p.body) is None), None)
    if foreign is not None:
        return Step("blocked", f"#{foreign.number} on {state.branch} has no bot marker: not the bot's pull "
                    "request (or its body was rewritten); not touched", foreign)
    open_pr = next((p for p in pulls if p.state == "open"), None)
    if open_pr is not None:
        step = _open(state, open_pr)
        if step.action in ("kept", "nothing") or (step.action == "up-to-date" and not step.labels) \
                or state.ours(open_pr):
            return step  # the account is asked only before a write: a run with nothing to do asks one request
        return Step("blocked", f"#{open_pr.number} on {state.branch} carries the bot's marker but was opened by "
                    f"{open_pr.author or 'someone'}, not the bot's account {state.account()}; not touched", open_pr)
    ours = [p for p in pulls if state.ours(p)]
    if fp is None:
        return _leftover(state, ours)
    closed = next((p for p in ours if p.state == "closed" and not p.merged and _fingerprint(p) == fp), None)
    if closed is not None:
        return Step("skipped", f"the same change was closed unmerged in #{closed.number}; not reopened", closed)
    if remote_sha is not None:
        login = state.editor(None)
        if login is not None:
            return Step("blocked", f"branch {state.branch} has commits by {login} and no open pull request; "
                        "not pushed")
    return Step("open")


def _open(state: GroupState, pr: PullInfo) -> Step:
    """An open pull request of the bot's: close it, leave it, or bring it up to date."""
    if state.fingerprint is None:
        if state.scan_errors is not None:
            return Step("kept", f"the scan had errors ({state.scan_errors}): nothing is closed after such a scan",
                        pr)
        if any(f.status is Status.MANUAL and not f.is_note for f in state.findings):
            return Step("kept", "no fix left, but manual findings remain", pr)
        editor = state.editor(pr.number)
        if editor is not None:
            return Step("kept", f"nothing left to fix, but edited by {editor}: not closed", pr)
        return Step("close", pull=pr)
    login = state.editor(pr.number)
    if login is not None:
        return Step("comment-blocked", f"edited by {login}", pr, login=login)
    identity = texts.read_identity(pr.body)
    assert identity is not None
    if tuple(identity.rules) != state.rules:
        return Step("kept", f"the pull request covers {', '.join(identity.rules)}; this run has only "
                    f"{', '.join(state.rules)}", pr)
    if identity.fingerprint == state.fingerprint:
        missing = [label for label in state.labels if label not in pr.labels]
        return Step("up-to-date", "same change as the open pull request", pr, labels=missing)
    return Step("update", pull=pr)


def _leftover(state: GroupState, ours: list[PullInfo]) -> Step:
    """Nothing to fix and no open pull request: a bot-only branch left by a run cut short is removed."""
    latest = ours[0] if ours else None
    if (state.remote_sha is not None and state.scan_errors is None and not (latest is not None and latest.merged)
            and state.editor(None) is None):
        why = (f"left after closing #{latest.number}" if latest is not None
               else "it never got its pull request (a run cut short earlier)")
        return Step("delete-branch", f"the bot's branch had nothing left to fix: {why}", latest)
    return Step("nothing", _nothing(state.findings))


def _nothing(findings: list[Finding]) -> str:
    manual = sum(1 for f in findings if f.status is Status.MANUAL and not f.is_note)
    return f"nothing to fix ({manual} manual findings in the report)" if manual else "nothing to fix"


def _fingerprint(pull: PullInfo) -> str | None:
    identity = texts.read_identity(pull.body)
    return identity.fingerprint if identity else None
