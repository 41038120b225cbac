"""The upgrade set of issue 43 (item 5): downstream upgrades across verl's history, and their baseline.

    python scripts/upgrade_set.py                  # every upgrade of the query: span, changes, counted lines
    python scripts/upgrade_set.py --show NAME      # the counted lines of one upgrade, with their changes
    python scripts/upgrade_set.py --write          # store the set in tests/realworld/upgrade_set/set.json
    python scripts/upgrade_set.py --check          # the stored set against the corpus (exit 1 on a difference)
    python scripts/upgrade_set.py --build NAME DIR # build one upgrade's downstream repository in DIR
    PATH=.venv/bin:$PATH python scripts/upgrade_set.py --baseline [--only NAME ...] [--json FILE]
                                                   # run `bot watch --upstream` per breaking change and score it
    PATH=.venv/bin:$PATH python scripts/upgrade_set.py --upgrade [--only NAME ...] [--json FILE]
                                                   # run `bot upgrade` once per upgrade and score it

The query (stated before any item-3 code; set.json keeps it). It is the one of scripts/downstream_set.py
(the spans, changes, tokens and counted lines are computed by its functions), with each breaking change
attributed, its PR number read, and the baseline run one upstream change at a time:
1. Pins: verl's version bumps (first-parent commits of main changing `verl/version/version`). A downstream
   pinned at one bump A upgrades to the next bump B.
2. Directories: `recipe/` (as a directory only: the last recipe span ends at 2bb42bae's parent, where it
   became a submodule) and `examples/`, each present at A.
3. Breaking changes: the labelled upstream changes of the replay set (tests/realworld/replay/set.json) and
   of the follow-up pairs (tests/realworld/followups/set.json), with their old/new tokens; a change is in a
   span when it is a first-parent commit of A..B. Its PR number is the last `(#N)` of its subject.
4. Counted human lines: the lines of `git diff -M -l0 -U0 A B` in the directory's files at A (scripts, docs,
   notebooks, workflows, example configs; modified or renamed) matching a span change's tokens (a removed
   line an `old` pattern, an added line a `new` one), less every line a span change C edited itself
   (`git diff -M C^ C`) in a file whose blob at C^ is one of the directory's blobs at A.
5. Per change of an upgrade: `counted` (the counted lines its tokens match), `left_out` (the lines its own
   commit edited in a file identical to the downstream copy) and `edits_dir` (how many of the directory's
   files its own commit modified).
6. Kept: an upgrade with at least one counted line (so at least one breaking change whose tokens the humans'
   edits of the directory's files match).

The downstream repository of an upgrade (`--build`): the directory's files at A at their paths, and a pin
file `requirements-verl.txt` with `verl @ git+https://github.com/volcengine/verl@A` (bot/downstream/pins.py
reads it as a commit pin), in one commit.

The baseline (`--baseline`): for each kept upgrade and each of its breaking changes C (history order), a
fresh downstream repository at A and

    bot watch --upstream HISTORY --before C^ --after C --repo D --no-bundled --dry-run --format diff

(HISTORY: the corpus's history clone; no `--rules`). Each diff is scored against the upgrade:
- covered: the upgrade's counted lines the diff holds (same path at A, same side, same text);
- right: the diff's lines the humans' A..B diff of the directory holds (the same key). The others are listed
  (`wrong`); `in_deleted` counts those in files the humans deleted by B. A line a later commit of the span
  rewrote again is not right (the net A..B diff holds only its last text).
Per upgrade the changes' diffs are merged (a line two runs both write counts once) and scored the same way.

The upgrade mode (`--upgrade`, issue 43 item 3): for each kept upgrade, one run over a fresh downstream at A,

    bot upgrade --repo D --to B --upstream HISTORY --no-bundled --dry-run --format diff --quiet

scored the same way (covered, right), its row set beside the baseline's (tests/realworld/upgrade_set/baseline.json),
with the seconds it took. The upgrades run one at a time.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from downstream_set import (
    DIRS,
    PIN_FILE,
    PIN_URL,
    SUBMODULE,
    Change,
    counted,
    first_parent,
    known_changes,
    span_diff,
    versions,
)
from downstream_set import QUERY as DOWNSTREAM_QUERY
from replay_denominator import DEFAULT_CORPUS, Corpus, FileDiff, parse_diff
from replay_denominator import QUERY as REPLAY_QUERY

HERE = Path(__file__).resolve().parent.parent
UPGRADES = HERE / "tests" / "realworld" / "upgrade_set"
SET = UPGRADES / "set.json"
BASELINE = UPGRADES / "baseline.json"

WATCH_FLAGS = ("--no-bundled", "--dry-run", "--format", "diff")
UPGRADE_FLAGS = ("--no-bundled", "--dry-run", "--format", "diff", "--quiet")
PR = re.compile(r"\(#(\d+)\)")

QUERY = {
    **DOWNSTREAM_QUERY,
    "pr": "the last `(#N)` in the change's subject",
    "per_change": "counted: the upgrade's counted lines its tokens match; left_out: lines its own commit edited in "
                  "files identical to the downstream copy at A; edits_dir: the directory's files its commit modified",
    "kept": "at least one counted line",
    "baseline": "per change C of the span: bot watch --upstream HISTORY --before C^ --after C --repo D "
                + " ".join(WATCH_FLAGS) + " (D fresh at A each time)",
}

Key = tuple[str, str, str]


# ---------------------------------------------------------------------------------------------- the set


def pr_number(subject: str) -> int | None:
    found = PR.findall(subject)
    return int(found[-1]) if found else None


def edits_dir(corpus: Corpus, change: Change, directory: str) -> int:
    """How many files under the directory the change's own commit modified (added and deleted ones too)."""
    names = corpus.git("diff", "--name-only", "--no-renames", change.parent, change.sha, "--", directory + "/")
    return len(names.split())


