"""compose-check and `run --compose` read each file once: no text is handed to tree-sitter-bash twice.

compose-check is a checker of the one scan: it composes the launches the file's front end read for the
rules, and its fixes, like the rules', take the one path to a verified change (bot.engine.settle). So
the exact number of parses, counted at tree-sitter's parse call (a wrapper around the real parser, installed
by the test, that counts each text it is handed), is:

- each shell text once: a script's bytes, a doc's view of its shell (and each of its blocks, parsed alone
  to tell whether it parses), whoever reads it: the screen's settled-literal test, the rules' evaluator,
  silencing (which `#` are comments), the compose judge, compose-check;
- each edited text once, since it is a new text: the verification of a fix reads it, and the judge, which
  composes the launches of the text the rules' fixes make, reads the same parse. A script compose-check
  fixes is parsed twice in all, as it is and as fixed; under `run --compose` a script both checkers fix is
  parsed three times, as it is, as the rules' fixes leave it and as compose-check's would (each verified
  apart: compose-check's fixes wait for the next run in a file the rules change).

(A caller that runs a repository script holding a rule's token is read again for the rules once the
scripts are known, the scan's own second look; a `bash -c` string is read by a parser of its own, over
the file's bytes. Neither is in these repositories.) Fewer than 400 files: the scan runs in this process,
where the wrapper counts.

Composing in the scan's workers, what compose-check and `run --compose` report does not rest on how the
scan ran (one process or two, a cold run or a warm cache).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from tests.conftest import make_repo

BOT = str(Path(sys.executable).parent / "bot")

APP = {
    "verl/trainer/main_ppo.py": """\
import hydra


@hydra.main(config_path="config", config_name="ppo_trainer", version_base=None)
def main(config):
    pass
""",
    "verl/trainer/config/ppo_trainer.yaml": "trainer:\n  total_epochs: 15\n  logger: console\n"
                                            "critic:\n  megatron:\n    use_mbridge: true\n",
}
SCRIPTS = {
    # a rule fixes it (the judge composes its launch before and after), compose-check too (a `+` on a key that
    # is there); a commented-out override is read from the script's own parse
    "fix.sh": "# an earlier run: python3 -m verl.trainer.main_ppo trainer.logger=file\n"
              "python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False +trainer.total_epochs=3\n",
    # the rule's token, settled: the screen tells it from the parse compose-check then reads
    "settled.sh": "python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=True trainer.total_epochs=2\n",
    # a compose-check finding silenced: its comments are told from the same parse
    "quiet.sh": "python3 -m verl.trainer.main_ppo +trainer.total_epochs=2  # followup-bot: ignore[hydra-compose]\n"
                "python3 -m verl.trainer.main_ppo trainer.logger=file\n",
    "docs/guide.md": "# Training\n\n```bash\npython3 -m verl.trainer.main_ppo trainer.total_epochs=4\n```\n\n"
                     "Or:\n\n```bash\npython3 -m verl.trainer.main_ppo +trainer.logger=file\n```\n",
}


class CountingParser:
    """tree-sitter's parser, counting the texts it is handed."""

    def __init__(self, parser: Any) -> None:
        self.parser = parser
        self.texts: Counter[bytes] = Counter()

    def parse(self, text: bytes) -> Any:
        self.texts[bytes(text)] += 1
        return self.parser.parse(text)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> CountingParser:
    from bot.lang.shell import parse

    counting = CountingParser(parse._parser())
    monkeypatch.setattr(parse, "_parser", lambda: counting)
    return counting


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def _without_cache(out: str) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(out)
    report["summary"].pop("cache", None)  # how many results were reused: the one figure meant to differ
    return report


def _texts(repo: Path) -> dict[str, bytes]:
    return {path: (repo / path).read_bytes() for path in SCRIPTS if path.endswith(".sh")}


def test_compose_check_parses_each_text_once(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             parses: CountingParser) -> None:
    repo = make_repo(tmp_path / "r", {**APP, **SCRIPTS})
    before = _texts(repo)
    report = _run(capsys, "compose-check", "--repo", str(repo), "--format", "json", "--write")
    assert report["summary"]["launches"] == 6 and report["summary"]["files_changed"] == 2  # fix.sh, the doc
    assert [s["path"] for s in report["suppressed"]] == ["quiet.sh"]
    fixed = (repo / "fix.sh").read_bytes()
    assert fixed == before["fix.sh"].replace(b"+trainer", b"trainer")
    assert {path: parses.texts[text] for path, text in before.items()} == dict.fromkeys(before, 1)
    assert parses.texts[fixed] == 1  # its verification composes it again: one parse
    assert [text for text, count in parses.texts.items() if count > 1] == []


def test_run_with_compose_parses_each_text_once(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                parses: CountingParser) -> None:
    repo = make_repo(tmp_path / "r", {**APP, **SCRIPTS})
    before = _texts(repo)
    report = _run(capsys, "run", "--repo", str(repo), "--compose", "--write", "--no-cache", "--jobs", "1",
                  "--format", "json")
    rules = {(f["path"], f["rule"]) for f in report["findings"]}
    assert ("fix.sh", "megatron-use-mbridge") in rules and ("fix.sh", "hydra-compose") in rules
    fixed = (repo / "fix.sh").read_bytes()
    assert fixed == before["fix.sh"].replace(b"use_mbridge=False", b"use_mbridge=True")  # the rule's fix, judged
    assert {path: parses.texts[text] for path, text in before.items()} == dict.fromkeys(before, 1)
    assert parses.texts[fixed] == 1  # the judge composes the text the verification reads: one parse
    assert parses.texts[before["fix.sh"].replace(b"+trainer", b"trainer")] == 1  # compose-check's fix, verified
    assert [text for text, count in parses.texts.items() if count > 1] == []


def test_what_composing_reports_does_not_rest_on_the_workers(tmp_path: Path) -> None:
    """450 more scripts: with `--jobs 2` the scan forks its workers, which compose the files they read."""
    from bot.engine.scan import compose_scan
    from bot.report.json_report import render

    fillers: dict[str, str | bytes] = {f"scripts/step_{i}.sh": f"echo step {i}\n" for i in range(450)}
    repo = make_repo(tmp_path / "r", {**APP, **SCRIPTS, **fillers})
    command = [BOT, "run", "--repo", str(repo), "--dry-run", "--compose", "--format", "json"]

    def run(*options: str) -> str:
        return subprocess.run([*command, *options], capture_output=True, text=True, check=True,
                              env={**os.environ}).stdout

    one, two = run("--no-cache", "--jobs", "1"), run("--no-cache", "--jobs", "2")
    cache = str(tmp_path / "cache")
    run("--cache-dir", cache, "--jobs", "2")
    warm = run("--cache-dir", cache, "--jobs", "1")
    assert one == two
    assert _without_cache(warm) == _without_cache(one)
    assert [f["rule"] for f in json.loads(one)["findings"]].count("hydra-compose") == 2
    alone, together = (render(compose_scan(repo, jobs=jobs)[0]) for jobs in (1, 2))
    assert alone == together and json.loads(alone)["summary"]["launches"] == 6
