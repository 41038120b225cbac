"""The real-world check: every command of the bot over verl's history, as a user would run it.

    python benchmarks/realworld.py [--corpus ../shared/corpus] [--quick] [--json FILE] [--markdown FILE]

For each commit of tests/realworld/snapshots.txt (`--quick`: the ones marked quick) it runs, with the
installed `bot`, in fresh processes and with no cache:
- `bot run --dry-run --no-cache --format json` with every bundled rule (optional ones enabled) and the
  rule set of tests/realworld/rules/;
- `bot compose-check --format json`, from outside the tree and (quick set) also as `--repo .` from
  inside it, and from a subdirectory as `--repo ..`: the three reports must be identical; each with the
  compose index cross-checked by Hydra on every launch and branch (a disagreement is an internal error);
- `bot launches --format json`: every launch and how it was understood, counted by class;
- `bot watch --before C^ --after C --dry-run` on a clone of the history whose main is at C (in the
  quick set, only where the snapshot is marked quick:watch).
It reports internal errors (exit code 3, or error entries in a report), files over the time bound,
launches by class, findings per rule and wall times; the exit code is 1 when any internal error or
disagreement was seen. It also counts how many of the tip's shell scripts tree-sitter-bash and bashlex
(if installed) parse, and how fast. Results and the command go into docs/dev/realworld.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
SNAPSHOTS = HERE / "tests" / "realworld" / "snapshots.txt"
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")  # a snapshot labelled by its date (the others name a migration)
RULES = HERE / "tests" / "realworld" / "rules"


def snapshots(quick: bool, only: list[str]) -> list[tuple[str, str, list[str]]]:
    """(commit, label, flags) of the snapshots to check; flags: quick, quick:watch (see snapshots.txt)."""
    out = []
    for line in SNAPSHOTS.read_text(encoding="utf-8").splitlines():
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        flags = [f.removeprefix("quick:") for f in fields[2:] if f.startswith("quick")]
        if only and fields[0] not in only and fields[1] not in only:
            continue
        if quick and not flags and not only:
            continue
        out.append((fields[0], fields[1], flags))
    return out


class Corpus:
    def __init__(self, root: Path) -> None:
        self.tool = root / "verl-tree"
        if not self.tool.exists():
            raise SystemExit(f"{root}: no verl-tree script here; expected the corpus directory (../shared/corpus)")
        self.history = Path(self._run("--history"))

    def _run(self, *args: str) -> str:
        return subprocess.run([str(self.tool), *args], check=True, capture_output=True, text=True).stdout.strip()

    def tree(self, commit: str) -> Path:
        return Path(self._run(commit))

    def resolve(self, commit: str) -> str:
        return subprocess.run(["git", "-C", str(self.history), "rev-parse", "--verify", f"{commit}^{{commit}}"],
                              check=True, capture_output=True, text=True).stdout.strip()

    def parent(self, commit: str) -> str | None:
        out = subprocess.run(["git", "-C", str(self.history), "rev-parse", "--verify", "-q", f"{commit}^"],
                             capture_output=True, text=True)
        return out.stdout.strip() or None


CROSS_CHECK = "BOT_COMPOSE_INDEX_CROSS_CHECK"  # bot.hydra.applied's (the bot measured may be another checkout's)


class Bot:
    def __init__(self, executable: str, scratch: Path) -> None:
        self.executable = executable
        self.scratch = scratch
        self.env = {**os.environ, "BOT_CACHE_DIR": str(scratch / "cache"), "NO_COLOR": "1"}
        self.env.pop("GITHUB_ACTIONS", None)
        for name in ("BOT_GITHUB_TOKEN", "GITHUB_TOKEN", "BOT_GITHUB_APP_ID"):
            self.env.pop(name, None)

    def __call__(self, *args: str, cwd: Path | None = None, timeout: float = 900) -> dict[str, Any]:
        start = time.perf_counter()
        # compose-check cross-checks its compose index with Hydra on every launch and branch (bot.hydra.applied):
        # a verdict Hydra does not share is an internal error, which this check reports
        env = {**self.env, CROSS_CHECK: "1"} if args[:1] == ("compose-check",) else self.env
        try:
            # never this checkout's directory: `python -m bot` there would import its bot/ over the one measured
            done = subprocess.run([self.executable, *args], cwd=cwd or self.scratch, env=env,
                                  capture_output=True, timeout=timeout)
            code, out, err = done.returncode, done.stdout, done.stderr
        except subprocess.TimeoutExpired as exc:
            code, out, err = -9, exc.stdout or b"", (exc.stderr or b"") + b"\nrealworld: killed after the timeout"
        seconds = time.perf_counter() - start
        report: Any = None
        try:
            report = json.loads(out) if out.strip() else None
        except ValueError:
            report = None
        return {"exit": code, "seconds": round(seconds, 2), "report": report, "stdout": out.decode("utf-8", "replace"),
                "stderr": err.decode("utf-8", "replace")}


def optional_rules(bot: Bot, *extra: str) -> list[str]:
    listed = bot("rules", "list", *extra)
    return [line.split()[0] for line in listed["stdout"].splitlines() if len(line.split()) > 1
            and line.split()[1] == "optional"]


def edits_compose(bot: Bot, scratch: Path, tree: Path, bundled_optional: list[str],
                  before: dict[str, Any]) -> dict[str, Any]:
    """The bot's edits (every bundled rule, the optional ones enabled) written to a copy of the tree, and
    compose-check again: each (file, key) Hydra rejects after them and not before is a launch they broke."""
    copy = scratch / "edited"
    shutil.copytree(tree, copy, symlinks=True)
    enables = [a for rule in bundled_optional for a in ("--enable", rule)]
    write = bot("run", "--repo", str(copy), "--write", "--no-cache", "--format", "json", *enables)
    after = bot("compose-check", "--repo", str(copy), "--format", "json", cwd=Path("/"))
    shutil.rmtree(copy, ignore_errors=True)

    def failing(report: Any) -> set[tuple[str, str]]:
        return {(f["path"], f["key"]) for f in (report or {}).get("findings", [])}

    written = write["report"] if isinstance(write["report"], dict) else {}
    return {"seconds": write["seconds"], "changed": len(written.get("files", [])),
            "errors": internal_errors("run --write", write) + internal_errors("compose-check (edited)", after),
            "broken": sorted(failing(after["report"]) - failing(before))}


def internal_errors(step: str, result: dict[str, Any]) -> list[str]:
    """Crashes and per-file error entries of one command."""
    out = []
    if result["exit"] == 3 or result["exit"] < 0 or "internal error" in result["stderr"]:
        tail = " ".join(result["stderr"].strip().splitlines()[-1:])[:300]
        out.append(f"{step}: exit {result['exit']}: {tail}")
    report = result["report"]
    if isinstance(report, dict):
        for entry in report.get("errors", []):
            out.append(f"{step}: {entry.get('path')}: {entry.get('reason')}")
    return out


def strip_volatile(report: Any) -> Any:
    """A compose-check report without what may differ between two runs of the same tree: the label."""
    if isinstance(report, dict):
        return {k: strip_volatile(v) for k, v in report.items() if k not in ("repo",)}
    if isinstance(report, list):
        return [strip_volatile(v) for v in report]
    return report


def launch_classes(report: Any) -> dict[str, int]:
    if not isinstance(report, dict):
        return {}
    return dict(Counter(entry.get("class", "?") for entry in report.get("launches", [])))


def launch_evidence(report: Any) -> list[tuple[str, str, int]]:
    """(class, evidence, launches) for every distinct piece of evidence, most launches first."""
    if not isinstance(report, dict):
        return []
    counts = Counter((e.get("class", "?"), e.get("evidence", "")) for e in report.get("launches", []))
    return [(cls, evidence, n) for (cls, evidence), n in sorted(counts.items(), key=lambda t: (t[0][0], -t[1],
                                                                                            t[0][1]))]


def findings_by_rule(report: Any) -> dict[str, int]:
    if not isinstance(report, dict):
        return {}
    return dict(sorted(Counter(f["rule"] for f in report.get("findings", [])).items()))


FINDING_FIELDS = ("rule", "path", "line", "column", "key", "value", "status", "fix_site", "kind")
SUMMARY_FIELDS = ("files_scanned", "files_parsed", "launches", "findings", "fixable", "manual", "files_changed")


def canonical(step: str, report: Any) -> Any:
    """What a report says, without the words: the data a change of structure must keep as it is.

    Findings by their fields (not their message), each changed file by the digest of its diff, the
    files skipped, partly parsed or failed, the counts; for `bot launches`, each launch's class, entry,
    app and the keys and lines of its overrides.
    """
    if not isinstance(report, dict):
        return None
    if step == "launches":
        return [[e["path"], e["line"], e["kind"], e["launcher"], e["entry"], e["entry_kind"], e["class"], e["app"],
                 e["branch"], e["function"], e["flags"], [[o["key"], o["prefix"], o["line"]] for o in e["overrides"]]]
                for e in report.get("launches", [])]
    summary = report.get("summary", {})
    findings = sorted([[f.get(k) for k in FINDING_FIELDS] for f in report.get("findings", [])], key=json.dumps)
    return {"findings": findings,
            "files": {f["path"]: hashlib.sha256(f["diff"].encode("utf-8", "surrogatepass")).hexdigest()[:16]
                      for f in report.get("files", [])},
            "skipped": sorted([s["path"], s["reason"]] for s in report.get("skipped", [])),
            "partly_parsed": report.get("partly_parsed", []),
            "errors": sorted([e["path"], e.get("stage")] for e in report.get("errors", [])),
            "summary": {k: summary.get(k) for k in SUMMARY_FIELDS}}


def digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def watch_upstream(corpus: Corpus, scratch: Path, commit: str) -> Path:
    """A bare clone of the history sharing its objects, with main moved to `commit`; its bot.toml."""
    upstream = scratch / "upstream.git"
    if not upstream.exists():
        subprocess.run(["git", "clone", "-q", "--bare", "--shared", str(corpus.history), str(upstream)], check=True)
    subprocess.run(["git", "-C", str(upstream), "update-ref", "refs/heads/main", commit], check=True)
    subprocess.run(["git", "-C", str(upstream), "symbolic-ref", "HEAD", "refs/heads/main"], check=True)
    config = scratch / "bot.toml"
    config.write_text(f'[repos.verl]\ngithub = "verl-project/verl"\nclone_url = "{upstream}"\n', encoding="utf-8")
    return config


FORMATS = ("text", "markdown", "json", "sarif", "diff", "github")
_STAND_IN = re.compile(r"\$\{?(DOC_\d|D\d+_)")  # a doc's `<placeholder>` as the shell view names it


def counts_and_hygiene(bot: Bot, scratch: Path, tree: Path, others: list[dict[str, Any]]) -> list[str]:
    """What a run reports does not rest on how it ran (`--jobs 1`, `--jobs 2`, a warm cache), and no output
    names the machine's path of the tree (but as the `repo` it was named by) or a doc's stand-in name."""
    errors: list[str] = []
    plain = ("run", "--repo", str(tree), "--dry-run", "--format", "json")
    cache = str(scratch / "count-cache")
    runs = {"--jobs 1": bot(*plain, "--no-cache", "--jobs", "1"), "--jobs 2": bot(*plain, "--no-cache", "--jobs", "2")}
    bot(*plain, "--cache-dir", cache)
    runs["warm"] = bot(*plain, "--cache-dir", cache)
    seen = {how: (r["report"] or {}).get("summary", {}) | {"findings_list": (r["report"] or {}).get("findings")}
            for how, r in runs.items()}
    for how, found in seen.items():
        found.pop("cache", None)  # how many results were reused: the one figure meant to differ
        if found != seen["--jobs 1"]:
            errors.append(f"counts: run {how} reports otherwise than run --jobs 1")
    outputs = [(f"run --format {fmt}", bot("run", "--repo", str(tree), "--dry-run", "--no-cache", "--format", fmt))
               for fmt in FORMATS] + [(f"report {i}", other) for i, other in enumerate(others)]
    for what, done in outputs:
        text = done["stdout"].replace(f'"repo": "{tree}"', "").replace(f"`{tree}` at", "")
        if str(tree) in text or "file:///" in text:
            errors.append(f"hygiene: {what} names the machine's path of the tree")
        if _STAND_IN.search(text):
            errors.append(f"hygiene: {what} shows a stand-in name ({_STAND_IN.search(text)[0]})")
    return errors


def check_snapshot(bot: Bot, corpus: Corpus, scratch: Path, full: str, tree: Path, label: str, enable: list[str],
                   thorough: bool, watch_it: bool, judge_edits: list[str] | None = None,
                   hygiene: bool = True) -> dict[str, Any]:
    row: dict[str, Any] = {"commit": full[:10], "label": label, "errors": [], "canonical": {}}
    enables = [a for rule in enable for a in ("--enable", rule)]
    run = bot("run", "--repo", str(tree), "--dry-run", "--no-cache", "--format", "json", "--rules", str(RULES),
              *enables)
    row["errors"] += internal_errors("run", run)
    row["canonical"]["run"] = canonical("run", run["report"])
    report = run["report"] if isinstance(run["report"], dict) else {}
    summary = report.get("summary", {})
    row["run"] = {"exit": run["exit"], "seconds": run["seconds"], "files": summary.get("files_scanned"),
                  "findings": summary.get("findings"), "fixable": summary.get("fixable"),
                  "manual": summary.get("manual"), "by_rule": findings_by_rule(report),
                  "partly_parsed": len(report.get("partly_parsed", [])), "changed": len(report.get("files", []))}
    compose = bot("compose-check", "--repo", str(tree), "--format", "json", "--verbose", cwd=Path("/"))
    row["errors"] += internal_errors("compose-check", compose)
    row["canonical"]["compose"] = canonical("compose", compose["report"])
    composed = compose["report"] if isinstance(compose["report"], dict) else {}
    row["compose"] = {"exit": compose["exit"], "seconds": compose["seconds"],
                      "findings": len(composed.get("findings", [])),
                      "unresolved": compose["stderr"].count(": launch not checked: ")}
    if thorough:
        inside = bot("compose-check", "--repo", ".", "--format", "json", cwd=tree)
        row["errors"] += internal_errors("compose-check --repo .", inside)
        sub = next((p for p in sorted(tree.iterdir()) if p.is_dir() and not p.name.startswith(".")), tree)
        below = bot("compose-check", "--repo", "..", "--format", "json", cwd=sub) if sub != tree else inside
        row["errors"] += internal_errors("compose-check --repo ..", below)
        same = strip_volatile(compose["report"]) == strip_volatile(inside["report"]) == strip_volatile(
            below["report"])
        row["compose"]["same_from_any_directory"] = same
        if not same:
            row["errors"].append("compose-check: reports differ between working directories")
    if judge_edits is not None:
        judged = edits_compose(bot, scratch, tree, judge_edits, composed)
        row["errors"] += judged.pop("errors")
        row["errors"] += [f"edits: {path}: {key} no longer composes" for path, key in judged["broken"]]
        row["edits_compose"] = judged
    launches = bot("launches", "--repo", str(tree), "--format", "json")
    if hygiene:
        row["errors"] += counts_and_hygiene(bot, scratch, tree, [run, compose, launches])
    if launches["exit"] == 2 and "invalid choice" in launches["stderr"]:
        row["launches"] = None  # this version of the bot has no `launches` command
    else:
        row["errors"] += internal_errors("launches", launches)
        row["canonical"]["launches"] = canonical("launches", launches["report"])
        row["launches"] = launch_classes(launches["report"])
        row["launch_evidence"] = launch_evidence(launches["report"])
    parent = corpus.parent(full)
    if parent is not None and watch_it:
        config = watch_upstream(corpus, scratch, full)
        watch = bot("watch", "--repo", "verl", "--config", str(config), "--before", parent, "--after", full,
                    "--dry-run", "--format", "json", cwd=scratch)
        row["errors"] += internal_errors("watch", watch)
        row["canonical"]["watch"] = canonical("watch", watch["report"])
        watched = watch["report"] if isinstance(watch["report"], dict) else {}
        triggered = "no rule triggered" in watch["stdout"]
        row["watch"] = {"exit": watch["exit"], "seconds": watch["seconds"],
                        "triggered": not triggered and watch["exit"] in (0, 1),
                        "by_rule": findings_by_rule(watched)}
    return row


def parser_counts(tree: Path) -> dict[str, Any]:
    """How many of the tree's shell scripts each parser reads without an error, and in how long."""
    listed = subprocess.run(["git", "-C", str(tree), "ls-files", "*.sh"], capture_output=True, text=True,
                            check=True).stdout.split()
    scripts = [(tree / p).read_bytes() for p in listed if (tree / p).is_file() and not (tree / p).is_symlink()]
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    from bot.lang.shell.parse import parse_tree

    parser = Parser(Language(tree_sitter_bash.language()))
    start = time.perf_counter()
    clean = sum(1 for data in scripts if not parser.parse(data).root_node.has_error)
    counts: dict[str, Any] = {"scripts": len(scripts),
                              "tree_sitter": {"clean": clean, "seconds": round(time.perf_counter() - start, 3)}}
    start = time.perf_counter()
    masked = sum(1 for data in scripts if not parse_tree(data).root_node.has_error)
    counts["bot"] = {"clean": masked, "seconds": round(time.perf_counter() - start, 3)}
    try:
        import bashlex  # type: ignore[import-untyped]
    except ImportError:
        counts["bashlex"] = None
        return counts
    start = time.perf_counter()
    ok = 0
    for data in scripts:
        try:
            bashlex.parse(data.decode("utf-8", "replace"))
            ok += 1
        except Exception:  # bashlex raises its own errors and more on what it cannot read
            pass
    counts["bashlex"] = {"clean": ok, "seconds": round(time.perf_counter() - start, 3)}
    return counts