def upgrades(corpus: Corpus) -> list[dict[str, Any]]:
    """Every upgrade of the query (module docstring), oldest first, kept or not."""
    changes = known_changes()
    submodule_parent = corpus.git("rev-parse", f"{SUBMODULE}^").strip()
    points = versions(corpus)
    candidates = {sha for q in REPLAY_QUERY for sha in corpus.git(*q).split()}
    out: list[dict[str, Any]] = []
    for directory in DIRS:
        pts = points
        if directory == "recipe":
            before = set(corpus.git("rev-list", "--first-parent", submodule_parent).split())
            pts = [(s, v) for s, v in points if s in before] + [(submodule_parent, "before the recipe submodule")]
        for (a, va), (b, vb) in itertools.pairwise(pts):
            if not corpus.git("ls-tree", a, "--", directory).strip():
                continue
            inside = first_parent(corpus, a, b)
            order = {sha: i for i, sha in enumerate(reversed(inside))}
            span = sorted((c for c in changes if c.sha in order), key=lambda c: order[c.sha])
            if not span:
                continue
            lines, dropped = counted(corpus, a, b, directory, span)
            per_change = []
            for c in span:
                _, own_dropped = counted(corpus, a, b, directory, [c])
                per_change.append({"name": c.name, "sha": c.sha, "pr": pr_number(c.subject),
                                   "counted": sum(c.name in line["changes"] for line in lines),
                                   "left_out": own_dropped, "edits_dir": edits_dir(corpus, c, directory)})
            out.append({
                "name": f"{directory}-{_short(va)}-to-{_short(vb)}",
                "dir": directory, "A": a, "A_version": va, "A_date": _date(corpus, a),
                "B": b, "B_version": vb, "B_date": _date(corpus, b),
                "pin": {"file": PIN_FILE, "line": pin_line(a).strip()},
                "commits": len(inside),
                "changes": per_change,
                "unlabelled_candidates": len(set(inside) & candidates - {c.sha for c in span}),
                "left_out": dropped,
                "denominator": len(lines),
                "kept": bool(lines),
                "counted": lines,
            })
    return out


