"""The replay set of issue 21: candidates, and each migration's denominator, from verl's history.

    python scripts/replay_denominator.py                 # every migration: denominator, stored and counted
    python scripts/replay_denominator.py --show NAME     # the counted lines of one migration, with where they sit
    python scripts/replay_denominator.py --write         # store the counted denominators in set.json
    python scripts/replay_denominator.py --candidates    # the query's candidate list (docs/dev/realworld.md)

The denominator of a migration (issue 21): the lines of the human commit's diff (`git diff -M parent sha`),
in scripts, docs, notebooks and example configs, that hold the migrated key or value. Counted files are
those the commit modified or renamed (a file it added or deleted was not migrated); their kinds:
- scripts: `*.sh`, `*.bash`, `*.slurm`, and GitHub workflows (`.github/workflows/*.yml|yaml`);
- docs: `*.md`, `*.rst`;
- notebooks: `*.ipynb`;
- example configs: `*.yaml`/`*.yml` under `examples/` or `recipe/`.
Framework files (everything under `verl/`, Python, tests' YAML copies of the framework config) are the
upstream change or its code and are not counted. A removed line counts when it matches one of the
migration's `old` patterns, an added line when it matches one of its `new` patterns (set.json, `tokens`):
the key or value as written in a setting (`key=`, `key:`, the entry point's module or path), taken from
the upstream change. Each counted line is also placed (`where`): the file kind and, in docs, the block it
sits in (a fenced or `.. code::` block and its language, a fence without one, prose), and whether it is a
comment in a script or block; that says which gap of issue 21 it belongs to.

The history comes from `<corpus>/verl-tree --history` (default corpus: ../shared/corpus next to the
project); it is only read.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
REPLAY = HERE / "tests" / "realworld" / "replay"
SET = REPLAY / "set.json"
DEFAULT_CORPUS = HERE.parent / "shared" / "corpus"


# ---------------------------------------------------------------------------------------------- history


class Corpus:
    """The corpus's tool: a history clone (read only) and one-commit trees."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tool = root / "verl-tree"
        if not self.tool.exists():
            raise SystemExit(f"{root}: no verl-tree here; expected the corpus directory (../shared/corpus)")
        out = subprocess.run([str(self.tool), "--history"], check=True, capture_output=True, text=True).stdout
        self.history = Path(out.strip())

    def tree(self, commit: str) -> Path:
        out = subprocess.run([str(self.tool), commit], check=True, capture_output=True, text=True).stdout
        return Path(out.strip())

    def git(self, *args: str) -> str:
        return subprocess.run(["git", "-C", str(self.history), *args], check=True, capture_output=True,
                              text=True, errors="surrogateescape").stdout

    def show(self, commit: str, path: str) -> str | None:
        out = subprocess.run(["git", "-C", str(self.history), "show", f"{commit}:{path}"], capture_output=True,
                             text=True, errors="surrogateescape")
        return out.stdout if out.returncode == 0 else None


# ---------------------------------------------------------------------------------------------- diffs


@dataclass
class Line:
    sign: str  # "-" or "+"
    text: str  # without the sign and the line end
    lineno: int  # in the old file for "-", in the new file for "+"
    block: int = 0  # changed lines with no unchanged line between them share a block


@dataclass
class FileDiff:
    old: str | None  # None: added
    new: str | None  # None: deleted
    lines: list[Line] = field(default_factory=list)

    @property
    def status(self) -> str:
        if self.old is None:
            return "A"
        if self.new is None:
            return "D"
        return "R" if self.old != self.new else "M"

    @property
    def path(self) -> str:
        """The path at the parent (the tree the bot runs on), or the new path for an added file."""
        return self.old or self.new or ""


HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def parse_diff(text: str) -> list[FileDiff]:
    """A unified diff (git's, or the bot's `--format diff`) into files and changed lines."""
    files: list[FileDiff] = []
    cur: FileDiff | None = None
    old_no = new_no = old_left = new_left = 0
    block = 0
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if old_left > 0 or new_left > 0:  # inside a hunk: the header said how many lines
            if line.startswith("-"):
                assert cur is not None
                cur.lines.append(Line("-", line[1:].rstrip("\r"), old_no, block))
                old_no, old_left = old_no + 1, old_left - 1
            elif line.startswith("+"):
                assert cur is not None
                cur.lines.append(Line("+", line[1:].rstrip("\r"), new_no, block))
                new_no, new_left = new_no + 1, new_left - 1
            elif line.startswith(" ") or line == "":
                old_no, new_no, old_left, new_left = old_no + 1, new_no + 1, old_left - 1, new_left - 1
                block += 1
            i += 1
            continue
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            cur = FileDiff(_diff_path(line[4:]), _diff_path(lines[i + 1][4:]))
            files.append(cur)
            i += 2
            continue
        m = HUNK.match(line)
        if m and cur is not None:
            old_no, new_no = int(m.group(1)), int(m.group(3))
            old_left = int(m.group(2)) if m.group(2) is not None else 1
            new_left = int(m.group(4)) if m.group(4) is not None else 1
            block += 1
        i += 1
    return files


