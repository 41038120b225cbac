"""`bot pack build` (issue 43, item 4): the rules an upgrade step would infer from each upstream commit of a range,
inferred once and kept as a pack (bot.upstream.pack).

The commits are those an upgrade walks (bot.upstream.upgrade_span: first-parent, and only those that can matter).
Each commit's rules are inferred as bot.upstream.watching.choose infers them for an upgrade step (the checks its
Python adds, the migration its config edits call for, its moved entry points; high confidence only), with the
upstream's own files at the commit's parent in place of a downstream: its launches say which apps the migration
composes, as `bot infer` reads them. A pack built before in the same directory keeps its entries; only the commits
outside its range are read.
"""

from __future__ import annotations

import gc
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot import __version__, scratch
from bot.downstream.pin_target import resolve
from bot.errors import UserError
from bot.upstream.change import Change, read_change
from bot.upstream.laid_tree import has_dir, laid_tree
from bot.upstream.pack import INDEX, RULES, Entry, Pack, load_pack, refuse_other, write_pack
from bot.upstream.upgrade_span import Commit, may_matter, span

if TYPE_CHECKING:
    from bot.upstream.downstream_watch import Named
    from bot.upstream.watching import InferPolicy


@dataclass
class Built:
    pack: Pack
    walked: int  # the first-parent commits of the range asked for
    read: int  # those read now (that could matter, outside an earlier build's range)
    added: int  # rules added
    seconds: float


def build_pack(named: Named, history: Path, start: str, end: str, output: Path, packages: tuple[str, ...],
               keep_old_defaults: bool, progress: Callable[[str], None] | None = None) -> Built:
    """The pack of `named`'s commits start..end written into `output` (module docstring)."""
    from bot.upstream.watching import InferPolicy

    clock = time.monotonic()
    first, last = _commit(history, start, "--from", named), _commit(history, end, "--to", named)
    if not _is_ancestor(history, first["commit"], last["commit"]):
        raise UserError(f"--from {start}: not an ancestor of --to {end} in {named.upstream.source}")
    dirs = _packages(history, last["commit"], packages or named.upstream.packages)
    earlier = load_pack(output) if (output / INDEX).is_file() else None
    done: set[str] = set()
    if earlier is not None:
        refuse_other(earlier, named.upstream, "--upstream")
        if earlier.keep_old_defaults != keep_old_defaults:
            raise UserError(f"{output / INDEX}: policy: built with keep_old_defaults={earlier.keep_old_defaults}; "
                            "expected the same --keep-old-defaults (or an empty directory)")
        done = {c.sha for c in span(history, earlier.start["commit"], earlier.end["commit"])}
    commits = span(history, first["commit"], last["commit"])
    todo = [c for c in may_matter(history, commits, dirs, []) if c.sha not in done]
    policy = InferPolicy("high", "draft", new_defaults=not keep_old_defaults)
    entries: list[Entry] = []
    rules: dict[str, dict[str, Any]] = {}
    with _checkout(history) as tree:
        for index, commit in enumerate(todo, 1):
            if progress is not None:
                progress(f"[{index}/{len(todo)}] {commit.sha[:12]} {commit.subject[:70]}")
            for rule, reason in _inferred_at(history, tree, commit, dirs, policy):
                entry = Entry(f"{RULES}/{commit.sha[:12]}/{rule['id']}.yaml", str(rule["id"]), commit.sha,
                              commit.subject, commit.pull_number, reason)
                entries.append(entry)
                rules[entry.file] = rule
            gc.collect()  # GitPython's repositories hold their git processes' pipes until collected
    pack = _merged(history, earlier, output, named, dirs, first, last, entries, keep_old_defaults)
    write_pack(pack, rules)
    return Built(pack, len(commits), len(todo), len(entries), round(time.monotonic() - clock, 2))


def _merged(history: Path, earlier: Pack | None, output: Path, named: Named, dirs: tuple[str, ...],
            first: dict[str, str], last: dict[str, str], entries: list[Entry], keep_old_defaults: bool) -> Pack:
    """The pack over both ranges (an earlier build's and this one's), its entries in the history's order."""
    start, end = first, last
    if earlier is not None:
        if _is_ancestor(history, earlier.start["commit"], first["commit"]):
            start = earlier.start
        if _is_ancestor(history, last["commit"], earlier.end["commit"]):
            end = earlier.end
    kept = [e for e in (earlier.entries if earlier is not None else []) if e.file not in {n.file for n in entries}]
    commits = span(history, start["commit"], end["commit"])
    order = {c.sha: i for i, c in enumerate(commits)}
    every = sorted([*kept, *entries], key=lambda e: order.get(e.commit, len(order)))  # stable: a commit's own order
    upstream = {"name": named.upstream.name, "source": named.upstream.source, "packages": list(dirs)}
    pack = Pack(output, upstream, start, end, __version__, "", keep_old_defaults,
                len(commits), len(may_matter(history, commits, dirs, [])), every)
    pack.built = _when(earlier, pack)
    return pack