def _short(version: str) -> str:
    return "pre-submodule" if version.startswith("before") else "v" + version.lstrip("v")


def _date(corpus: Corpus, commit: str) -> str:
    return corpus.git("log", "-1", "--format=%ad", "--date=short", commit).strip()


def document(corpus: Corpus) -> dict[str, Any]:
    found = upgrades(corpus)
    used = {c["name"] for u in found if u["kept"] for c in u["changes"]}
    return {
        "issue": 43,
        "item": 5,
        "about": "The upgrade set of issue 43 (item 5), fixed before item 3's code: recipe/ (before it became a "
                 "submodule) and examples/ of verl, each extracted at a verl version bump A as a repository pinned "
                 f"to A ({PIN_FILE}), upgraded to the next bump B. Each breaking change of the span is labelled "
                 "(commit, PR, old/new tokens); counted lines are the humans' A..B lines in the directory matching "
                 "a change's tokens, less those the change itself edited in a file identical to the downstream "
                 "copy. Query and scoring: scripts/upgrade_set.py; docs/dev/realworld.md, 'Downstream upgrades "
                 "for bot upgrade'.",
        "query": QUERY,
        "changes": [{"name": c.name, "sha": c.sha, "parent": c.parent, "date": c.date, "subject": c.subject,
                     "pr": pr_number(c.subject), "source": c.source, "tokens": c.tokens}
                    for c in known_changes() if c.name in used],
        "upgrades": [u for u in found if u["kept"]],
        "dropped": [{"name": u["name"], "A": u["A"], "B": u["B"], "changes": [c["name"] for c in u["changes"]],
                     "left_out": u["left_out"]} for u in found if not u["kept"]],
    }


# ---------------------------------------------------------------------------------------------- downstream


def pin_line(commit: str) -> str:
    return f"verl @ {PIN_URL}@{commit}\n"


def build(corpus: Corpus, upgrade: dict[str, Any], repo: Path) -> Path:
    """The downstream repository at A (module docstring) in `repo` (created)."""
    repo.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(corpus.history), "archive", upgrade["A"], "--", upgrade["dir"]],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(repo)], input=archive, check=True, capture_output=True)
    (repo / PIN_FILE).write_text(pin_line(upgrade["A"]), encoding="utf-8")
    git = ["git", "-C", str(repo), "-c", "user.name=downstream", "-c", "user.email=downstream@localhost"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", f"{upgrade['dir']} at verl {upgrade['A']}"]):
        subprocess.run([*git, *args], check=True, capture_output=True)
    return repo


# ---------------------------------------------------------------------------------------------- scoring


@dataclass
class Score:
    counted: int
    covered: int
    bot_lines: int
    right: int
    missed: list[str]  # counted lines the bot's diff lacks
    wrong: list[str]  # bot lines the humans' diff lacks
    in_deleted: int = 0  # of the wrong ones, those in files the humans deleted by B

    def as_dict(self) -> dict[str, Any]:
        return {"counted": self.counted, "covered": self.covered, "bot_lines": self.bot_lines, "right": self.right,
                "in_deleted": self.in_deleted, "missed": self.missed, "wrong": self.wrong}


def diff_keys(files: list[FileDiff]) -> Counter[Key]:
    """Each changed line of a diff as (path at the parent, sign, text without trailing blanks)."""
    return Counter((f.path, line.sign, line.text.rstrip()) for f in files for line in f.lines)


def score(counted_lines: list[dict[str, Any]], human: Counter[Key], bot: Counter[Key],
          deleted: frozenset[str] = frozenset()) -> Score:
    """Covered and right (module docstring) of the bot's lines against an upgrade's counted lines and the
    humans' diff of the directory (`deleted`: the files it deletes, whose wrong lines are also counted apart)."""
    den: Counter[Key] = Counter((c["path"], c["sign"], c["text"].rstrip()) for c in counted_lines)
    covered = den & bot
    right = bot & human
    wrong = bot - right
    return Score(sum(den.values()), sum(covered.values()), sum(bot.values()), sum(right.values()),
                 _listed(den - covered), _listed(wrong), sum(n for (p, _, _), n in wrong.items() if p in deleted))


def _listed(keys: Counter[Key]) -> list[str]:
    return sorted(f"{p} {s}{t}" for (p, s, t), n in keys.items() for _ in range(n))


def merge(diffs: list[Counter[Key]]) -> Counter[Key]:
    """The lines of several runs over the same tree: a line two runs both write counts once."""
    out: Counter[Key] = Counter()
    for d in diffs:
        out |= d
    return out


# ---------------------------------------------------------------------------------------------- baseline


def watch_command(history: Path, change: dict[str, Any], repo: Path) -> list[str]:
    return ["bot", "watch", "--upstream", str(history), "--before", change["parent"], "--after", change["sha"],
            "--repo", str(repo), *WATCH_FLAGS]


def run_watch(corpus: Corpus, upgrade: dict[str, Any], change: dict[str, Any]) -> tuple[Counter[Key], dict[str, Any]]:
    """One `bot watch --upstream` over a fresh downstream at A: its diff's lines, and how the run went."""
    with tempfile.TemporaryDirectory(prefix="upgrade-set-") as tmp:
        repo = build(corpus, upgrade, Path(tmp) / "downstream")
        cmd = watch_command(corpus.history, change, repo)
        start = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="surrogateescape")
        seconds = time.monotonic() - start
    # exit 1 is findings; anything else is a failure of the run, kept in the row
    run = {"exit": proc.returncode, "seconds": round(seconds, 1),
           "stderr": proc.stderr.strip().splitlines()[-3:] if proc.returncode not in (0, 1) else []}
    return diff_keys(parse_diff(proc.stdout)), run


