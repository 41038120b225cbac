"""A property of the result cache: after any sequence of edits, a cached scan is a cold scan, byte for byte.

Each case starts from a small repository that has every kind of dependency the cache keys on (a
script calling another, an env default a caller sets, YAML configs whose defaults lists place each
other, an app naming its config tree, a doc quoting a launch) and applies random edits: values,
callers, defaults lists, the app's config path, new, removed, renamed and unreadable files, same
bytes rewritten, commits. After every edit the scan through one cache directory must report what a
scan without a cache reports: the JSON report (findings, diffs, skips, errors, counts) identical.
"""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cache.reuse import CachedResults
from bot.cache.store import ResultCache, fingerprint
from bot.engine.scan import scan
from bot.report.json_report import to_dict
from bot.rules.loader import load_rules
from bot.rules.model import Rule
from tests.conftest import git, make_repo

VALUES = ["True", "False", "${USE_MB:-False}", "${USE_MB:-True}", "$USE_MB", "1", "'False'"]
KEY = "actor_rollout_ref.actor.megatron.use_mbridge"


def _launch(value: str, extra: str = "") -> str:
    return (f"#!/bin/bash\nset -x\npython3 -m verl.trainer.main_ppo \\\n    {KEY}={value} \\\n"
            f"    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 {extra}\\\n"
            "    trainer.total_epochs=1\n")


def _caller(value: str, callee: str) -> str:
    return f"#!/bin/bash\nUSE_MB={value} bash {callee}\n"


def _config(value: str, defaults: list[str]) -> str:
    head = "defaults:\n" + "".join(f"  - {d}\n" for d in defaults) if defaults else ""
    return f"{head}actor_rollout_ref:\n  actor:\n    megatron:\n      use_mbridge: {value}\n"


APP = ('import hydra\n\n\n@hydra.main(config_path="{path}", config_name="ppo", version_base=None)\n'
       "def main(cfg):\n    pass\n")
DOC = "# Run\n\n```bash\npython3 -m verl.trainer.main_ppo {key}={value}\n```\n"

START = {
    "examples/run_a.sh": _launch("False"),
    "examples/run_b.sh": _launch("${USE_MB:-False}"),
    "examples/caller.sh": _caller("False", "examples/run_b.sh"),
    "conf/ppo.yaml": _config("false", ["engine@actor_rollout_ref.actor: megatron"]),
    "conf/engine/megatron.yaml": "megatron:\n  use_mbridge: false\n",
    "other/conf/ppo.yaml": _config("false", []),
    "verl/trainer/main_ppo.py": APP.format(path="../../conf"),
    "docs/start.md": DOC.format(key=KEY, value="False"),
}
SCRIPTS = ["examples/run_a.sh", "examples/run_b.sh", "examples/run_c.sh", "tools/run_d.sh"]
CONFIGS = ["conf/ppo.yaml", "conf/engine/megatron.yaml", "conf/extra.yaml", "other/conf/ppo.yaml"]
Edit = Callable[[Path, random.Random], None]


def _write(root: Path, rel: str, text: str | bytes) -> None:
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(text.encode() if isinstance(text, str) else text)


def _existing(root: Path, rng: random.Random) -> Path | None:
    files = sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts)
    return rng.choice(files) if files else None


def _set_launch(root: Path, rng: random.Random) -> None:
    extra = rng.choice(["", "+actor_rollout_ref.actor.megatron.override_transformer_config.use_flash_attn=False "])
    _write(root, rng.choice(SCRIPTS), _launch(rng.choice(VALUES), extra))


def _set_caller(root: Path, rng: random.Random) -> None:
    _write(root, rng.choice(["examples/caller.sh", "tools/caller.sh"]),
           _caller(rng.choice(["True", "False", "0"]), rng.choice(SCRIPTS)))


def _set_config(root: Path, rng: random.Random) -> None:
    defaults = rng.sample(["engine@actor_rollout_ref.actor: megatron", "extra", "_self_"], rng.randint(0, 2))
    _write(root, rng.choice(CONFIGS), _config(rng.choice(["false", "true", "null", "'False'"]), defaults))


def _move_app(root: Path, rng: random.Random) -> None:
    _write(root, "verl/trainer/main_ppo.py", APP.format(path=rng.choice(["../../conf", "../../other/conf", "x"])))


def _set_doc(root: Path, rng: random.Random) -> None:
    _write(root, "docs/start.md", DOC.format(key=KEY, value=rng.choice(VALUES)))


def _remove(root: Path, rng: random.Random) -> None:
    victim = _existing(root, rng)
    if victim is not None:
        victim.unlink()


def _rename(root: Path, rng: random.Random) -> None:
    victim = _existing(root, rng)
    if victim is not None:
        target = victim.with_name("moved_" + victim.name)
        victim.rename(target)


def _garble(root: Path, rng: random.Random) -> None:
    victim = _existing(root, rng)
    if victim is not None:
        victim.write_bytes(rng.choice([b"\xff\xfe\x00bad", b"if then fi ((( \n", b"key: [unclosed\n"]))


def _same_bytes(root: Path, rng: random.Random) -> None:
    victim = _existing(root, rng)
    if victim is not None:
        victim.write_bytes(victim.read_bytes())


def _commit(root: Path, rng: random.Random) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", "step")


EDITS: list[Edit] = [_set_launch, _set_caller, _set_config, _move_app, _set_doc, _remove, _rename, _garble,
                     _same_bytes, _commit]


def _rules() -> list[Rule]:
    """Every bundled rule the cache serves: one that reads the composed config is never cached."""
    from bot.rules.model import consults_config

    rules = [replace(rule, enabled=True) for rule in load_rules()]
    return [rule for rule in rules if not consults_config([rule])]


def _report(root: Path, rules: list[Rule], memo: CachedResults | None) -> str:
    return json.dumps(to_dict(scan(root, rules, memo=memo)), sort_keys=True)


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(EDITS), st.integers(0, 2**16), st.booleans()), min_size=2, max_size=8))
def test_cached_scan_equals_cold_scan_after_random_edits(steps: list[tuple[Edit, int, bool]]) -> None:
    rules = _rules()
    with tempfile.TemporaryDirectory() as tmp:
        root = make_repo(Path(tmp) / "repo", dict(START))
        cache_dir = Path(tmp) / "cache"
        for number, (edit, seed, dry_run) in enumerate(steps):  # a dry run takes cached fixes; a write does not
            edit(root, random.Random(seed))
            memo = CachedResults(ResultCache(cache_dir, root, fingerprint(rules)), reuse_changes=dry_run)
            cached = _report(root, rules, memo)
            assert cached == _report(root, rules, None), f"step {number}: {edit.__name__} (dry run {dry_run})"
        for _ in range(2):  # with nothing changed, a second dry run takes every result that is not an error
            memo = CachedResults(ResultCache(cache_dir, root, fingerprint(rules)), reuse_changes=True)
            report = scan(root, rules, memo=memo)
        assert report.cache is not None and report.cache.checked == len(report.errors)
