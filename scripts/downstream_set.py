"""The downstream set of issue 43 (item 5): upgrades of repositories extracted from verl's history.

    python scripts/downstream_set.py                # every upgrade of the query: span, changes, counted lines
    python scripts/downstream_set.py --show NAME    # the counted lines of one upgrade
    python scripts/downstream_set.py --write        # store the set in tests/realworld/downstream/set.json
    python scripts/downstream_set.py --check        # the stored set against the corpus (exit 1 on a difference)

The query (stated before any downstream code; set.json keeps it):
1. Versions: the first-parent commits of verl's main that change `verl/version/version` (verl's own version
   bumps: releases and the `.dev` bumps that open a cycle). A downstream pinned at one of them (A) upgrades
   to the next one (B).
2. Directories: `recipe/` (only while it was a directory: B before 2bb42bae, where it became a submodule, so
   the last recipe span ends at 2bb42bae's parent) and `examples/`, each present at A.
3. Breaking changes: the labelled upstream changes of the replay set (tests/realworld/replay/set.json, its
   `sha`) and the follow-up pairs' upstream changes (tests/realworld/followups/set.json, its `upstream`),
   each with its old/new tokens (pairs sharing an upstream change share its tokens); a change is in a span
   when it is a first-parent commit of A..B.
4. Counted human lines: the lines of `git diff -M -l0 A B` in files under the directory at A (renames
   followed, a file moved out of it too) that the bot could have changed (replay_denominator.counted_kind:
   scripts, docs, notebooks, workflows, example configs) and that verl's humans modified or renamed (an
   added or deleted file is not a migration), matching a change's tokens in the span (a removed line an
   `old` pattern, an added line a `new` one); leaving out every line a change in the span itself edited
   (`git diff -M C^ C`) in a file whose content at C^ is the downstream copy's at A (the upstream change
   migrated that copy itself: nothing a downstream maintainer did).
5. Not labelled: the other commits of the span the replay set's git queries find (replay_denominator.QUERY:
   a framework config key line, an entry point moved, a value the code tests) are counted per upgrade
   (`unlabelled_candidates`) but have no tokens, so no line of theirs is counted.
6. An upgrade is kept when it spans at least one breaking change and has at least one counted line.

The downstream repository of an upgrade (benchmarks/downstream.py): the directory's files at A, at their
paths (`recipe/...`, `examples/...`), and a pin file `requirements-verl.txt` with one requirement line,
`verl @ git+https://github.com/volcengine/verl@A` (the full commit), in one commit.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replay_denominator import (
    DEFAULT_CORPUS,
    REPLAY,
    Corpus,
    FileDiff,
    counted_kind,
    load_set,
    parse_diff,
)
from replay_denominator import QUERY as REPLAY_QUERY

HERE = Path(__file__).resolve().parent.parent
DOWNSTREAM = HERE / "tests" / "realworld" / "downstream"
SET = DOWNSTREAM / "set.json"
FOLLOWUP_SET = HERE / "tests" / "realworld" / "followups" / "set.json"

DIRS = ("recipe", "examples")
SUBMODULE = "2bb42bae6078359c3fdc56ba6c7533e76fc05407"  # recipe/ became a submodule here
VERSION_FILE = "verl/version/version"
PIN_FILE = "requirements-verl.txt"
PIN_URL = "git+https://github.com/volcengine/verl"

QUERY = {
    "versions": f"git log --first-parent --format=%H -- {VERSION_FILE}",
    "dirs": list(DIRS),
    "recipe_until": f"{SUBMODULE}^ (recipe/ is a submodule from {SUBMODULE[:8]} on)",
    "changes": "the replay set's `sha` and the follow-up pairs' `upstream` (their tokens), first-parent in A..B",
    "span_changes": "git rev-list --first-parent A..B",
    "human_diff": "git diff -M -l0 -U0 A B (files under DIR at A; counted kinds; modified or renamed)",
    "left_out": "git diff -M -U0 C^ C for each change C in the span, in files whose blob at C^ is one of DIR's "
                "blobs at A",
    "unlabelled_candidates": "the replay set's three git queries (tests/realworld/replay/set.json, query.git) "
                             "in A..B, less the labelled changes",
    "pin": f"{PIN_FILE}: verl @ {PIN_URL}@A",
}


@dataclass
class Change:
    name: str
    sha: str
    parent: str
    date: str
    subject: str
    source: str  # "replay" or "followups"
    tokens: dict[str, list[str]]
    rule: str | None  # the replay set's hand-written rule (current format), if any

    def matches(self, sign: str, text: str) -> bool:
        pats = self.tokens["old"] if sign == "-" else self.tokens["new"]
        return any(re.search(p, text) for p in pats)


def known_changes(replay_set: Path = REPLAY / "set.json", followup_set: Path = FOLLOWUP_SET) -> list[Change]:
    """The labelled breaking changes: the replay set's migrations and the follow-up pairs' upstream changes."""
    by_sha: dict[str, Change] = {}
    for m in load_set(replay_set)["migrations"]:
        rule = m["rule"] if m.get("format") == "current" else None
        by_sha[m["sha"]] = Change(m["name"], m["sha"], m["parent"], m["date"], m["subject"], "replay",
                                  {"old": list(m["tokens"]["old"]), "new": list(m["tokens"]["new"])}, rule)
    groups: dict[str, list[dict[str, Any]]] = {}
    for p in load_set(followup_set)["pairs"]:
        groups.setdefault(p["upstream"], []).append(p)
    for sha, pairs in groups.items():
        name = _shared_words([p["name"] for p in pairs])
        tokens: dict[str, list[str]] = {"old": [], "new": []}
        for p in pairs:
            for side in ("old", "new"):
                tokens[side] += [t for t in p["tokens"][side] if t not in tokens[side]]
        first = pairs[0]
        if sha in by_sha:  # the same upstream change in both sets: one change, both sets' tokens
            known = by_sha[sha]
            for side in ("old", "new"):
                known.tokens[side] += [t for t in tokens[side] if t not in known.tokens[side]]
            known.source = "replay+followups"
            continue
        by_sha[sha] = Change(name, sha, first["upstream_parent"], first["upstream_date"], first["upstream_subject"],
                             "followups", tokens, None)
    return sorted(by_sha.values(), key=lambda c: (c.date, c.name))


def _shared_words(names: list[str]) -> str:
    """The words (`-`-separated) the names share at their start: the change's name for its pairs."""
    words = [n.split("-") for n in names]
    shared = []
    for column in zip(*words, strict=False):
        if len(set(column)) > 1:
            break
        shared.append(column[0])
    return "-".join(shared) or names[0]


