"""Upgrade the downstream set of issue 43 with today's bot and compare its diff with the humans'.

    python benchmarks/downstream.py [--corpus ../shared/corpus] [--only NAME ...] [--json FILE] [--keep DIR]
                                    [--rules given|none]

For each kept upgrade of tests/realworld/downstream/set.json (scripts/downstream_set.py states its query), the
downstream repository is built at A: the directory's files at A (`git archive A DIR`, at their paths), a pin
file `requirements-verl.txt` (`verl @ git+https://github.com/volcengine/verl@A`), one commit. The bot runs on it:

    bot run --repo D --dry-run --format diff --no-bundled --rules DIR --no-cache --no-baseline

with DIR the hand-written rules of the replay set whose upstream change is in the span (`--rules given`, the
chain a user has today: the upstream's rules handed to the downstream) or an empty directory (`--rules none`).
Its diff is scored as benchmarks/replay.py scores a migration, with A for the parent and B for the human commit:
- covered: the upgrade's counted lines that the bot's diff holds too (same file at A, same side, same text);
- right: the bot's changed lines that the humans' A..B diff of the directory holds, plus the blocks a later
  first-parent commit after B made whole in the same file; lines in files the humans deleted are counted apart.
The table goes to stdout in Markdown (docs/dev/realworld.md, "Downstream upgrades: evaluation set, fixed
before the code").
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE / "scripts"))
sys.path.insert(0, str(HERE / "benchmarks"))

from downstream_set import PIN_FILE, PIN_URL, SET, span_diff  # noqa: E402  (scripts next door, not packages)
from replay import pct, run_bot, score  # noqa: E402
from replay_denominator import DEFAULT_CORPUS, REPLAY, Corpus, load_set  # noqa: E402

BOT_FLAGS = ("--dry-run", "--format", "diff", "--no-bundled")
AFTER_RULES = ("--no-cache", "--no-baseline")


def pin_line(commit: str) -> str:
    return f"verl @ {PIN_URL}@{commit}\n"


def downstream_repository(corpus: Corpus, upgrade: dict[str, Any], into: Path) -> Path:
    """The downstream repository at A: the directory's files at A at their paths, the pin file, one commit."""
    repo = into / "downstream"
    repo.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(corpus.history), "archive", upgrade["A"], "--", upgrade["dir"]],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(repo)], input=archive, check=True, capture_output=True)
    (repo / PIN_FILE).write_text(pin_line(upgrade["A"]), encoding="utf-8")
    git = ["git", "-C", str(repo), "-c", "user.name=downstream", "-c", "user.email=downstream@localhost"]
    subprocess.run([*git, "init", "-q"], check=True, capture_output=True)
    subprocess.run([*git, "add", "-A"], check=True, capture_output=True)
    subprocess.run([*git, "commit", "-q", "-m", f"{upgrade['dir']} at verl {upgrade['A']}"], check=True,
                   capture_output=True)
    return repo


def given_rules(changes: dict[str, dict[str, Any]], upgrade: dict[str, Any]) -> list[str]:
    """The replay set's hand-written rules of the span's changes (current format only)."""
    return [changes[n]["rule"] for n in upgrade["changes"] if changes[n].get("rule")]


def bot_command(repo: Path, rules: Path) -> list[str]:
    return ["bot", "run", "--repo", str(repo), *BOT_FLAGS, "--rules", str(rules), *AFTER_RULES]


def measure(corpus: Corpus, changes: dict[str, dict[str, Any]], upgrade: dict[str, Any], mode: str,
            keep: Path | None, rules_from: Path = REPLAY) -> dict[str, Any]:
    """One upgrade's row: its counted lines, the bot's lines, covered and right (module docstring)."""
    names = given_rules(changes, upgrade) if mode == "given" else []
    row: dict[str, Any] = {"name": upgrade["name"], "dir": upgrade["dir"], "A": upgrade["A"], "B": upgrade["B"],
                           "rules": names, "denominator": upgrade["denominator"]}
    with tempfile.TemporaryDirectory(prefix="downstream-") as tmp:
        repo = downstream_repository(corpus, upgrade, Path(tmp))
        rules = Path(tmp) / "rules"
        rules.mkdir()
        for name in names:
            shutil.copy(rules_from / name, rules / name)
        files, seconds, summary = run_bot(upgrade["name"], bot_command(repo, rules), keep, mode)
    human = span_diff(corpus, upgrade["A"], upgrade["B"], upgrade["dir"])
    den = [_Counted(c["path"], c["sign"], c["text"], ",".join(c["changes"])) for c in upgrade["counted"]]
    row.update(score(corpus, upgrade["B"], human, files, den), seconds=round(seconds, 1), summary=summary)
    return row


class _Counted:
    """A counted line as replay._missed reads it (`where`: the changes whose tokens it matches)."""

    def __init__(self, path: str, sign: str, text: str, where: str) -> None:
        self.path, self.sign, self.text, self.where = path, sign, text, where


def table(rows: list[dict[str, Any]]) -> str:
    out = ["| upgrade | A -> B | rules | counted | covered | bot lines | right (later) |",
           "|---|---|---|---:|---:|---:|---:|"]
    for r in rows:
        bot = r["bot_lines"] - r["deleted"]
        out.append(f"| {r['name']} | {r['A'][:10]} -> {r['B'][:10]} | {len(r['rules'])} | {r['denominator']} | "
                   f"{r['covered']} ({pct(r['covered'], r['denominator'])}) | {r['bot_lines']}"
                   + (f" ({r['deleted']} in deleted files)" if r["deleted"] else "")
                   + f" | {r['right']} ({r['later']}) = {pct(r['right'], bot)} |")
    den = sum(r["denominator"] for r in rows)
    cov = sum(r["covered"] for r in rows)
    bot = sum(r["bot_lines"] - r["deleted"] for r in rows)
    right = sum(r["right"] for r in rows)
    out.append(f"| **all** ({len(rows)}) | | | {den} | {cov} ({pct(cov, den)}) | {bot} | {right} = {pct(right, bot)} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--set", type=Path, default=SET, help="the downstream set (default: the committed one)")
    ap.add_argument("--only", nargs="*", default=[], metavar="NAME")
    ap.add_argument("--json", type=Path, help="also write the rows here")
    ap.add_argument("--keep", type=Path, help="keep the bot's diffs in this directory")
    ap.add_argument("--rules", choices=["given", "none"], default="given",
                    help="the replay set's hand-written rules of the span's changes (default), or none")
    args = ap.parse_args(argv)
    if shutil.which("bot") is None:
        raise SystemExit("bot is not on PATH: activate the venv (.venv/bin) first")
    corpus = Corpus(args.corpus.resolve())
    data = load_set(args.set)
    changes = {c["name"]: c for c in data["changes"]}
    rows = []
    for u in data["upgrades"]:
        if not u["kept"] or (args.only and u["name"] not in args.only):
            continue
        row = measure(corpus, changes, u, args.rules, args.keep)
        rows.append(row)
        print(f"{u['name']}: {row['covered']}/{row['denominator']} covered, {row['right']}/{row['bot_lines']} right"
              f" ({row['seconds']} s)", file=sys.stderr)
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
