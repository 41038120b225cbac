"""Replay issue 21's migrations with today's bot and compare its diff with the humans'.

    python benchmarks/replay.py [--corpus ../shared/corpus] [--only NAME ...] [--json FILE] [--keep DIR]
                                [--at parent|framework | --watch | --followups] [--rules-from DIR]

(`--json` rows also list each missed denominator line and each bot line not counted right.)

For each migration of tests/realworld/replay/set.json whose rule is in the current format: the rule alone
(`--no-bundled`, the file copied to a temporary `--rules` directory) runs with the installed `bot` on the
one-commit tree at the human commit's parent:

    bot run --repo TREE --dry-run --format diff --no-bundled --rules DIR --no-cache --no-baseline

and its diff is compared with the human commit's (`git diff -M parent sha`):
- covered: the denominator's lines (scripts/replay_denominator.py) that the bot's diff holds too: the same
  file (at the parent's path), the same side (removed/added) and the same text (trailing blanks aside);
- right: the bot's changed lines that the human diff holds (any file kind), plus those of a bot change block
  (changed lines with no unchanged line between them) that a later first-parent commit on main made in
  the same file: every removed line of the block removed and every added line added by one commit (a
  commit deleting the file does not count);
- lines in files the humans deleted in that commit are counted apart (neither right nor wrong).
With `--at framework` the tree is the parent's with the human commit's framework part applied (every
changed file the denominator does not count: the upstream change landed, the scripts not yet migrated),
which is where the bot stands in use; the bot's Hydra judge refuses an edit to a key the parent's config
does not have yet. With `--watch` (issue 42: the baseline of migration inference) no rule of the set runs:
a scratch repository of two commits, the parent's tree and then the framework part, is handed to

    bot watch --repo SCRATCH --before HEAD~1 --after HEAD --no-bundled --dry-run --format diff

so the bot sees the upstream change and nothing of the humans' script edits (the scored lines), and its
diff is scored as above. With `--followups` the pairs of tests/realworld/followups/set.json (issue 42, set b)
are replayed instead: an upstream change U and a later human commit F that fixed launches U missed, as

    bot watch --repo SCRATCH --before HEAD~2 --after HEAD~1 --no-bundled --dry-run --format diff

on a scratch repository of three commits (U's parent, U, F's parent: its work tree), scored against F's
counted lines (the pair's tokens; F is `sha`, its parent `parent`); the set's rules directory
(tests/realworld/followups/rules) is passed with `--rules` only once it holds a rule file.
A rule marked `proposed` is reported as not expressible yet (0 covered) by `bot run`. The table goes to
stdout in Markdown (docs/dev/realworld.md, "Replay set (issue 21), fixed before the code", and "Migration
inference: evaluation sets, fixed before the code").
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE / "scripts"))

from replay_denominator import (  # noqa: E402  (a script next door, not a package)
    DEFAULT_CORPUS,
    REPLAY,
    Corpus,
    FileDiff,
    counted_kind,
    counted_lines,
    human_diff,
    load_set,
    parse_diff,
)

FOLLOWUPS = HERE / "tests" / "realworld" / "followups"

Key = tuple[str, str, str]  # path at the parent, sign, text without trailing blanks


def framework_patch(corpus: Corpus, entry: dict[str, Any]) -> bytes:
    """The human commit's framework part as a binary patch: every changed file the denominator does not count."""
    # from git's list, not the parsed diff: a file moved without a change has no hunk (`recipe/dapo/{src => }`)
    listed = corpus.git("diff", "-M", "--name-status", "-z", entry["parent"], entry["sha"]).split("\0")
    changed: list[tuple[str, ...]] = []
    i = 0
    while i < len(listed) - 1:
        width = 2 if listed[i][:1] in ("R", "C") else 1
        changed.append(tuple(listed[i + 1 : i + 1 + width]))
        i += 1 + width
    paths = sorted({p for names in changed for p in names if all(counted_kind(n) is None for n in names)})
    # a path that became a submodule (`recipe`) names a directory: keep the counted files under it out
    counted = sorted({f":(exclude,literal){p}" for names in changed for p in names if p not in paths})
    if not paths:
        return b""
    return subprocess.run(["git", "-C", str(corpus.history), "diff", "-M", "--binary", entry["parent"],
                           entry["sha"], "--", *paths, *counted], check=True, capture_output=True).stdout


def apply_patch(tree: Path, patch: bytes) -> None:
    if patch:
        subprocess.run(["git", "apply", "--whitespace=nowarn", "-"], cwd=tree, input=patch, check=True,
                       capture_output=True)