def versions(corpus: Corpus) -> list[tuple[str, str]]:
    """verl's version bumps on main, oldest first: (commit, the version it sets)."""
    shas = corpus.git("log", "--first-parent", "--format=%H", "--", VERSION_FILE).split()
    return [(s, (corpus.show(s, VERSION_FILE) or "?").strip()) for s in reversed(shas)]


def first_parent(corpus: Corpus, a: str, b: str) -> list[str]:
    return corpus.git("rev-list", "--first-parent", f"{a}..{b}").split()


def dir_blobs(corpus: Corpus, commit: str, directory: str) -> dict[str, str]:
    """path -> blob of every file under the directory at the commit."""
    out: dict[str, str] = {}
    for row in corpus.git("ls-tree", "-r", commit, "--", directory).splitlines():
        meta, path = row.split("\t", 1)
        kind, blob = meta.split()[1:3]
        if kind == "blob":
            out[path] = blob
    return out


def blob_at(corpus: Corpus, commit: str, path: str) -> str | None:
    out = subprocess.run(["git", "-C", str(corpus.history), "rev-parse", "--verify", "-q", f"{commit}:{path}"],
                         capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else None


def span_diff(corpus: Corpus, a: str, b: str, directory: str) -> list[FileDiff]:
    """The files of A..B whose path at A is under the directory (renames followed, also out of it)."""
    text = corpus.git("diff", "-M", "-l0", "--no-color", "--no-ext-diff", "-U0", a, b)
    return [f for f in parse_diff(text) if f.old is not None and f.old.startswith(directory + "/")]


def left_out(corpus: Corpus, a: str, directory: str, changes: list[Change]) -> Counter[tuple[str, str, str]]:
    """The lines the span's changes edited themselves in files identical to the downstream copy at A, by the
    copy's path at A."""
    blobs = dir_blobs(corpus, a, directory)
    path_of = {blob: path for path, blob in blobs.items()}
    out: Counter[tuple[str, str, str]] = Counter()
    for c in changes:
        text = corpus.git("diff", "-M", "--no-color", "--no-ext-diff", "-U0", c.parent, c.sha)
        for f in parse_diff(text):
            if f.old is None:
                continue
            blob = blob_at(corpus, c.parent, f.old)
            if blob is None or blob not in path_of:
                continue
            at_a = f.old if blobs.get(f.old) == blob else path_of[blob]
            for line in f.lines:
                out[at_a, line.sign, line.text.rstrip()] += 1
    return out


def counted(corpus: Corpus, a: str, b: str, directory: str, changes: list[Change]) -> tuple[list[dict[str, Any]], int]:
    """The counted human lines of one upgrade (the query's step 4), and how many matching lines were left out."""
    skip = left_out(corpus, a, directory, changes)
    lines: list[dict[str, Any]] = []
    dropped = 0
    for f in span_diff(corpus, a, b, directory):
        if f.status not in ("M", "R"):
            continue
        if (counted_kind(f.new or "") or counted_kind(f.old or "")) is None:
            continue
        for line in f.lines:
            names = [c.name for c in changes if c.matches(line.sign, line.text)]
            if not names:
                continue
            key = (f.path, line.sign, line.text.rstrip())
            if skip[key] > 0:
                skip[key] -= 1
                dropped += 1
                continue
            lines.append({"path": f.path, "sign": line.sign, "text": line.text.rstrip(), "changes": names})
    return lines, dropped


def query(corpus: Corpus) -> list[dict[str, Any]]:
    """Every upgrade of the query (module docstring), oldest first."""
    changes = known_changes()
    order = corpus.git("rev-list", "--first-parent", "HEAD").split()
    on_main = set(order)
    missing = [c.name for c in changes if c.sha not in on_main]
    if missing:
        raise SystemExit(f"not first-parent commits of main: {', '.join(missing)}")
    submodule_parent = corpus.git("rev-parse", f"{SUBMODULE}^").strip()
    points = versions(corpus)
    candidates = {sha for q in REPLAY_QUERY for sha in corpus.git(*q).split()}  # the replay set's git queries
    out: list[dict[str, Any]] = []
    for directory in DIRS:
        pts = points
        if directory == "recipe":  # as a directory only: its last state is the submodule change's parent
            before = set(corpus.git("rev-list", "--first-parent", submodule_parent).split())
            pts = [(s, v) for s, v in points if s in before] + [(submodule_parent, "before the recipe submodule")]
        for (a, va), (b, vb) in itertools.pairwise(pts):
            if not dir_blobs(corpus, a, directory):
                continue
            inside = set(first_parent(corpus, a, b))
            span = [c for c in changes if c.sha in inside]
            if not span:
                continue
            lines, dropped = counted(corpus, a, b, directory, span)
            out.append({
                "name": f"{directory}-{_short(va)}-to-{_short(vb)}",
                "dir": directory, "A": a, "A_version": va, "A_date": _date(corpus, a),
                "B": b, "B_version": vb, "B_date": _date(corpus, b),
                "commits": len(inside),
                "changes": [c.name for c in span],
                "unlabelled_candidates": len(inside & candidates - {c.sha for c in span}),
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
    changes = known_changes()
    upgrades = query(corpus)
    used = {n for u in upgrades if u["kept"] for n in u["changes"]}
    return {
        "issue": 43,
        "about": "The downstream set of issue 43 (item 5), fixed before the code: recipe/ (before it became a "
                 "submodule) and examples/ of verl, each extracted at a verl version bump A as a repository "
                 f"pinned to A ({PIN_FILE}), upgraded to the next bump B that spans a labelled breaking change. "
                 "Counted lines: the humans' A..B lines in the directory matching a change's tokens, less those the "
                 "change itself edited in a file identical to the downstream copy. Query: scripts/downstream_set.py; "
                 "runner: benchmarks/downstream.py; docs/dev/realworld.md.",
        "query": QUERY,
        "changes": [{"name": c.name, "sha": c.sha, "parent": c.parent, "date": c.date, "subject": c.subject,
                     "source": c.source, "rule": c.rule, "tokens": c.tokens}
                    for c in changes if c.name in used],
        "upgrades": upgrades,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--show", metavar="NAME", help="print the counted lines of this upgrade")
    ap.add_argument("--write", action="store_true", help="store the set in tests/realworld/downstream/set.json")
    ap.add_argument("--check", action="store_true", help="compare the stored set with the corpus")
    args = ap.parse_args(argv)
    corpus = Corpus(args.corpus.resolve())
    doc = document(corpus)
    for u in doc["upgrades"]:
        if args.show and u["name"] != args.show:
            continue
        mark = "" if u["kept"] else "  (dropped: no counted line)"
        print(f"{u['name']:34s} {u['A'][:10]}..{u['B'][:10]} {u['commits']:4d} commits {u['denominator']:4d} counted"
              f" ({u['left_out']} left out)  {', '.join(u['changes'])}{mark}")
        if args.show:
            for line in u["counted"]:
                print(f"  {line['sign']} {line['path']}: {line['text'].strip()}  [{', '.join(line['changes'])}]")
    if args.write:
        SET.parent.mkdir(parents=True, exist_ok=True)
        SET.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.check:
        stored = load_set(SET)
        if stored["upgrades"] != doc["upgrades"] or stored["changes"] != doc["changes"]:
            print("the stored set differs from the query's result", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
