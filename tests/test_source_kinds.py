"""Which files are read as which kind, and how a rule's `files:` globs choose kinds."""

from __future__ import annotations

import json
from pathlib import Path

from bot.discover import sources
from bot.engine.scan import scan
from bot.model import Skipped
from bot.report import json_report
from bot.rules.loader import load_rules
from tests.conftest import make_repo

LAUNCH = "python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False\n"
FILES = {
    "run.sh": LAUNCH,
    "docs/guide.md": f"# Guide\n\n```bash\n{LAUNCH}```\n",
    "docs/guide.rst": f"Guide\n=====\n\n.. code-block:: bash\n\n   {LAUNCH}",
    ".github/workflows/e2e.yml": f"on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: {LAUNCH}",
    "notes.txt": LAUNCH,
}


def test_files_get_their_kind_from_the_name(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {**FILES, "conf/ppo.yaml": "a: 1\n", "tool.py": "x = 1\n",
                                         "nb.ipynb": "{}\n"})
    skipped: list[Skipped] = []
    kinds = {s.path: s.kind for s in sources(root, skipped)}
    assert kinds == {"run.sh": "shell", "docs/guide.md": "markdown", "docs/guide.rst": "rst",
                     ".github/workflows/e2e.yml": "workflow", "conf/ppo.yaml": "yaml", "tool.py": "python",
                     "nb.ipynb": "notebook"}


def test_each_kind_has_its_own_counts_in_the_report(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    report = scan(root, load_rules([]))
    counts = json.loads(json_report.render(report))["summary"]["kinds"]
    assert {k: (c["files"], c["findings"], c["fixable"]) for k, c in counts.items()} == {
        "shell": (1, 1, 1), "markdown": (1, 1, 1), "rst": (1, 1, 1), "workflow": (1, 1, 1)}
    kinds = {f["path"]: f["kind"] for f in json.loads(json_report.render(report))["findings"]}
    assert kinds[".github/workflows/e2e.yml"] == "workflow"


def test_files_globs_keep_a_rule_to_the_kinds_it_names(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    (rules_dir / "docs-only.yaml").write_text(
        "id: docs-only\nfiles: ['docs/**/*.md']\nmatch: {key: ['**.use_mbridge'], value_not: [true]}\n"
        "fix: {set: true}\n")
    report = scan(root, load_rules([rules_dir], include_bundled=False))
    assert [(f.path, f.rule) for f in report.findings] == [("docs/guide.md", "docs-only")]
