"""Follow-up pairs of issue 42 (evaluation set b): an upstream change U and a later human fix F, from verl's history.

    python scripts/followup_pairs.py                  # the query's candidates: U, F, the token pair, F's lines
    python scripts/followup_pairs.py --check          # each labelled pair of the set: its counted lines, stored and now
    python scripts/followup_pairs.py --write          # store the counted lines of the labelled pairs in set.json

The query (stated before any labelling; tests/realworld/followups/set.json keeps it):
1. U is a first-parent commit on main whose framework part changes a config key line (the framework config's
   YAML or dataclasses) or an `assert`/`raise` line, or a value the framework tests (replay_denominator's
   query, plus the assert/raise test), and which also edits launch files (scripts, docs, notebooks,
   workflows, example configs: replay_denominator.counted_kind).
2. U's token pairs come from U's own launch edits: the overrides (`key=value`) its removed lines hold and its
   added lines do not (old), and the reverse (new), paired by the key's last part (a value changed:
   `use_mbridge=False -> use_mbridge=True`) or by the value (a key renamed: `warmup_style=cosine ->
   lr_scheduler_type=cosine`); a pair is kept when U's framework part names the old or the new key.
3. F is a later first-parent commit on main that, in launch files U did not edit, removes a line matching
   a pair's old token and adds one matching its new token in the same file.
The candidates are then read by hand (docs/dev/realworld.md): a pair is kept when F's edit follows from U
(U made the old form fail or deprecated it, and F says or shows that it migrates to U's form), and dropped
when F re-tunes a value for its own reasons, or U only re-tuned an example.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replay_denominator import (
    DEFAULT_CORPUS,
    QUERY,
    Corpus,
    counted_kind,
    counted_lines,
    parse_diff,
)

HERE = Path(__file__).resolve().parent.parent
FOLLOWUPS = HERE / "tests" / "realworld" / "followups"
SET = FOLLOWUPS / "set.json"

ASSERTS = ["log", "--first-parent", "--format=%H", r"-G^\s*(assert|raise)\b", "--", "verl/*.py"]
LAUNCH_SPECS = ["*.sh", "*.bash", "*.slurm", "*.md", "*.rst", "*.ipynb", "*.yaml", "*.yml"]
# an override as a launch writes it: a dotted key (optionally +, ++), `=`, a value up to a blank or a quote's end
OVERRIDE = re.compile(r"""(?<![\w.$/-])\+{0,2}((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)=("[^"]*"|'[^']*'|[^\s\\;"'`]+)""")
NOT_KEYS = {"export", "CUDA_VISIBLE_DEVICES", "PYTHONPATH", "HYDRA_FULL_ERROR"}


@dataclass(frozen=True)
class Pair:
    """One old form U replaced and its new form: (leaf key, value) each; value None: any value."""

    old: tuple[str, str | None]
    new: tuple[str, str | None]

    def tokens(self) -> dict[str, list[str]]:
        return {"old": [token(*self.old)], "new": [token(*self.new)]}


def token(key: str, value: str | None) -> str:
    """The regex of a setting as scripts, docs and YAML write it: `key=value`, `key: value`, quoted or not (the
    key's last parts: any prefix before them)."""
    key = rf"(?<![\w]){re.escape(key)}\s*[=:]"
    if value is None:
        return key
    return key + rf"\s*[\"']?{re.escape(value)}(?![\w.-])"


@dataclass
class Commit:
    sha: str
    index: int  # 0 = oldest first-parent commit
    # path at the parent -> (change block, line text)
    removed: dict[str, list[tuple[int, str]]] = field(default_factory=lambda: defaultdict(list))
    added: dict[str, list[tuple[int, str]]] = field(default_factory=lambda: defaultdict(list))


def settings(lines: list[str]) -> set[tuple[str, str]]:
    out = set()
    for line in lines:
        for m in OVERRIDE.finditer(line):
            key, value = m.group(1), m.group(2).strip("\"'")
            leaf = key.rsplit(".", 1)[-1]
            if key in NOT_KEYS or leaf.isupper() or not value:
                continue
            out.add((key.lstrip("+"), value))
    return out


def launch_history(corpus: Corpus) -> list[Commit]:
    """Every first-parent commit's launch-file lines, oldest first (one `git log -p`)."""
    order = corpus.git("log", "--first-parent", "--reverse", "--format=%H").split()
    index = {sha: i for i, sha in enumerate(order)}
    commits = {sha: Commit(sha, i) for sha, i in index.items()}
    text = corpus.git("log", "--first-parent", "-p", "-M", "-U0", "--no-color", "--format=@@COMMIT %H",
                      "--", *LAUNCH_SPECS)
    for chunk in text.split("@@COMMIT ")[1:]:
        sha = chunk[:40]
        for f in parse_diff(chunk):
            if f.old is None or f.new is None:  # a launch added or deleted was not migrated
                continue
            if counted_kind(f.new) is None and counted_kind(f.old) is None:
                continue
            for line in f.lines:
                side = commits[sha].removed if line.sign == "-" else commits[sha].added
                side[f.path].append((line.block, line.text))
    return [commits[sha] for sha in order]


def framework_text(corpus: Corpus, sha: str) -> str:
    return corpus.git("show", "--format=", "-U0", "--no-color", sha, "--", "verl/", ":(exclude)*.md",
                      ":(exclude)*.rst", ":(exclude)*.sh")


def pairs_of(corpus: Corpus, u: Commit) -> list[Pair]:
    """U's token pairs: in each change block of its launch edits, a removed override and an added one with the
    same key and another value, or the same value under another key (module docstring)."""
    named = set(re.findall(r"[A-Za-z_]\w*", framework_text(corpus, u.sha)))
    out: set[Pair] = set()
    for path, removed in u.removed.items():
        added = u.added.get(path, [])
        for block in {b for b, _ in removed}:
            old = settings([t for b, t in removed if b == block]) - settings([t for b, t in added if b == block])
            new = settings([t for b, t in added if b == block]) - settings([t for b, t in removed if b == block])
            for ok, ov in old:
                for nk, nv in new:
                    pair = paired(ok, ov, nk, nv)
                    if pair is not None and (pair.old[0].rsplit(".", 1)[-1] in named
                                             or pair.new[0].rsplit(".", 1)[-1] in named):
                        out.add(pair)
    return sorted(out, key=lambda p: (p.old[0], p.old[1] or "", p.new[0], p.new[1] or ""))


def paired(old_key: str, old_value: str, new_key: str, new_value: str) -> Pair | None:
    """The tokens of one replaced override: a value changed (`leaf=old -> leaf=new`), or a key renamed with its
    value (from the first part that differs: `micro_batch_size -> micro_batch_size_per_gpu`, and with the last
    common part when one key extends the other: `reward_manager -> reward_manager.name`)."""
    if old_key == new_key:
        if old_value == new_value or "$" in old_value + new_value:
            return None
        leaf = old_key.rsplit(".", 1)[-1]
        return Pair((leaf, old_value), (leaf, new_value))
    if old_value != new_value:
        return None
    o, n = old_key.split("."), new_key.split(".")
    common = 0
    while common < min(len(o), len(n)) and o[common] == n[common]:
        common += 1
    start = common - 1 if common in (len(o), len(n)) else common
    return Pair((".".join(o[start:]), None), (".".join(n[start:]), None))


def u_candidates(corpus: Corpus) -> set[str]:
    shas: set[str] = set()
    for q in (*QUERY, ASSERTS):
        shas.update(corpus.git(*q).split())
    return shas


@dataclass
class Candidate:
    u: str
    f: str
    pair: Pair
    files: list[str]
    lines: int


def find(corpus: Corpus) -> list[Candidate]:
    history = launch_history(corpus)
    wanted = u_candidates(corpus)
    out: list[Candidate] = []
    for u in history:
        if u.sha not in wanted or not (u.removed or u.added):
            continue
        for pair in pairs_of(corpus, u):
            old, new = re.compile(token(*pair.old)), re.compile(token(*pair.new))
            for f in history[u.index + 1:]:
                files, lines = [], 0
                for path, rm in f.removed.items():
                    if path in u.removed or path in u.added:
                        continue
                    r = sum(1 for _, ln in rm if old.search(ln))
                    a = sum(1 for _, ln in f.added.get(path, []) if new.search(ln))
                    if r and a:
                        files.append(path)
                        lines += r + a
                if files:
                    out.append(Candidate(u.sha, f.sha, pair, files, lines))
    return out


def subject(corpus: Corpus, sha: str) -> str:
    return corpus.git("log", "-1", "--format=%s", sha).strip()


def load_set(path: Path = SET) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--check", action="store_true", help="count each labelled pair's lines; exit 1 on a change")
    ap.add_argument("--write", action="store_true", help="store each labelled pair's counted lines")
    args = ap.parse_args(argv)
    corpus = Corpus(args.corpus.resolve())
    if not (args.check or args.write):
        for c in find(corpus):
            print(f"{c.u[:10]} -> {c.f[:10]}  {c.lines:3d}  {c.pair.old[0]}={c.pair.old[1] or '*'} -> "
                  f"{c.pair.new[0]}={c.pair.new[1] or '*'}  [{subject(corpus, c.u)[:60]}] -> "
                  f"[{subject(corpus, c.f)[:60]}]  {' '.join(c.files[:3])}")
        return 0
    data = load_set()
    status = 0
    for entry in data["pairs"]:
        lines = counted_lines(corpus, entry)
        shown = [f"{c.path} {c.sign}{c.text.strip()}" for c in lines]
        stored = entry.get("counted")
        print(f"{entry['name']:34s} {len(lines):4d}" + ("" if stored == shown else "  (stored differs)"))
        if args.write:
            entry["denominator"] = len(lines)
            entry["counted"] = shown
        elif stored != shown:
            status = 1
    if args.write:
        SET.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