def baseline(corpus: Corpus, doc: dict[str, Any], only: list[str]) -> dict[str, Any]:
    changes = {c["name"]: c for c in doc["changes"]}
    rows = []
    for u in doc["upgrades"]:
        if only and u["name"] not in only:
            continue
        human_files = span_diff(corpus, u["A"], u["B"], u["dir"])
        human = diff_keys(human_files)
        deleted = frozenset(f.path for f in human_files if f.status == "D")
        per_change, diffs = [], []
        for c in u["changes"]:
            lines, run = run_watch(corpus, u, changes[c["name"]])
            diffs.append(lines)
            s = score(u["counted"], human, lines, deleted)
            mine = [line for line in u["counted"] if c["name"] in line["changes"]]
            per_change.append({"name": c["name"], "pr": c["pr"], **run, "own_counted": len(mine),
                               "own_covered": score(mine, human, lines).covered, **s.as_dict()})
            print(f"  {u['name']} {c['name']}: covered {s.covered}/{s.counted}, right {s.right}/{s.bot_lines}"
                  f" ({run['seconds']} s, exit {run['exit']})", file=sys.stderr)
        total = score(u["counted"], human, merge(diffs), deleted)
        rows.append({"name": u["name"], "dir": u["dir"], "A": u["A"], "B": u["B"], **total.as_dict(),
                     "changes": per_change})
    sums = {k: sum(r[k] for r in rows) for k in ("counted", "covered", "bot_lines", "right", "in_deleted")}
    return {
        "issue": 43,
        "about": "The baseline of the upgrade set (tests/realworld/upgrade_set/set.json): `bot watch --upstream` "
                 "(issue 43, item 2) run once per breaking change of each upgrade over the downstream at A, no rule "
                 "given; covered and right as scripts/upgrade_set.py defines them. What `bot upgrade` (item 3) is "
                 "compared with; the bar: >= 85% covered and >= 88% right with rules inferred only.",
        "bot": _head(),
        "command": "PATH=.venv/bin:$PATH python scripts/upgrade_set.py --baseline --json "
                   "tests/realworld/upgrade_set/baseline.json",
        "bot_command": QUERY["baseline"],
        "totals": {"upgrades": len(rows), **sums, "covered_pct": _pct(sums["covered"], sums["counted"]),
                   "right_pct": _pct(sums["right"], sums["bot_lines"])},
        "rows": rows,
    }


