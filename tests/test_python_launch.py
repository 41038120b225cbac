"""Overrides in Python lists: what is read, what is edited, what is refused."""

from __future__ import annotations

from dataclasses import replace

from bot.engine.check import check_file
from bot.lang.python.launch import python_errors
from bot.model import Status
from bot.rules.loader import load_rules

RULES = [r for r in load_rules() if r.id == "megatron-use-mbridge"]


def test_only_lists_that_launch_or_override_are_read() -> None:
    src = (b'import subprocess\nARGS = ["echo", "critic.megatron.use_mbridge=False"]\n'
           b'CFG = {"critic.megatron.use_mbridge": False}\n'
           b'subprocess.run(["python3", "train.py", "critic.megatron.use_mbridge=False"])\n')
    result = check_file("t.py", src, RULES)
    assert [(f.line, f.status) for f in result.findings] == [(4, Status.FIXABLE)]
    assert result.change is not None
    assert result.change.after.count(b"use_mbridge=True") == 1 and b'"echo", "critic.megatron.use_mbridge=False"' in (
        result.change.after)


def test_a_string_with_escapes_is_reported_not_rewritten() -> None:
    src = b'cmd = ["python3", "-m", "verl.trainer.main_ppo", "critic.megatron.use_mbridge=\\x46alse"]\n'
    (finding,) = check_file("t.py", src, RULES).findings
    assert finding.status is Status.MANUAL and "escapes" in finding.message


def test_interpolations_are_run_time_values() -> None:
    src = b'compose(overrides=["critic.megatron.use_mbridge=${oc.env:MB}"])\n'
    (finding,) = check_file("t.py", src, RULES).findings
    assert finding.status is Status.MANUAL


def test_the_only_element_leaves_an_empty_list_and_python_that_does_not_parse_is_skipped() -> None:
    rules = [replace(r, enabled=True) for r in load_rules() if r.id == "megatron-use-mbridge"]
    remove = [replace(rules[0], id="drop", fix=replace(rules[0].fix, remove=True, has_set=False, set=None))]
    result = check_file("t.py", b'compose(overrides=["critic.megatron.use_mbridge=False"])\n', remove)
    assert [f.status for f in result.findings] == [Status.FIXABLE]
    assert result.change is not None and result.change.after == b"compose(overrides=[])\n"
    listed = b'compose(overrides=[\n    "critic.megatron.use_mbridge=False",\n])\n'
    after = check_file("t.py", listed, remove).change
    assert after is not None and after.after == b"compose(overrides=[\n])\n"
    broken = check_file("t.py", b'compose(overrides=["critic.megatron.use_mbridge=False"]\n', rules)
    assert broken.unreadable is not None and python_errors(b"def (:\n") == 1


def test_group_choices_without_a_dotted_key_are_read() -> None:
    """`compose(overrides=["model=small", "seed=3"])` names no dotted key: it was never read."""
    from pathlib import Path

    import yaml

    from bot.rules.loader import parse_rule

    rule = parse_rule(yaml.safe_load("id: model-map\ntitle: small is tiny\nmatch: {key: [model]}\n"
                                     "fix: {map: {small: tiny}}\n"), Path("model-map.yaml"))
    src = b'from hydra import compose\ncfg = compose(config_name="train", overrides=["model=small", "seed=3"])\n'
    result = check_file("t.py", src, [rule])
    assert [(f.line, f.status) for f in result.findings] == [(2, Status.FIXABLE)]
    assert result.change is not None and b'"model=tiny"' in result.change.after


def test_a_list_and_what_is_added_to_it_are_one_set_of_overrides() -> None:
    from pathlib import Path

    import yaml

    from bot.rules.loader import parse_rule

    ensure = parse_rule(yaml.safe_load("""
id: seed-set
title: The seed is set
when: {sets: ["trainer.**"]}
ensure:
  - {key: trainer.seed, value: 1, prefix: "+"}
"""), Path("seed-set.yaml"))
    src = (b'ov = ["trainer.epochs=2"]\nov += ["+trainer.seed=3"]\ncfg = compose(config_name="c", overrides=ov)\n'
           b'extra = ["trainer.epochs=2"]\nextra.extend(["+trainer.other=1"])\n'
           b'compose(config_name="c", overrides=extra)\n')
    result = check_file("t.py", src, [replace(ensure, enabled=True)])
    assert [(f.line, f.status) for f in result.findings] == [(4, Status.FIXABLE)]  # the first has its seed
    assert result.change is not None and b'extra = ["trainer.epochs=2", "+trainer.seed=1"]' in result.change.after



def test_a_key_written_before_a_percent_or_format_placeholder_is_read_and_the_file_is_not_screened_out() -> None:
    """`"k=%s" % v` and `"k={}".format(v)` write the key out, as an f-string does: the file holds overrides (the
    prefilter lets it through), the key is renamed, the value is left as built; `"%s=1" % k` has no key."""
    from pathlib import Path

    import yaml

    from bot.rules.loader import parse_rule

    rename = parse_rule(yaml.safe_load("id: lr-rename\ntitle: t\nmatch: {key: [optim.lr]}\nfix: {rename: base_lr}\n"),
                        Path("lr-rename.yaml"))
    src = (b'import subprocess, sys\n'
           b'subprocess.run([sys.executable, "-m", "app.main", "optim.lr=%g" % lr, "optim.lr={}".format(lr),\n'
           b'                "%s=1" % key])\n')
    result = check_file("t.py", src, [rename])
    assert [(f.line, f.status) for f in result.findings] == [(2, Status.FIXABLE), (2, Status.FIXABLE)]
    assert result.change is not None and b'"optim.base_lr=%g" % lr, "optim.base_lr={}".format(lr)' in (
        result.change.after)