def markdown(rows: list[dict[str, Any]], parsers: dict[str, Any] | None) -> str:
    lines = ["| commit | date | run: s / findings / partly parsed | compose: findings / not checked | "
             "launches by class | watch: s / findings | internal errors |", "|---|---|---|---|---|---|---|"]
    for row in rows:
        run, compose = row["run"], row["compose"]
        classes = ", ".join(f"{k} {v}" for k, v in sorted((row.get("launches") or {}).items())) or "-"
        watch = row.get("watch")
        watched = f"{watch['seconds']} / {sum(watch['by_rule'].values())}" if watch else "-"
        lines.append(f"| {row['commit']} | {row['label']} | {run['seconds']} / {run['findings']} / "
                     f"{run['partly_parsed']} | {compose['findings']} / {compose['unresolved']} | {classes} | "
                     f"{watched} | {len(row['errors'])} |")
    totals: Counter[str] = Counter()
    for row in rows:
        totals.update(row["run"]["by_rule"])
    lines += ["", "Findings per rule over all snapshots (`bot run`): "
              + ", ".join(f"{k} {v}" for k, v in sorted(totals.items()))]
    newest = max(rows, key=lambda r: r["label"] if DATE.fullmatch(r["label"]) else "", default=None)
    if newest is not None and newest.get("launch_evidence"):
        lines += ["", f"Launches at {newest['commit']} ({newest['label']}) by class and evidence (`bot launches`):", "",
                  "| class | evidence | launches |", "|---|---|---:|"]
        lines += [f"| {cls} | {evidence.replace('|', '/')} | {n} |" for cls, evidence, n in newest["launch_evidence"]]
    if parsers is not None:
        ts, bl = parsers["tree_sitter"], parsers.get("bashlex")
        text = (f"Shell scripts at the tip: {parsers['scripts']}; tree-sitter-bash parses {ts['clean']} without an "
                f"error in {ts['seconds']} s ({parsers['bot']['clean']} with the bot's masked copies of known quirks)")
        text += f"; bashlex parses {bl['clean']} in {bl['seconds']} s." if bl else "; bashlex not installed."
        lines += ["", text]
    return "\n".join(lines) + "\n"