def _diff_path(raw: str) -> str | None:
    raw = raw.split("\t", 1)[0].strip()
    if raw == "/dev/null":
        return None
    if raw.startswith('"') and raw.endswith('"'):
        raw = raw[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1").decode()
    return raw[2:] if raw[:2] in ("a/", "b/") else raw


def human_diff(corpus: Corpus, parent: str, sha: str) -> list[FileDiff]:
    text = corpus.git("diff", "-M", "--no-color", "--no-ext-diff", "-U0", parent, sha)
    return parse_diff(text)


# ---------------------------------------------------------------------------------------------- file kinds


def counted_kind(path: str) -> str | None:
    """scripts, docs, notebooks, example configs (module docstring); None for everything else."""
    name = path.rsplit("/", 1)[-1]
    if path.startswith(".github/workflows/") and name.endswith((".yml", ".yaml")):
        return "workflow"
    if path.startswith("verl/") and not name.endswith((".sh", ".md", ".rst", ".ipynb")):
        return None
    if name.endswith((".sh", ".bash", ".slurm")):
        return "script"
    if name.endswith((".md", ".rst")):
        return "doc"
    if name.endswith(".ipynb"):
        return "notebook"
    if name.endswith((".yaml", ".yml")) and path.startswith(("examples/", "recipe/")):
        return "example-config"
    return None


FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
RST_CODE = re.compile(r"^(\s*)\.\.\s+(?:code|code-block|sourcecode)::\s*(\w*)")
RST_LITERAL = re.compile(r"::\s*$")


def doc_blocks(text: str, rst: bool) -> list[str]:
    """For each line (0-based) of a doc: the block it sits in ('prose', '<lang>-block', 'bare-fence')."""
    out: list[str] = []
    lines = text.split("\n")
    if not rst:
        fence: str | None = None
        lang = ""
        for line in lines:
            m = FENCE.match(line)
            if fence is None and m:
                fence, lang = m.group(2), m.group(3).lower()
                out.append("fence")
            elif fence is not None and _closes(line, fence):
                fence = None
                out.append("fence")
            elif fence is not None:
                out.append(f"{lang}-block" if lang else "bare-fence")
            else:
                out.append("prose")
        return out
    block: str | None = None
    indent = 0
    started = False
    for line in lines:
        width = len(line) - len(line.lstrip())
        if block is not None:
            if not line.strip():
                out.append(block)
                continue
            if width > indent or (not started and width > indent):
                started = True
                out.append(block)
                continue
            block = None
        m = RST_CODE.match(line)
        if m:
            block = f"{m.group(2).lower()}-block" if m.group(2) else "bare-fence"
            indent, started = len(m.group(1)), False
            out.append("directive")
            continue
        if line.strip() and RST_LITERAL.search(line) and not line.strip().startswith(".."):
            block, indent, started = "bare-fence", width, False
            out.append("prose")
            continue
        out.append("prose")
    return out


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence) and not stripped.strip(fence[0])


SHELL_LANGS = {"bash", "sh", "shell", "console", "zsh", "shell-session"}


_BLOCKS: dict[tuple[str, str], list[str]] = {}


def _blocks_at(corpus: Corpus, commit: str, path: str) -> list[str]:
    if (commit, path) not in _BLOCKS:
        text = corpus.show(commit, path)
        _BLOCKS[commit, path] = [] if text is None else doc_blocks(text, path.endswith(".rst"))
    return _BLOCKS[commit, path]


def where(corpus: Corpus, kind: str, path: str, commit: str, line: Line) -> str:
    """Where a changed line sits: the file kind, the docs block, and 'comment' for a commented setting."""
    comment = line.text.lstrip().startswith("#")
    if kind == "doc":
        blocks = _blocks_at(corpus, commit, path)
        block = blocks[line.lineno - 1] if 0 < line.lineno <= len(blocks) else "prose"
        if block.endswith("-block") and block[: -len("-block")] in SHELL_LANGS:
            block = "shell-block"
        if block == "prose":
            return "doc:prose"
        return f"doc:{block}" + (":comment" if comment else "")
    if kind == "notebook":
        return "notebook"
    return kind + (":comment" if comment else "")


