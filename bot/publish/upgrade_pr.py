"""One pull request per upgrade, in Renovate's shape (`bot upgrade` without --dry-run, issue 43 item 3).

Title `Upgrade verl from 0.5.0 to 0.6.0` (short commits when no version is known), a body listing each upstream
change with its evidence (the rules it ran and why), the files it edited and the launches it made compose, then the
pins bumped. The branch is `<prefix>upgrade-<upstream>` whatever REF is, so a second run with a moved REF updates the
same pull request (its branch rebuilt on the default branch and force-pushed, title and body edited), and a run
with nothing left to do (the downstream made the upgrade by hand) closes it with a comment. Those fates are the
follow-up pull requests' own (bot.publish.decide, carried out by bot.publish.publisher.Publisher): only the texts
are the upgrade's.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import UserError
from bot.model import Finding, Report
from bot.publish import body as texts
from bot.publish.publisher import Decision, Group, Publisher
from bot.rules.model import Rule
from bot.upstream.upgrade import Upgrade
from bot.upstream.upgrade_text import change_ref, title

if TYPE_CHECKING:
    from bot.config import Config, RepoConfig
    from bot.upstream.pack import Pack
    from bot.upstream.watching import InferPolicy

SHOWN = 30  # files and launches listed per step; the rest are counted


class UpgradePublisher(Publisher):
    """The follow-up publisher with the upgrade's title, body and commit message."""

    upgrade: Upgrade
    reproduce: str

    def texts(self, worktree: Path, rules: list[Rule], report: Report, findings: list[Finding], fp: str,
              base_sha: str) -> tuple[str, str, str, str]:
        identity = texts.Identity(tuple(r.id for r in rules), base_sha or None, fp)
        name = texts.cut(title(self.upgrade), texts.MAX_TITLE)
        full = upgrade_body(self.upgrade, self.reproduce)
        text = texts.cut(full, texts.SAFE_LIMIT) + f"\n\n{texts.FOOTER}\n\n{identity.render()}"
        short = texts.fallback_body(identity, self.reproduce)
        return name, text, f"{name}\n\n{_message(self.upgrade)}", short


def upgrade_body(result: Upgrade, reproduce: str) -> str:
    """The pull request's description: the span, each upstream change with its evidence, the pins, the notes."""
    plain = texts.neutral
    out = [f"This pull request upgrades **{plain(result.upstream.distribution)}** from "
           f"{', '.join(texts.code(t.short()) for t in result.starts) or 'its pins'} to "
           f"{texts.code(result.target.short())}{_commit(result)}: "
           f"{result.walked} upstream commits, {result.checked} of them read (config, entry points, validation), "
           f"{len(result.steps)} acted on.", "", "### Upstream changes", ""]
    if not result.steps:
        out += ["None of the upstream's commits calls for a change here.", ""]
    for step in result.steps:
        ref = change_ref(result, step)
        linked = ref if result.upstream.source_kind == "github" else plain(ref)
        out.append(f"#### {linked}: {plain(step.commit.subject)} ({texts.code(step.commit.sha[:12])})")
        out += [f"- {texts.code(rule)}: {plain(why)}" for rule, why in step.reasons.items()]
        edited = [c.path for c in step.changes]
        if edited:
            out.append(f"- edits {', '.join(texts.code(p) for p in edited[:SHOWN])}"
                       + (f" and {len(edited) - SHOWN} more files" if len(edited) > SHOWN else ""))
        out += [f"- makes {texts.code(launch)} compose against the upstream at this commit"
                for launch in step.composed[:SHOWN]]
        out += [f"- left to a person: {texts.code(f'{f.path}:{f.line}')} {plain(f.message.splitlines()[0])}"
                for f in step.manual[:SHOWN]]
        out.append("")
    if result.bumped.moved:
        out += ["### Pins", "", *(f"- {texts.code(m)}" for m in result.bumped.moved), ""]
    if result.failing is not None:
        out += ["### At the target", ""]
        at = texts.code(result.target.short())
        out += ([f"Every launch of the edited files composes against the upstream at {at}."] if not result.failing else
                [f"- {texts.code(f'{f.path}:{f.line}')} fails: {plain(f.message.splitlines()[0])}"
                 for f in result.failing[:SHOWN]])
        out.append("")
    notes = [*result.notes, *result.bumped.notes]
    if notes:
        out += ["### Notes", "", *(f"- {plain(n)}" for n in notes), ""]
    out += ["### Test", "", f"Each step was composed against the upstream at its own commit. To see it: "
            f"{texts.code(reproduce, limit=texts.COMMAND_LIMIT)}"]
    return "\n".join(out)


def _commit(result: Upgrade) -> str:
    """` (commit)` after a target named by its version or tag."""
    short = result.target.commit[:12]
    return "" if result.target.short() == short else f" ({texts.code(short)})"


def _message(result: Upgrade) -> str:
    lines = [f"- {change_ref(result, s)}: {s.commit.subject}" for s in result.steps]
    return "\n".join([*lines, *(f"- pin {m}" for m in result.bumped.moved)]) or "pins only"


def publish_upgrade(repo: RepoConfig, config_at: Callable[[Path], Config], given: str | None, ref: str,
                    rules: list[Rule], policy: InferPolicy, jobs: int,
                    progress: Callable[[str], None] | None = None, pack: Pack | None = None) -> Decision:
    """The upgrade computed over the default branch's checkout and published as its one pull request; `pack`: the
    rule pack to run instead of inferring (bot.upstream.pack)."""
    from bot.publish.credentials import api_url, from_environment
    from bot.publish.forge import GitHubForge, auth_for
    from bot.publish.run import open_remote, repo_lock
    from bot.upstream.downstream_watch import named_upstream
    from bot.upstream.upgrade import upgrade

    if repo.github is None:
        raise UserError(f"--repo {repo.name}: publishing needs the GitHub repository: set github = \"owner/name\" "
                        "for it in bot.toml")
    credentials = from_environment()
    if credentials is None:
        raise UserError("publishing needs credentials: set BOT_GITHUB_TOKEN (or GITHUB_TOKEN), or "
                        "BOT_GITHUB_APP_ID with BOT_GITHUB_APP_PRIVATE_KEY")
    base_url = api_url()
    auth, token, account = auth_for(credentials, base_url, repo.github)
    forge = GitHubForge(base_url, repo.github, auth, None, account=account)
    try:
        with repo_lock(repo):
            remote = open_remote(repo, token, repo.fetch_url(base_url))
            default = repo.default_branch or remote.default_branch()
            remote.fetch(default, repo.branch_prefix)
            with remote.worktree(default) as worktree:
                named = named_upstream(config_at(worktree), worktree, given)
                result = upgrade(worktree, config_at(worktree), named, ref, rules, policy, jobs, repo.github,
                                 progress, pack=pack)
                reproduce = f"bot upgrade --repo {repo.name} --to {ref} --dry-run --format diff" + (
                    "" if pack is None else f" --pack {pack.directory}")
                rule = Rule(id=f"upgrade-{result.upstream.distribution}", title=title(result), description="",
                            severity="error", enabled=True, source="bot upgrade")
                report = Report(repo=repo.github, commit=remote.sha(default), rules=[], changes=result.changes)
                publisher = UpgradePublisher(remote, repo, forge, default, reproduce)
                publisher.upgrade, publisher.reproduce = result, reproduce
                published = publisher.run(worktree, report, [Group(rule.id, [rule], report)])
        return published.decisions[0]
    finally:
        forge.close()

