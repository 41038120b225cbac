"""Issue 42 item 4: the migrations `watch` would read from ordinary verl merges, each proposal judged by hand.

    python scripts/migration_survey.py             # every commit of the set -> tests/realworld/migration_survey.json
    python scripts/migration_survey.py --only SHA    # one commit, printed (the file is left alone)
    python scripts/migration_survey.py --probe       # the probe beside the set (below), stored under "probe"

The set (stated in the JSON before any verdict): the 100 consecutive first-parent commits ending at verl's tip,
and the commits of tests/realworld/infer_set.json labelled loosening or moved. For each commit C whose change
edits a `.yaml`/`.yml` file, bot.upstream.config_migration.read_migration runs with before = C's first parent,
after = C, history = the corpus's history clone and tree = a work tree of C (the corpus's `verl-tree C`), in a
child process of its own, one commit after another, so its seconds are a cold run's. A commit that edits no
YAML gets no proposal by construction (`watch` does not call read_migration for it) and is listed as such.

Each row keeps the high-confidence rule's `migration` (what `watch` would open as a draft PR), the suggested
rule's, the keys the apps read differently, and the seconds. The `verdict` of each high step (right: a launch
with the old form breaks or is deprecated and the step is the fix a maintainer would write; wrong: why) is
written by hand into the JSON (`suggested_verdict` likewise for a sample of the suggested steps); a rerun keeps
the verdicts of the rows whose proposals did not change.

The probe is not the set: ordinary merges rarely touch a key a launch sets, so it takes the 60 first-parent
commits before the range that edit the trainer's config YAML, where moves and removals are common, to see more
high proposals judged.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# the corpus beside the checkout (../shared/corpus), or beside the checkouts' folder for a worktree
CORPUS = next((p for p in (ROOT.parent / "shared" / "corpus", ROOT.parent.parent / "shared" / "corpus")
               if (p / "verl-tree").exists()), ROOT.parent / "shared" / "corpus")
OUT = ROOT / "tests" / "realworld" / "migration_survey.json"
INFER_SET = ROOT / "tests" / "realworld" / "infer_set.json"
TIP = "1dda039b9c6311889a9c9a26040677e1254814f9"
LABELS = ("loosening", "moved")
RANGE_START = "bc72e38edba78e778bfbd462638f9634b9140a76"  # the range's oldest commit
PROBE_SIZE = 60
PROBE_PATHS = ":(glob)verl/trainer/config/**/*.yaml"
QUERY = {
    "range": f"git -C HISTORY rev-list --first-parent -n 100 {TIP}",
    "infer_set": "the commits of tests/realworld/infer_set.json whose label is loosening or moved",
    "call": ("bot.upstream.config_migration.read_migration(history, tree, before=C^1, after=C, paths, upstream) "
             "with history = `verl-tree --history`, tree = `verl-tree C`, paths = bot.upstream.change.read_change's; "
             "only for commits whose change edits a .yaml/.yml file"),
    "probe": (f"git -C HISTORY rev-list --first-parent -n {PROBE_SIZE} {RANGE_START}^ -- "
              f"'{PROBE_PATHS}' (beside the set, not part of it)"),
    "verdict": ("per high step, by hand against the commit's own diff: right when a launch with the old form breaks "
                "or is deprecated after the commit and the step is the fix a maintainer would write, else wrong"),
}


def _corpus(*args: str) -> Path:
    out = subprocess.run([str(CORPUS / "verl-tree"), *args], check=True, capture_output=True, text=True)
    return Path(out.stdout.strip())


def _git(history: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(history), *args], check=True, capture_output=True, text=True).stdout


def the_set(history: Path) -> list[tuple[str, str]]:
    """(full sha, where it comes from) for each commit of the set, in the range's order, then the infer set's."""
    out: dict[str, str] = {sha: "range" for sha in _git(history, "rev-list", "--first-parent", "-n", "100",
                                                         TIP).split()}
    for commit in json.loads(INFER_SET.read_text())["commits"]:
        if commit["label"] in LABELS:
            sha = _git(history, "rev-parse", "--verify", commit["sha"] + "^{commit}").strip()
            out[sha] = f"{out[sha]}, infer_set {commit['label']}" if sha in out else f"infer_set {commit['label']}"
    return list(out.items())


def the_probe(history: Path) -> list[tuple[str, str]]:
    shas = _git(history, "rev-list", "--first-parent", "-n", str(PROBE_SIZE), f"{RANGE_START}^", "--", PROBE_PATHS)
    return [(sha, "probe") for sha in shas.split()]


def one(sha: str) -> dict[str, Any]:
    """The row of one commit, read in this process."""
    from bot.upstream.change import read_change

    history = _corpus("--history")
    sha = _git(history, "rev-parse", "--verify", sha + "^{commit}").strip()
    parent = _git(history, "rev-parse", f"{sha}^1").strip()
    change = read_change(history, parent, sha)
    yaml = any(p.endswith((".yaml", ".yml")) for p in change.paths)
    row: dict[str, Any] = {"sha": sha, "subject": change.subject, "yaml_edited": yaml, "high": None,
                           "suggested": None, "disagreeing": [], "seconds": None}
    if not yaml:
        row["note"] = "no YAML edited: no proposal by construction"
        return row
    tree = _corpus(sha)
    from bot.upstream.config_migration import read_migration
    from bot.upstream.migration_rule import HIGH

    upstream = f"#{change.pull_number}" if change.pull_number is not None else sha[:12]
    start = time.perf_counter()
    migration = read_migration(history, tree, change.before, change.after, change.paths, upstream)
    row["seconds"] = round(time.perf_counter() - start, 2)
    row["high"] = migration.rule["migration"] if migration.rule else None
    row["suggested"] = migration.suggested["migration"] if migration.suggested else None
    row["disagreeing"] = migration.disagreeing
    row["high_steps"] = [_step(s) for s in migration.steps if s.confidence == HIGH]
    row["apps"] = _apps(history, tree, change.before, change.after, change.paths)
    return row


def _apps(history: Path, tree: Path, before: str, after: str, paths: list[str]) -> list[str]:
    """The apps the change's YAML reaches, each as `config_name: composed before/after` (a second reading, after
    the timed one: it shows that an empty proposal is not an app that failed to compose)."""
    from bot.upstream.config_tree import app_configs

    return [f"{app.config_dir}/{app.config_name}: {'yes' if app.before is not None else 'no'}/"
            f"{'yes' if app.after is not None else 'no'}" for app in app_configs(history, tree, before, after, paths)]


def _step(step: Any) -> dict[str, Any]:
    change = step.change
    return {"kind": change.kind, "old": change.old, "new": change.new, "subtree": change.subtree,
            "evidence": change.evidence, "agreeing": step.agreeing, "configs": sorted(step.configs)}


def _child(sha: str) -> dict[str, Any]:
    """One commit's row from a fresh interpreter: a cold run, nothing cached from the commits before."""
    out = subprocess.run([sys.executable, __file__, "--only", sha], check=True, capture_output=True, text=True,
                         cwd=ROOT)
    row: dict[str, Any] = json.loads(out.stdout)
    return row