def _when(earlier: Pack | None, pack: Pack) -> str:
    """When the pack was built: SOURCE_DATE_EPOCH when set (reproducible builds); an earlier build's time when this
    one changes nothing else (a rebuild is the same bytes); else now."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        return datetime.fromtimestamp(int(epoch), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if earlier is not None:
        mine, theirs = pack.index(), earlier.index()
        mine.pop("built"), theirs.pop("built")
        if mine == theirs:
            return earlier.built
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _inferred_at(history: Path, tree: Path, commit: Commit, dirs: tuple[str, ...], policy: InferPolicy
                 ) -> list[tuple[dict[str, Any], str]]:
    """The rules an upgrade step infers from the commit, as dicts, each with its reason: the upstream's own files
    at the commit's parent checked out in `tree`, its packages laid beside them before and after the commit."""
    _git(tree, "checkout", "--quiet", "--detach", "--force", commit.parent or commit.sha)
    change = read_change(history, commit.parent or commit.sha, commit.sha)
    with laid_tree(tree, history, change.before, change.after, dirs) as laid:
        return inferred_rules(history, laid.root, change, policy)


def inferred_rules(history: Path, tree: Path, change: Change, policy: InferPolicy
                   ) -> list[tuple[dict[str, Any], str]]:
    """What bot.upstream.watching.choose infers and runs for the change with no given rule (the same calls, the
    same confidence and the same order: the checks' rules, then the migrations'), kept as the dicts inferred."""
    from bot.rules.loader import parse_rule
    from bot.upstream.infer import infer
    from bot.upstream.migration_rule import HIGH
    from bot.upstream.watching import read_migrations

    config = any(p.endswith((".yaml", ".yml")) for p in change.paths)
    python = any(p.endswith(".py") for p in change.paths)
    if policy.confidence == "off" or not (config or python):
        return []
    migrations = read_migrations(history, tree, change, policy)
    proposed: list[tuple[dict[str, Any], str]] = []
    if python:
        inference = infer(history, change.before, change.after, [])
        proposed += [(p.rule, f"inferred from `{p.check.text}` at {p.check.where}")
                     for p in inference.proposals if policy.runs(p.confidence)]
    if migrations is not None:
        proposed += [(rule, f"inferred from the change: {rule['title']}")
                     for rule, confidence in ((migrations.config.rule, HIGH), (migrations.moved, HIGH))
                     if rule is not None and policy.runs(confidence)]
    out: list[tuple[dict[str, Any], str]] = []
    for rule, reason in proposed:
        try:
            parse_rule(rule, Path(f"{rule['id']}.yaml"))
        except UserError:
            continue  # a proposal the rule format refuses: a note in an upgrade, never a rule
        if rule["id"] not in {r["id"] for r, _ in out}:
            out.append((rule, reason))
    return out


def _commit(history: Path, ref: str, option: str, named: Named) -> dict[str, str]:
    found = resolve(history, ref)
    if found is None:
        raise UserError(f"{option}: {named.upstream.source} has no commit, tag, branch or version {ref!r} "
                        f"(expected one of its history)")
    return {"given": ref, "commit": found.commit}


def _packages(history: Path, commit: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """Where the packages are at the commit (`pkg`, or `src/pkg`); a one-line error when none is."""
    found = [where for name in names for where in (name, f"src/{name}") if has_dir(history, commit, where)]
    if not found:
        raise UserError(f"--packages: the upstream holds no package {', '.join(names)} at {commit[:12]} "
                        "(expected --packages NAME, a directory of the upstream)")
    return tuple(dict.fromkeys(found))


@contextmanager
def _checkout(history: Path) -> Iterator[Path]:
    """A clone of the upstream sharing its objects, to check each commit's parent out in (removed after)."""
    made = Path(scratch.mkdtemp("bot-pack-", scratch.checkout_size(history)))
    try:
        tree = made / "upstream"
        done = subprocess.run(["git", "clone", "--quiet", "--shared", "--no-checkout", str(history), str(tree)],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            said = done.stderr.strip().splitlines()
            raise UserError(f"{history}: git clone failed: {said[-1] if said else 'unknown error'}")
        yield tree
    finally:
        import shutil

        shutil.rmtree(made, ignore_errors=True)


def _is_ancestor(history: Path, older: str, newer: str) -> bool:
    return subprocess.run(["git", "-C", str(history), "merge-base", "--is-ancestor", older, newer],
                          capture_output=True, check=False).returncode == 0


def _git(where: Path, *args: str) -> None:
    done = subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise UserError(f"{where}: git {args[0]} failed: {said[-1] if said else 'unknown error'}")