def framework_tree(corpus: Corpus, entry: dict[str, Any], into: Path) -> Path:
    """A copy of the parent's tree with the human commit's framework part applied (no counted file)."""
    tree = into / "tree"
    shutil.copytree(corpus.tree(entry["parent"]), tree, symlinks=True)
    apply_patch(tree, framework_patch(corpus, entry))
    return tree


def watch_repository(corpus: Corpus, entry: dict[str, Any], into: Path) -> Path:
    """A scratch repository of two commits: the parent's tree (the corpus's one-commit tree), then the human
    commit's framework part on top. Its work tree is the second commit; no counted line is in either."""
    repo = into / "repo"
    shutil.copytree(corpus.tree(entry["parent"]), repo, symlinks=True)
    apply_patch(repo, framework_patch(corpus, entry))
    git = ["git", "-C", str(repo), "-c", "user.name=replay", "-c", "user.email=replay@localhost"]
    subprocess.run([*git, "add", "-A"], check=True, capture_output=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", f"framework part of {entry['sha']}"], check=True,
                   capture_output=True)
    return repo


def followup_repository(corpus: Corpus, entry: dict[str, Any], into: Path) -> Path:
    """A scratch repository of three commits: U's parent, U (the upstream change, whole), F's parent (its work
    tree). F, whose lines are scored, is not in it."""
    repo = into / "repo"
    shutil.copytree(corpus.tree(entry["upstream_parent"]), repo, symlinks=True)
    git = ["git", "-C", str(repo), "-c", "user.name=replay", "-c", "user.email=replay@localhost"]
    for commit, message in ((entry["upstream"], "the upstream change"), (entry["parent"], "the follow-up's parent")):
        for child in repo.iterdir():
            if child.name == ".git":
                continue
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
        archive = subprocess.run(["git", "-C", str(corpus.history), "archive", commit], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(repo)], input=archive, check=True, capture_output=True)
        subprocess.run([*git, "add", "-A"], check=True, capture_output=True)
        subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", f"{message} {commit}"], check=True,
                       capture_output=True)
    return repo


def bot_command(corpus: Corpus, entry: dict[str, Any], at: str, tmp: Path, rules_from: Path = REPLAY) -> list[str]:
    """The bot's command for one migration: the rule alone (its file in `rules_from`) over a tree (`run`); `watch`
    over a scratch
    repository whose last commit is the framework part, with no rule at all (`watch`); or `watch` over U in a
    scratch repository whose work tree is F's parent (`followups`)."""
    if at == "watch":
        repo = watch_repository(corpus, entry, tmp)
        return ["bot", "watch", "--repo", str(repo), "--before", "HEAD~1", "--after", "HEAD", *WATCH_FLAGS]
    if at == "followups":
        repo = followup_repository(corpus, entry, tmp)
        rules = sorted(p for p in (FOLLOWUPS / "rules").glob("*.y*ml"))  # none while the set is the baseline's
        extra = ["--rules", str(FOLLOWUPS / "rules")] if rules else []
        return ["bot", "watch", "--repo", str(repo), "--before", "HEAD~2", "--after", "HEAD~1", *WATCH_FLAGS, *extra]
    tree = corpus.tree(entry["parent"]) if at == "parent" else framework_tree(corpus, entry, tmp)
    rules = tmp / "rules"
    rules.mkdir()
    shutil.copy(rules_from / entry["rule"], rules / entry["rule"])
    return ["bot", "run", "--repo", str(tree), "--dry-run", "--format", "diff", "--no-bundled",
            "--rules", str(rules), "--no-cache", "--no-baseline"]


WATCH_FLAGS = ("--no-bundled", "--dry-run", "--format", "diff")


def run_bot(name: str, cmd: list[str], keep: Path | None, label: str) -> tuple[list[FileDiff], float, str]:
    """Run the bot; its diff parsed, the seconds it took, and its summary line."""
    start = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True, errors="surrogateescape")
    seconds = time.monotonic() - start
    if out.returncode not in (0, 1):
        raise SystemExit(f"{name}: bot exited {out.returncode}: {out.stderr.strip()[-2000:]}")
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        (keep / f"{name}.{label}.diff").write_text(out.stdout, encoding="utf-8", errors="surrogateescape")
        (keep / f"{name}.{label}.stderr").write_text(out.stderr, encoding="utf-8", errors="surrogateescape")
    summary = next((ln for ln in out.stderr.splitlines() if ln.startswith("read ")), "")
    if not summary and out.stdout.startswith("no rule triggered"):
        summary = "no rule triggered"
    return parse_diff(out.stdout), seconds, summary


