"""The long property campaign: tests/test_properties.py with 20,000 examples and a random seed.

    .venv/bin/python scripts/long_property_run.py [--examples N] [--seed S]

CI runs the same tests with a fixed seed and 2,000 examples; this run draws a fresh seed each time
(printed, so a failure can be replayed with --seed) and prints the counts and the wall time.
Exit code: pytest's (0 when every property held).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATS = re.compile(r"(\d+) passing, (\d+) failing, and (\d+) invalid")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=20000, help="examples per property test (default 20000)")
    parser.add_argument("--seed", type=int, default=None, help="replay a seed (default: a random one)")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    env = dict(os.environ, BOT_PROPERTY_EXAMPLES=str(args.examples), BOT_PROPERTY_RANDOM="1")
    cmd = [
        sys.executable, "-m", "pytest", "tests/test_properties.py", "-q", "-p", "no:logging", "-p", "no:cacheprovider",
        f"--hypothesis-seed={seed}", "--hypothesis-show-statistics",
    ]
    print(f"seed {seed}, {args.examples} examples per property test", flush=True)
    print("$ " + " ".join(cmd), flush=True)
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    elapsed = time.monotonic() - start
    out = proc.stdout + proc.stderr
    passing = failing = invalid = 0
    for match in STATS.finditer(out):
        passing += int(match.group(1))
        failing += int(match.group(2))
        invalid += int(match.group(3))
    if proc.returncode != 0:
        print(out)
    results = re.findall(r"^.*\d+ (?:passed|failed|error).*$", out, re.MULTILINE)
    summary = results[-1].strip("= ") if results else "no summary line"
    print(f"pytest: {summary}")
    print(f"examples: {passing} passing, {failing} failing, {invalid} invalid (seed {seed})")
    rate = passing / elapsed if elapsed else 0.0
    print(f"wall time: {elapsed:.1f} s ({rate:.0f} examples/s)")
    if proc.returncode != 0:
        print(f"replay: .venv/bin/python scripts/long_property_run.py --examples {args.examples} --seed {seed}")
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main())