def upgrade_command(history: Path, upgrade: dict[str, Any], repo: Path) -> list[str]:
    return ["bot", "upgrade", "--repo", str(repo), "--to", upgrade["B"], "--upstream", str(history), *UPGRADE_FLAGS]


def run_upgrade(corpus: Corpus, upgrade: dict[str, Any]) -> tuple[Counter[Key], dict[str, Any]]:
    """One `bot upgrade` over a fresh downstream at A: its diff's lines, and how the run went."""
    with tempfile.TemporaryDirectory(prefix="upgrade-set-") as tmp:
        repo = build(corpus, upgrade, Path(tmp) / "downstream")
        start = time.monotonic()
        proc = subprocess.run(upgrade_command(corpus.history, upgrade, repo), capture_output=True, text=True,
                              errors="surrogateescape")
        seconds = time.monotonic() - start
    said = proc.stderr.strip().splitlines()
    run = {"exit": proc.returncode, "seconds": round(seconds, 1), "timing": said[-1] if said else "",
           "stderr": said[-3:] if proc.returncode != 0 else []}
    files = [f for f in parse_diff(proc.stdout) if f.path != PIN_FILE]  # the pin bumped is no migration line
    return diff_keys(files), run


def upgrade_mode(corpus: Corpus, doc: dict[str, Any], only: list[str],
                 save: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """`bot upgrade` per kept upgrade, scored as the baseline is, beside the baseline's row; `save` gets the result
    so far after each upgrade (a run of hours that is stopped keeps the rows it made)."""
    before = {r["name"]: r for r in json.loads(BASELINE.read_text(encoding="utf-8"))["rows"]} \
        if BASELINE.exists() else {}
    rows = []
    for u in doc["upgrades"]:
        if only and u["name"] not in only:
            continue
        human_files = span_diff(corpus, u["A"], u["B"], u["dir"])
        deleted = frozenset(f.path for f in human_files if f.status == "D")
        lines, run = run_upgrade(corpus, u)
        s = score(u["counted"], diff_keys(human_files), lines, deleted)
        base = before.get(u["name"], {})
        rows.append({"name": u["name"], "dir": u["dir"], "A": u["A"], "B": u["B"], "commits": u["commits"], **run,
                     **s.as_dict(), "changes": [{"name": c["name"], "pr": c["pr"]} for c in u["changes"]],
                     "baseline": {k: base.get(k) for k in ("covered", "bot_lines", "right")}})
        print(f"  {u['name']}: covered {s.covered}/{s.counted}, right {s.right}/{s.bot_lines} "
              f"(baseline {base.get('covered')}/{base.get('counted')}, {base.get('right')}/{base.get('bot_lines')}; "
              f"{run['seconds']} s, {u['commits']} commits, exit {run['exit']})", file=sys.stderr, flush=True)
        if save is not None:
            save(_upgrade_result(rows))
    return _upgrade_result(rows)


def _upgrade_result(rows: list[dict[str, Any]]) -> dict[str, Any]:
    sums = {k: sum(r[k] for r in rows) for k in ("counted", "covered", "bot_lines", "right", "in_deleted")}
    return {
        "issue": 43,
        "about": "`bot upgrade` (issue 43, item 3) over the upgrade set, one run per upgrade, rules inferred only; "
                 "covered and right as scripts/upgrade_set.py defines them (the pin file's own line left out).",
        "bot": _head(),
        "command": "PATH=.venv/bin:$PATH python scripts/upgrade_set.py --upgrade --json "
                   "tests/realworld/upgrade_set/upgrade.json",
        "bot_command": "bot upgrade --repo D --to B --upstream HISTORY " + " ".join(UPGRADE_FLAGS),
        "totals": {"upgrades": len(rows), **sums, "covered_pct": _pct(sums["covered"], sums["counted"]),
                   "right_pct": _pct(sums["right"], sums["bot_lines"]),
                   "seconds": round(sum(r["seconds"] for r in rows), 1)},
        "rows": rows,
    }


def _head() -> str:
    """The last commit that changed bot/ (the bot the baseline ran)."""
    out = subprocess.run(["git", "-C", str(HERE), "log", "-1", "--format=%h", "--", "bot"], capture_output=True,
                         text=True)
    return out.stdout.strip()


def _pct(a: int, b: int) -> float | None:
    return round(100 * a / b, 1) if b else None


def table(result: dict[str, Any]) -> str:
    out = ["| upgrade | changes (PR) | counted | covered | right / bot lines | not right, in deleted files |",
           "|---|---|---:|---:|---:|---:|"]
    for r in result["rows"]:
        prs = ", ".join(f"#{c['pr']}" if c["pr"] else c["name"] for c in r["changes"])
        out.append(f"| {r['name']} | {prs} | {r['counted']} | {r['covered']} | {r['right']}/{r['bot_lines']} | "
                   f"{r['in_deleted']} |")
    t = result["totals"]
    out.append(f"| **all ({t['upgrades']})** | | **{t['counted']}** | **{t['covered']} ({t['covered_pct']}%)** | "
               f"**{t['right']}/{t['bot_lines']} ({t['right_pct']}%)** | {t['in_deleted']} |")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------- command


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--show", metavar="NAME", help="print the counted lines of this upgrade")
    ap.add_argument("--write", action="store_true", help="store the set in tests/realworld/upgrade_set/set.json")
    ap.add_argument("--check", action="store_true", help="compare the stored set with the corpus")
    ap.add_argument("--build", nargs=2, metavar=("NAME", "DIR"), help="build this upgrade's downstream in DIR")
    ap.add_argument("--baseline", action="store_true", help="run and score `bot watch --upstream` (stored set)")
    ap.add_argument("--upgrade", action="store_true", help="run and score `bot upgrade` once per upgrade")
    ap.add_argument("--only", nargs="*", default=[], help="with --baseline or --upgrade: only these upgrades")
    ap.add_argument("--json", type=Path, help="with --baseline or --upgrade: write the result here")
    args = ap.parse_args(argv)
    corpus = Corpus(args.corpus.resolve())
    if args.build or args.baseline or args.upgrade:
        stored = json.loads(SET.read_text(encoding="utf-8"))
        if args.build:
            upgrade = next((u for u in stored["upgrades"] if u["name"] == args.build[0]), None)
            if upgrade is None:
                raise SystemExit(f"{SET}: no upgrade named {args.build[0]!r}")
            print(build(corpus, upgrade, Path(args.build[1])))
            return 0

        def save(result: dict[str, Any]) -> None:
            if args.json:
                args.json.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

        result = upgrade_mode(corpus, stored, args.only, save) if args.upgrade else baseline(corpus, stored, args.only)
        save(result)
        print(table(result))
        return 0
    doc = document(corpus)
    for u in doc["upgrades"]:
        if args.show and u["name"] != args.show:
            continue
        prs = ", ".join(f"{c['name']} (#{c['pr']}: {c['counted']} counted, {c['edits_dir']} files)"
                        for c in u["changes"])
        print(f"{u['name']:34s} {u['A'][:10]}..{u['B'][:10]} {u['commits']:4d} commits {u['denominator']:4d} counted"
              f" ({u['left_out']} left out)  {prs}")
        if args.show:
            for line in u["counted"]:
                print(f"  {line['sign']} {line['path']}: {line['text'].strip()}  [{', '.join(line['changes'])}]")
    for d in doc["dropped"]:
        print(f"{d['name']:34s} dropped: no counted line ({', '.join(d['changes'])})")
    if args.write:
        SET.parent.mkdir(parents=True, exist_ok=True)
        SET.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.check:
        stored = json.loads(SET.read_text(encoding="utf-8"))
        if stored["upgrades"] != doc["upgrades"] or stored["changes"] != doc["changes"]:
            print("the stored set differs from the query's result", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