def compare_golden(rows: list[dict[str, Any]], golden: dict[str, Any]) -> None:
    """Each command's canonical report against the golden digests; a difference is an error of the row."""
    for row in rows:
        expected = golden.get(row["commit"], {})
        for step, data in row["canonical"].items():
            if step in expected and data is not None and digest(data) != expected[step]["digest"]:
                row["errors"].append(f"golden: {step} differs from the recorded report ({expected[step]['size']} "
                                     "findings or launches then; --dump DIR and diff against a dump of the old bot)")


def _print_rows(rows: list[dict[str, Any]]) -> None:
    """One line per snapshot on stderr, with its internal errors."""
    for row in rows:
        judged = row.get("edits_compose")
        edited = (f"; edits: {judged['changed']} files, {len(judged['broken'])} launches broken"
                  if judged else "")
        print(f"{row['commit']} {row['label']}: run {row['run']['seconds']} s, {row['run']['findings']} "
              f"findings; compose {row['compose']['findings']}; launches {row.get('launches')}{edited}; "
              f"{len(row['errors'])} internal errors", file=sys.stderr)
        for error in row["errors"]:
            print(f"  {error}", file=sys.stderr)


def _canonical_outputs(args: argparse.Namespace, rows: list[dict[str, Any]]) -> None:
    """The canonical reports compared with the golden file, written as one, or dumped (--golden,
    --write-golden, --dump)."""
    if args.golden:
        compare_golden(rows, json.loads(args.golden.read_text(encoding="utf-8")))
    if args.write_golden:
        golden = {row["commit"]: {step: {"digest": digest(data), "size": len(data if isinstance(data, list)
                                                                            else data.get("findings", []))}
                                  for step, data in sorted(row["canonical"].items()) if data is not None}
                  for row in rows}
        args.write_golden.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
        for row in rows:
            (args.dump / f"{row['commit']}.json").write_text(json.dumps(row["canonical"], indent=1, sort_keys=True),
                                                             encoding="utf-8")


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=HERE.parent / "shared" / "corpus")
    parser.add_argument("--quick", action="store_true", help="only the snapshots marked quick")
    parser.add_argument("--only", nargs="*", default=[], metavar="COMMIT", help="only these snapshots")
    parser.add_argument("--bot", default=shutil.which("bot") or str(HERE / ".venv" / "bin" / "bot"))
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument("--markdown", type=Path, help="write the summary table here")
    parser.add_argument("--jobs", type=int, default=1, help="snapshots checked at once (wall times are noisier)")
    parser.add_argument("--golden", type=Path, help="compare each command's canonical report with this file")
    parser.add_argument("--write-golden", type=Path, help="write each command's canonical report digest here")
    parser.add_argument("--dump", type=Path, help="write every canonical report here, one file per snapshot")
    parser.add_argument("--edits-compose", action="store_true",
                        help="also write the bot's edits (optional bundled rules on) to a copy and compose again: "
                             "every launch they break is an error")
    parser.add_argument("--no-hygiene", action="store_true",
                        help="leave out the counts and output-hygiene checks (for a bot from before them)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    corpus = Corpus(args.corpus)
    chosen = snapshots(args.quick, args.only)
    newest = max((label for _, label, _ in chosen if DATE.fullmatch(label)), default="")
    with tempfile.TemporaryDirectory(prefix="bot-realworld-") as scratch_dir:
        scratch = Path(scratch_dir)
        enable = optional_rules(Bot(args.bot, scratch), "--rules", str(RULES))
        judge_edits = optional_rules(Bot(args.bot, scratch)) if args.edits_compose else None
        trees = [(commit, label, flags, corpus.resolve(commit)) for commit, label, flags in chosen]
        trees = [(c, label, flags, full, corpus.tree(full)) for c, label, flags, full in trees]  # one at a time

        def one(item: tuple[str, str, list[str], str, Path]) -> dict[str, Any]:
            _, label, flags, full, tree = item
            own = scratch / full[:12]
            own.mkdir()
            watch_it = not args.quick or "watch" in flags
            return check_snapshot(Bot(args.bot, own), corpus, own, full, tree, label, enable,
                                  thorough=args.quick or label == newest, watch_it=watch_it, judge_edits=judge_edits,
                                  hygiene=not args.no_hygiene)

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            rows = list(pool.map(one, trees))
        _print_rows(rows)
        parsers = parser_counts(corpus.tree(corpus.resolve("main")))
    _canonical_outputs(args, rows)
    for row in rows:
        row.pop("canonical")
    result = {"snapshots": rows, "parsers": parsers, "bot": args.bot}
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    table = markdown(rows, parsers)
    if args.markdown:
        args.markdown.write_text(table, encoding="utf-8")
    print(table)
    failed = sum(len(r["errors"]) for r in rows)
    print(f"{len(rows)} snapshots, {failed} internal errors", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
