"""`bot infer` over the labelled evaluation set of verl commits (tests/realworld/infer_set.json, issue 20).

    python benchmarks/infer_set.py [--history PATH] [--markdown FILE]

For each commit C it runs what `bot infer --repo HISTORY --no-bundled --before C^ --after C` runs
(the same function, in this process, so the proposals' keys can be compared) and prints one row:
the label, the rules proposed, whether they cover every Hydra path labelled by hand, how many
checks were reported as not understood, and the wall time. A tightening commit passes when its
proposals cover its labelled paths; a loosening or moving commit passes when nothing is proposed.
The history defaults to `../shared/corpus/verl-tree --history`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
SET = HERE / "tests" / "realworld" / "infer_set.json"
sys.path.insert(0, str(HERE))


def history_clone() -> Path:
    tool = HERE.parent / "shared" / "corpus" / "verl-tree"
    done = subprocess.run([str(tool), "--history"], capture_output=True, text=True, check=True)
    return Path(done.stdout.strip())


def evaluate(history: Path, entry: dict[str, Any]) -> dict[str, Any]:
    from bot.upstream.infer import infer

    sha = entry["sha"]
    started = time.perf_counter()
    inference = infer(history, f"{sha}^", sha, [])
    seconds = time.perf_counter() - started
    keys = {key for proposal in inference.proposals for key in proposal.keys}
    missing = [path for path in entry["paths"] if path not in keys]
    passed = not missing if entry["label"] == "tightening" else not inference.proposals
    return {"sha": sha[:8], "label": entry["label"], "pr": entry.get("pr"),
            "rules": sorted({str(p.rule["id"]) for p in inference.proposals}),
            "covered": len(entry["paths"]) - len(missing), "paths": len(entry["paths"]), "missing": missing,
            "unread": len(inference.not_understood), "seconds": round(seconds, 2), "pass": passed}


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| commit | PR | label | rules proposed | labelled paths covered | not understood | s | pass |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        rules = ", ".join(row["rules"][:3]) + (f" (+{len(row['rules']) - 3})" if len(row["rules"]) > 3 else "")
        covered = f"{row['covered']}/{row['paths']}" if row["paths"] else "-"
        lines.append(f"| {row['sha']} | #{row['pr']} | {row['label']} | {rules or '-'} | {covered} | "
                     f"{row['unread']} | {row['seconds']} | {'yes' if row['pass'] else 'no'} |")
    tight = [r for r in rows if r["label"] == "tightening"]
    other = [r for r in rows if r["label"] != "tightening"]
    lines.append("")
    lines.append(f"tightening commits whose labelled paths are all covered: {sum(r['pass'] for r in tight)}/"
                 f"{len(tight)}; "
                 f"loosening or moving commits with no proposal: {sum(r['pass'] for r in other)}/{len(other)}; "
                 f"infer time per commit: median {sorted(r['seconds'] for r in rows)[len(rows) // 2]} s, "
                 f"max {max(r['seconds'] for r in rows)} s")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--history", type=Path, help="a clone of verl's full history")
    parser.add_argument("--markdown", type=Path, help="also write the table here")
    args = parser.parse_args()
    history = args.history or history_clone()
    entries = json.loads(SET.read_text())["commits"]
    rows = []
    for entry in entries:
        rows.append(evaluate(history, entry))
        print(f"{rows[-1]['sha']} {rows[-1]['label']}: {rows[-1]['rules']} missing={rows[-1]['missing']} "
              f"{rows[-1]['seconds']}s", file=sys.stderr)
    text = table(rows)
    print(text)
    if args.markdown is not None:
        args.markdown.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
