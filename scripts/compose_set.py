"""Issue 44's evaluation set: public Hydra/OmegaConf projects other than verl, pinned before the code.

    python scripts/compose_set.py                  # fetch, scan, print the Markdown table
    python scripts/compose_set.py --only graphium  # one project
    python scripts/compose_set.py --json OUT.json  # also write each launch's verdict today

For each project of tests/realworld/compose_set/set.json: its pinned sdist is fetched with
`pip download --no-deps --no-binary :all: NAME==VERSION` (the sha256 must be the stored one), unpacked
into a scratch directory, and made a git repository of one commit. Then `bot launches --format json` and
`bot compose-check --verbose` are run on it, and each launch labelled by hand as in the tree (its app and
its config are in the sdist: the issue's denominator) is matched with the launches compose-check did not
check. Printed per project: launches found, labelled launches the bot no longer finds, in-tree launches,
composed among them, and compose-check's CPU time beside the plain cold scan's (`bot run --repo DIR
--dry-run --no-cache`), both as the CPU time (user + system) of the child process.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import resource
import subprocess
import sys
import tarfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SET = ROOT / "tests" / "realworld" / "compose_set" / "set.json"
NOT_CHECKED = re.compile(r"^(?P<path>\S+?):(?P<line>\d+): launch not checked: (?P<why>.*)$")


@dataclass
class Scan:
    """What today's bot says of one project's tree."""

    launches: list[dict[str, object]]
    not_checked: dict[tuple[str, int], str]
    compose_cpu: float
    scan_cpu: float
    summary: list[str] = field(default_factory=list)


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch(project: dict[str, object], work: Path) -> Path:
    """The project's sdist unpacked in `work` as a git repository of one commit."""
    sdist = project["sdist"]
    assert isinstance(sdist, dict)
    downloads = work / "sdists"
    downloads.mkdir(parents=True, exist_ok=True)
    archive = downloads / str(sdist["filename"])
    if not archive.exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-d",
                str(downloads),
                f"{project['pypi']}=={project['version']}",
            ],
            check=True,
        )
    got = sha256(archive)
    if got != sdist["sha256"]:
        raise SystemExit(f"{archive.name}: sha256 {got}, the set pins {sdist['sha256']}")
    tree = work / "trees" / archive.name.removesuffix(".tar.gz")
    if not (tree / ".git").exists():
        tree.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archive) as tar:
            tar.extractall(tree.parent, filter="data")
        git = ["git", "-C", str(tree), "-c", "user.name=set", "-c", "user.email=set@localhost"]
        subprocess.run([*git, "init", "-q"], check=True)
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", f"{archive.name}"], check=True)
    return tree


def timed(command: list[str]) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run `command`; its output and the CPU seconds (user + system) it took."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done, cpu


def scan(bot: str, tree: Path) -> Scan:
    launches, _ = timed([bot, "launches", "--repo", str(tree), "--format", "json"])
    checked, compose_cpu = timed([bot, "compose-check", "--repo", str(tree), "--verbose", "--no-baseline"])
    _, scan_cpu = timed([bot, "run", "--repo", str(tree), "--dry-run", "--no-cache"])
    not_checked: dict[tuple[str, int], str] = {}
    summary = []
    for line in (checked.stdout + checked.stderr).splitlines():
        match = NOT_CHECKED.match(line)
        if match:
            not_checked[(match["path"], int(match["line"]))] = match["why"]
        elif line.startswith("compose-check:"):
            summary.append(line)
    return Scan(json.loads(launches.stdout)["launches"], not_checked, compose_cpu, scan_cpu, summary)


def reason(why: str) -> str:
    """A not-checked reason without the file it names, so that reasons can be counted."""
    why = re.sub(r"^\S+\.py: ", "", why)
    return re.sub(r"^\S+ has no @hydra\.main decorator$", "the entry has no @hydra.main decorator", why)


@dataclass
class Verdicts:
    """One project's labelled launches against today's bot."""

    launches: int
    lost: list[str]
    new: list[str]
    in_tree: int
    composed: int
    not_checked: dict[str, int]
    rows: list[dict[str, object]]


def verdicts(project: dict[str, object], found: Scan) -> Verdicts:
    """Each labelled launch's verdict today, and what no longer matches the labels."""
    labelled = project["launches"]
    assert isinstance(labelled, list)
    at = {(str(launch["path"]), int(str(launch["line"]))) for launch in found.launches}
    rows: list[dict[str, object]] = []
    for launch in labelled:
        key = (str(launch["path"]), int(launch["line"]))
        rows.append({**launch, "found": key in at, "today": found.not_checked.get(key, "composed")})
    in_tree = [row for row in rows if row["in_tree"]]
    composed = [row for row in in_tree if row["found"] and row["today"] == "composed"]
    reasons: dict[str, int] = {}
    for row in in_tree:
        if row not in composed:
            why = reason(str(row["today"])) if row["found"] else "not found by bot launches"
            reasons[why] = reasons.get(why, 0) + 1
    labelled_at = {(str(row["path"]), int(str(row["line"]))) for row in rows}
    return Verdicts(
        launches=len(found.launches),
        lost=[f"{row['path']}:{row['line']}" for row in rows if not row["found"]],
        new=sorted(f"{path}:{line}" for path, line in at - labelled_at),
        in_tree=len(in_tree),
        composed=len(composed),
        not_checked=dict(sorted(reasons.items(), key=lambda item: (-item[1], item[0]))),
        rows=rows,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bot", default=str(ROOT / ".venv" / "bin" / "bot"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/compose-set"), help="scratch directory")
    parser.add_argument("--only", action="append", default=[], help="a project's name (repeatable)")
    parser.add_argument("--json", type=Path, help="write each project's verdicts to this file")
    args = parser.parse_args(argv)
    projects = json.loads(SET.read_text())["projects"]
    if args.only:
        projects = [project for project in projects if project["name"] in args.only]
    print("| project | version | launches | in tree | composed | compose-check CPU s | cold scan CPU s | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    results: dict[str, Verdicts] = {}
    cpu: dict[str, dict[str, float]] = {}
    totals = [0, 0]
    for project in projects:
        found = scan(args.bot, fetch(project, args.work))
        result = verdicts(project, found)
        results[project["name"]] = result
        cpu[project["name"]] = {"compose_cpu": found.compose_cpu, "scan_cpu": found.scan_cpu}
        totals[0] += result.in_tree
        totals[1] += result.composed
        ratio = found.compose_cpu / found.scan_cpu if found.scan_cpu else 0.0
        print(
            f"| {project['name']} | {project['version']} | {result.launches} | {result.in_tree} | "
            f"{result.composed} | {found.compose_cpu:.1f} | {found.scan_cpu:.1f} | {ratio:.2f} |"
        )
    print(f"| **all** | | | **{totals[0]}** | **{totals[1]}** | | | |")
    for name, result in results.items():
        if result.lost:
            print(f"{name}: labelled launches the bot no longer finds: {', '.join(result.lost)}", file=sys.stderr)
        if result.new:
            print(f"{name}: launches found but not labelled: {', '.join(result.new)}", file=sys.stderr)
        for why, count in result.not_checked.items():
            print(f"{name}: in tree, not composed: {count} {why}", file=sys.stderr)
    if args.json:
        dump = {name: {**asdict(result), **cpu[name]} for name, result in results.items()}
        args.json.write_text(json.dumps(dump, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