def bot_diff(corpus: Corpus, entry: dict[str, Any], at: str, keep: Path | None, rules_from: Path = REPLAY
             ) -> tuple[list[FileDiff], float, str]:
    with tempfile.TemporaryDirectory(prefix="replay-") as tmp:
        cmd = bot_command(corpus, entry, at, Path(tmp), rules_from)
        return run_bot(entry["name"], cmd, keep, at)


def later_changes(corpus: Corpus, sha: str, paths: list[str]) -> list[tuple[Counter[str], Counter[str]]]:
    """Per later first-parent commit on main touching these paths: (removed texts, added texts)."""
    text = corpus.git("log", "--first-parent", "-p", "-M", "-U0", "--no-color", "--format=@@COMMIT %H",
                      f"{sha}..HEAD", "--", *paths)
    out: list[tuple[Counter[str], Counter[str]]] = []
    for chunk in text.split("@@COMMIT ")[1:]:
        removed: Counter[str] = Counter()
        added: Counter[str] = Counter()
        for f in parse_diff(chunk):
            if f.new is None or (f.old not in paths and f.new not in paths):
                continue
            for line in f.lines:
                (removed if line.sign == "-" else added)[line.text.rstrip()] += 1
        out.append((removed, added))
    return out


def _missed(den: list[Any], covered: Counter[Key]) -> tuple[Counter[str], list[str]]:
    """The counted lines the bot's diff does not hold: how many by place, and which."""
    missed: Counter[str] = Counter()
    missed_lines: list[str] = []
    left = Counter(covered)
    for c in den:
        k = (c.path, c.sign, c.text.rstrip())
        if left[k] > 0:
            left[k] -= 1
        else:
            missed[c.where] += 1
            missed_lines.append(f"{c.path} {c.sign}{c.text.rstrip()}")
    return missed, missed_lines


def _made_later(corpus: Corpus, entry: dict[str, Any], blocks: dict[tuple[str, int], list[Key]], deleted: set[str],
                renamed: dict[str, str], budget: Counter[Key]) -> int:
    """How many of the bot's lines the humans' diff lacks a later commit of theirs made (whole blocks); those
    lines are taken out of `budget`."""
    later = 0
    history: dict[str, list[tuple[Counter[str], Counter[str]]]] = {}
    for (path, _), keys in blocks.items():
        if path in deleted:
            continue
        todo = [k for k in keys if budget[k] > 0]
        if not todo:
            continue
        if path not in history:
            history[path] = later_changes(corpus, entry["sha"], sorted({path, renamed.get(path, path)}))
        need_rm = Counter(t for _, s, t in todo if s == "-")
        need_add = Counter(t for _, s, t in todo if s == "+")
        if any(not (need_rm - rm) and not (need_add - add) for rm, add in history[path]):
            later += len(todo)
            for k in todo:
                budget[k] -= 1
    return later


def score(corpus: Corpus, sha: str, human: list[Any], files: list[Any], den: list[Any]) -> dict[str, Any]:
    """Covered and right (module docstring) of the bot's diff `files` against the human diff `human` of commit
    `sha` and its counted lines `den`: the counts, the missed lines by place and the lines not counted right."""
    human_lines: Counter[Key] = Counter()
    renamed: dict[str, str] = {}
    deleted: set[str] = set()
    for f in human:
        if f.status == "D":
            deleted.add(f.path)
        if f.status == "R" and f.old and f.new:
            renamed[f.old] = f.new
        for line in f.lines:
            human_lines[f.path, line.sign, line.text.rstrip()] += 1
    bot_lines: Counter[Key] = Counter()
    blocks: dict[tuple[str, int], list[Key]] = {}
    for f in files:
        for line in f.lines:
            key = (f.path, line.sign, line.text.rstrip())
            bot_lines[key] += 1
            blocks.setdefault((f.path, line.block), []).append(key)
    den_keys: Counter[Key] = Counter((c.path, c.sign, c.text.rstrip()) for c in den)
    covered = den_keys & bot_lines
    missed, missed_lines = _missed(den, covered)
    matched = bot_lines & human_lines
    spare = bot_lines - matched  # bot lines the humans' diff does not hold
    in_deleted = sum(n for (p, _, _), n in spare.items() if p in deleted)
    budget = Counter(spare)
    later = _made_later(corpus, {"sha": sha}, blocks, deleted, renamed, budget)
    wrong = sorted(f"{p} {s}{t}" for (p, s, t), n in budget.items() if n > 0 and p not in deleted for _ in range(n))
    return {"covered": sum(covered.values()), "bot_lines": sum(bot_lines.values()),
            "right": sum(matched.values()) + later, "later": later, "deleted": in_deleted, "wrong": wrong,
            "missed": dict(sorted(missed.items())), "missed_lines": missed_lines}


