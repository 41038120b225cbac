"""The floor under any Python tool built on tree-sitter: read and parse every launch script, nothing else.

Lists the tree's shell scripts with `git ls-files`, keeps those that mention the rule's key (as the
bot's prefilter does) and parses them with py-tree-sitter in two processes; no analysis at all.
benchmarks/large_tree.py runs it beside the bot to show how much of the bot's time parsing alone
takes, and how it compares with ast-grep's native parse of the same files.

    python benchmarks/parse_floor.py [--jobs 2]   (in the tree)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

import tree_sitter_bash
from tree_sitter import Language, Parser

PARSER = Parser(Language(tree_sitter_bash.language()))
TOKEN = b"use_mbridge"


def parse_all(paths: list[str]) -> int:
    parsed = 0
    for path in paths:
        with open(path, "rb") as handle:
            data = handle.read()
        if TOKEN in data:
            parsed += PARSER.parse(data).root_node.child_count > 0
    return parsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    listing = subprocess.run(["git", "ls-files", "-z", "*.sh"], capture_output=True, check=True).stdout
    paths = [p.decode() for p in listing.split(b"\0") if p]
    with ProcessPoolExecutor(args.jobs) as pool:
        parsed = sum(pool.map(parse_all, [paths[i::args.jobs] for i in range(args.jobs)]))
    print(parsed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