# ---------------------------------------------------------------------------------------------- the set


def load_set(path: Path = SET) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@dataclass
class Counted:
    path: str  # at the parent
    sign: str
    text: str
    where: str


def counted_lines(corpus: Corpus, entry: dict[str, Any]) -> list[Counted]:
    """The denominator's lines of one migration (module docstring)."""
    old = [re.compile(p) for p in entry["tokens"].get("old", [])]
    new = [re.compile(p) for p in entry["tokens"].get("new", [])]
    out: list[Counted] = []
    for f in human_diff(corpus, entry["parent"], entry["sha"]):
        if f.status not in ("M", "R"):
            continue
        kind = counted_kind(f.new or "") or counted_kind(f.old or "")
        if kind is None:
            continue
        for line in f.lines:
            pats = old if line.sign == "-" else new
            if not any(p.search(line.text) for p in pats):
                continue
            commit, path = (entry["parent"], f.old) if line.sign == "-" else (entry["sha"], f.new)
            assert path is not None
            out.append(Counted(f.path, line.sign, line.text, where(corpus, kind, path, commit, line)))
    return out


# ---------------------------------------------------------------------------------------------- candidates

CONFIG_KEY_LINE = r"^\s*[A-Za-z_][A-Za-z0-9_]*\s*[:=]"
VALUE_TEST = r"""(==|!=| in |=)\s*[\[(]?\s*["'][a-z_]+["']"""
USES = re.compile(r"\.(sh|bash|slurm|md|rst|ipynb)$|^(examples|recipe)/.*\.ya?ml$|^\.github/workflows/")

QUERY = [
    # 1. a key line of the framework config (YAML or dataclass) added, removed or changed
    ["log", "--first-parent", "--format=%H", "-G" + CONFIG_KEY_LINE, "--",
     "verl/trainer/config/*.yaml", "verl/trainer/config/*.py", "verl/workers/config/*.py"],
    # 2. an entry point renamed (moved)
    ["log", "--first-parent", "--format=%H", "-M", "--diff-filter=R", "--", "verl/*main*.py", "recipe/*main*.py"],
    # 3. a value the framework code tests or sets (an accepted value renamed, a default set in code)
    ["log", "--first-parent", "--format=%H", "-G" + VALUE_TEST, "--", "verl/*.py"],
]


def candidates(corpus: Corpus) -> list[tuple[str, int, str]]:
    """The query's candidates: (sha, script/doc lines changed, subject), newest first."""
    shas: dict[str, None] = {}
    for q in QUERY:
        for sha in corpus.git(*q).split():
            shas.setdefault(sha, None)
    order = corpus.git("log", "--first-parent", "--format=%H").split()
    out = []
    for sha in order:
        if sha not in shas:
            continue
        stat = corpus.git("show", "-M", "--format=", "--numstat", sha)
        n = 0
        for row in stat.splitlines():
            parts = row.split("\t")
            if len(parts) == 3 and USES.search(parts[2].split(" => ")[-1].rstrip("}")):
                n += sum(int(x) for x in parts[:2] if x.isdigit())
        if n:
            out.append((sha, n, corpus.git("log", "-1", "--format=%s", sha).strip()))
    return out


# ---------------------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--show", metavar="NAME", help="print the counted lines of this migration")
    ap.add_argument("--write", action="store_true", help="store the counted denominators in set.json")
    ap.add_argument("--candidates", action="store_true", help="print the query's candidate list")
    args = ap.parse_args(argv)
    corpus = Corpus(args.corpus.resolve())
    if args.candidates:
        for sha, n, subject in candidates(corpus):
            print(f"{sha[:10]} {n:6d}  {subject}")
        return 0
    data = load_set()
    status = 0
    for entry in data["migrations"]:
        if args.show and entry["name"] != args.show:
            continue
        lines = counted_lines(corpus, entry)
        if args.show:
            for c in lines:
                print(f"{c.sign} {c.where:26s} {c.path}: {c.text.strip()}")
        places = Counter(c.where for c in lines)
        stored = entry.get("denominator")
        mark = "" if stored == len(lines) else f"  (stored {stored})"
        print(f"{entry['name']:34s} {len(lines):4d}{mark}  " + ", ".join(f"{k} {v}" for k, v in sorted(places.items())))
        if args.write:
            entry["denominator"] = len(lines)
            entry["where"] = dict(sorted(places.items()))
        elif stored != len(lines):
            status = 1
    if args.write:
        SET.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