def _kept_verdicts(rows: list[dict[str, Any]], stored_rows: list[dict[str, Any]]) -> None:
    """Carry the hand verdicts of the stored file over to rows whose proposal is the same."""
    stored = {r["sha"]: r for r in stored_rows}
    for row in rows:
        old = stored.get(row["sha"], {})
        for verdict, proposal in (("verdict", "high"), ("suggested_verdict", "suggested")):
            if verdict in old and old.get(proposal) == row[proposal]:
                row[verdict] = old[verdict]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="one commit: print its row")
    parser.add_argument("--probe", action="store_true", help="survey the probe (stored under `probe`), not the set")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.only:
        print(json.dumps(one(args.only)))
        return 0
    history = _corpus("--history")
    stored: dict[str, Any] = json.loads(OUT.read_text()) if OUT.exists() else {}
    part = "probe" if args.probe else "commits"
    rows = _survey(the_probe(history) if args.probe else the_set(history))
    _kept_verdicts(rows, stored.get(part, []))
    stored = {"query": QUERY, "commits": stored.get("commits", []), "probe": stored.get("probe", []), part: rows}
    OUT.write_text(json.dumps(stored, indent=1) + "\n")
    return 0


def _survey(commits: list[tuple[str, str]]) -> list[dict[str, Any]]:
    rows = []
    for sha, source in commits:
        row = _child(sha)
        row["from"] = source
        rows.append(row)
        print(f"{sha[:8]} yaml={row['yaml_edited']!s:5} high={'yes' if row['high'] else '-':3} "
              f"suggested={'yes' if row['suggested'] else '-':3} {row['seconds'] or '':>6} {row['subject'][:60]}",
              file=sys.stderr, flush=True)
    return rows


if __name__ == "__main__":
    sys.exit(main())
