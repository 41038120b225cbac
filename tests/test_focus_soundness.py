"""Review s20: scans that skip files (settled literals, callers of quiet scripts) must report what a scan
reading every file reports. Each test compares with such a scan (no focus: every file is read)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.engine.scan import scan
from bot.model import Report
from bot.rules.loader import load_rules
from tests.conftest import make_repo

ENTRY = "python3 -m verl.trainer.main_ppo "
HOT = "#!/bin/bash\n" + ENTRY + "actor_rollout_ref.actor.megatron.use_mbridge=${MB:-True}\n"


def _outcome(report: Report) -> tuple[object, ...]:
    return ([(f.rule, f.path, f.line, f.status, f.value, f.message) for f in report.findings],
            [(c.path, c.after) for c in report.changes], sorted(report.partly_parsed),
            sorted((s.path, s.reason) for s in report.skipped), [e.path for e in report.errors])


def _every_file_read(root: Path, monkeypatch: pytest.MonkeyPatch, memo: object = None) -> Report:
    with monkeypatch.context() as patch:
        patch.setattr("bot.engine.scan.focus_for", lambda rules: None)
        return scan(root, load_rules(), memo=memo)  # type: ignore[arg-type]


def _same_as_every_file_read(root: Path, monkeypatch: pytest.MonkeyPatch) -> Report:
    """The scan that reads every file, once the focused scan is shown to report the same."""
    full = _every_file_read(root, monkeypatch)
    assert _outcome(scan(root, load_rules())) == _outcome(full)
    return full


@pytest.mark.parametrize("files", [
    # a settled-looking `TOKEN=LITERAL` that a quoted word goes on after: a blank inside quotes ends nothing
    {"run.sh": ENTRY + '"actor_rollout_ref.actor.megatron.use_mbridge=True False"\n'},
    {"run.sh": ENTRY + "actor_rollout_ref.actor.megatron.use_mbridge=True' 'False\n"},
    {"run.sh": ENTRY + '"actor_rollout_ref.actor.megatron.use_mbridge=True\n  False"\n'},
    {"run.sh": 'OVR="actor_rollout_ref.actor.megatron.use_mbridge=True trainer.n_gpus=8"\n' + ENTRY + '"$OVR"\n'},
    {"docs/a.md": "```bash\n" + ENTRY + '"actor_rollout_ref.actor.megatron.use_mbridge=True\necho done\n```\n'},
    {"launch.py": "import subprocess, sys\nsubprocess.run([sys.executable, '-m', 'verl.trainer.main_ppo', "
                  "'actor_rollout_ref.actor.megatron.use_mbridge=True False'])\n"},
], ids=["blank-in-double-quotes", "quote-opened-after", "newline-in-quotes", "variable-quoted-whole",
        "doc-unclosed-quote", "python-string"])
def test_a_literal_the_word_goes_on_after_is_not_settled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         files: dict[str, str]) -> None:
    root = make_repo(tmp_path / "repo", files)
    full = _same_as_every_file_read(root, monkeypatch)
    assert full.findings  # the scan that reads every file has something to say


def test_a_built_script_name_a_quiet_listed_script_shares_may_name_an_ignored_hot_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "repo", {
        ".gitignore": "scripts/train.sh\n", "train.sh": "echo quiet\n", "scripts/train.sh": HOT,
        "caller.sh": "DIR=scripts\nMB=False bash $DIR/train.sh\n",
    })
    full = _same_as_every_file_read(root, monkeypatch)
    assert [f.path for f in full.findings] == ["caller.sh"]


def test_an_ignored_script_that_appears_invalidates_a_cached_quiet_caller(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.cache.reuse import CachedResults
    from bot.cache.store import ResultCache, fingerprint

    root = make_repo(tmp_path / "repo", {".gitignore": "gen.sh\n", "caller.sh": "MB=False bash gen.sh\n",
                                         "other.sh": "echo hi\n"})
    rules = load_rules()

    def warm() -> Report:
        return scan(root, rules, memo=CachedResults(ResultCache(tmp_path / "cache", root, fingerprint(rules)),
                                                    reuse_changes=True))

    assert warm().findings == []
    (root / "gen.sh").write_text(HOT)  # generated, ignored by git
    full = _every_file_read(root, monkeypatch)
    assert [f.path for f in full.findings] == ["caller.sh"]
    assert _outcome(warm()) == _outcome(full)


def test_a_settled_script_nested_too_deeply_is_reported_partly_parsed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    depth = 65  # beyond bot.lang.shell.walk.MAX_DEPTH: tree-sitter finds no error, the walker stops
    body = ("".join("  " * i + "if true; then\n" for i in range(depth))
            + ENTRY + "actor_rollout_ref.actor.megatron.use_mbridge=True\n"
            + "".join("  " * i + "fi\n" for i in reversed(range(depth))))
    root = make_repo(tmp_path / "repo", {"deep.sh": body})
    full = _same_as_every_file_read(root, monkeypatch)
    assert full.partly_parsed == ["deep.sh"]


def test_a_settled_python_file_libcst_cannot_parse_is_reported_unreadable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "repo", {
        "d.py": 'x = ["python3", "-m", "verl.trainer.main_ppo", "actor_rollout_ref.actor.megatron.use_mbridge=True"\n',
    })
    full = _same_as_every_file_read(root, monkeypatch)
    assert [s.path for s in full.skipped] == ["d.py"]


def test_python_that_mentions_a_token_outside_override_strings_reports_what_a_full_read_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    launch = ("import subprocess, sys\n\n\ndef main(cfg):\n"
              "    assert cfg.megatron.use_mbridge, 'use_mbridge must be set'\n"
              "    build(use_mbridge=False)  # x.use_mbridge=False\n"
              "    subprocess.run([sys.executable, '-m', 'verl.trainer.main_ppo', 'trainer.n_gpus=8'])\n")
    held = ("import subprocess, sys\nsubprocess.run([sys.executable, '-m', 'verl.trainer.main_ppo', "
            "'actor_rollout_ref.actor.megatron.\\\nuse_mbridge=False'])\n")
    root = make_repo(tmp_path / "repo", {"quiet.py": launch, "held.py": held})
    full = _same_as_every_file_read(root, monkeypatch)
    assert [f.path for f in full.findings] == ["held.py"]


LAUNCH_PY = "import subprocess, sys\nsubprocess.run([sys.executable, '-m', 'verl.trainer.main_ppo', "


@pytest.mark.parametrize("files", [
    {"broken.py": "# see use_mbridge\nx = (\n"},
    {"n.py": LAUNCH_PY + "'\\N{LATIN SMALL LETTER A}ctor_rollout_ref.actor.megatron.use_mbridge=False'])\n"},
    {"crlf.py": (LAUNCH_PY + "'actor_rollout_ref.actor.megatron.\\\nuse_mbridge=False'])\n").replace("\n", "\r\n")},
    {"esc.py": "# use_mbridge\n" + LAUNCH_PY + "'actor_rollout_ref.actor.megatron.use_mbr\\x69dge=False'])\n"},
], ids=["unparseable-comment", "N-escape", "crlf-continuation", "escape-in-token"])
def test_python_that_mentions_a_token_is_read_whatever_its_strings_look_like(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> None:
    """Review s21: a byte-level test of where a Python key can begin misses keys spelt with escapes, and
    files that do not parse; Python is read on any mention."""
    root = make_repo(tmp_path / "repo", files)
    full = _same_as_every_file_read(root, monkeypatch)
    assert full.findings or full.skipped