def measure(corpus: Corpus, entry: dict[str, Any], at: str, keep: Path | None, rules_from: Path = REPLAY
            ) -> dict[str, Any]:
    row: dict[str, Any] = {"name": entry["name"], "sha": entry["sha"], "format": entry["format"]}
    den = counted_lines(corpus, entry)
    row["denominator"] = len(den)
    if entry["format"] == "proposed" and at in ("parent", "framework"):  # watch runs no rule of the set
        row.update(covered=0, bot_lines=0, right=0, later=0, deleted=0, seconds=None,
                   missed=dict(Counter(c.where for c in den)))
        return row
    human = human_diff(corpus, entry["parent"], entry["sha"])
    files, seconds, summary = bot_diff(corpus, entry, at, keep, rules_from)
    row.update(score(corpus, entry["sha"], human, files, den), seconds=round(seconds, 1), summary=summary)
    return row


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "-"


def table(rows: list[dict[str, Any]], entries: dict[str, dict[str, Any]], at: str) -> str:
    out = ["| migration | human commit | kind / gap | denominator | covered | bot lines | right (later) | "
           "missed, by place |",
           "|---|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        e = entries[r["name"]]
        if "upstream" in e:  # a follow-up pair: the upstream change U, F's commit in the next column
            gap = f"U {e['upstream'][:10]}"
        else:
            gap = e["kind"] + ("; " + ", ".join(e["gaps"]) if e["gaps"] else "")
        missed = ", ".join(f"{k} {v}" for k, v in r["missed"].items()) or "none"
        if r["seconds"] is None:
            out.append(f"| {r['name']} | {r['sha'][:10]} | {gap} | {r['denominator']} | not expressible yet (0) "
                       f"| - | - | {missed} |")
            continue
        bot = r["bot_lines"] - r["deleted"]
        out.append(f"| {r['name']} | {r['sha'][:10]} | {gap} | {r['denominator']} | {r['covered']} "
                   f"({pct(r['covered'], r['denominator'])}) | {r['bot_lines']}"
                   + (f" ({r['deleted']} in deleted files)" if r["deleted"] else "")
                   + f" | {r['right']} ({r['later']}) = {pct(r['right'], bot)} | {missed} |")
    cur = [r for r in rows if r["format"] != "proposed"]
    totals = [("current format", cur)] if at in ("parent", "framework") else []
    for label, rs in (*totals, ("all", rows)):
        den = sum(r["denominator"] for r in rs)
        cov = sum(r["covered"] for r in rs)
        bot = sum(r["bot_lines"] - r["deleted"] for r in rs)
        right = sum(r["right"] for r in rs)
        out.append(f"| **{label}** ({len(rs)}) | | | {den} | {cov} ({pct(cov, den)}) | {bot} | "
                   f"{right} = {pct(right, bot)} | |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--only", nargs="*", default=[], metavar="NAME")
    ap.add_argument("--json", type=Path, help="also write the rows here")
    ap.add_argument("--keep", type=Path, help="keep the bot's diffs in this directory")
    ap.add_argument("--at", choices=["parent", "framework"], default="parent",
                    help="the tree the bot runs on: the parent (default), or the parent with the human commit's "
                         "framework part applied (every changed file that is not counted: the upstream change)")
    ap.add_argument("--watch", action="store_true",
                    help="no rule: `bot watch` over a scratch repository whose last commit is the framework part")
    ap.add_argument("--followups", action="store_true",
                    help="the follow-up pairs (tests/realworld/followups/set.json): `bot watch` over U at F's parent")
    ap.add_argument("--rules-from", type=Path, default=REPLAY,
                    help="where each migration's rule file is read (default tests/realworld/replay; the same "
                         "migrations written as format 2 rules are in tests/realworld/replay/migrations)")
    args = ap.parse_args(argv)
    at = "followups" if args.followups else "watch" if args.watch else args.at
    if shutil.which("bot") is None:
        raise SystemExit("bot is not on PATH: activate the venv (.venv/bin) first")
    corpus = Corpus(args.corpus.resolve())
    data = load_set(FOLLOWUPS / "set.json") if at == "followups" else load_set()
    listed = data["pairs"] if at == "followups" else data["migrations"]
    entries = {e["name"]: e for e in listed}
    rows = []
    for e in listed:
        if args.only and e["name"] not in args.only:
            continue
        row = measure(corpus, e, at, args.keep, args.rules_from.resolve())
        rows.append(row)
        print(f"{e['name']}: {row['covered']}/{row['denominator']} covered, {row['right']}/{row['bot_lines']} right"
              f" ({row['seconds']} s)", file=sys.stderr)
    print(table(rows, entries, at))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
