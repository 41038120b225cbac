"""YAML configs as a source kind: packages, settings, each action as byte edits, and the refusals."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from bot.engine.check import check_file, read_findings
from bot.engine.edits import apply_edits, outside_unchanged, unique_edits
from bot.lang.yaml.config import yaml_errors, yaml_groups, yaml_packages
from bot.lang.yaml.format import yaml_value
from bot.lang.yaml.packages import header_package
from bot.model import Finding, Status
from bot.rules.loader import load_rules, parse_rule
from bot.rules.model import Rule
from tests.conftest import RULE_DEFS

RULES = {r.id: dataclasses.replace(r, enabled=True) for r in load_rules([RULE_DEFS])}


def find_yaml(path: str, data: bytes, rules: list[Rule], packages: dict[str, str] | None = None) -> list[Finding]:
    return read_findings(path, data, rules, kind="yaml", packages=packages)


def rule(rule_id: str, **fields: Any) -> Rule:
    return parse_rule({"id": rule_id, "title": rule_id, **fields}, Path(f"{rule_id}.yaml"))


def fix(src: str | bytes, rules: list[Rule], path: str = "conf/x.yaml",
        packages: dict[str, str] | None = None) -> tuple[list[Finding], bytes]:
    data = src.encode() if isinstance(src, str) else src
    findings = find_yaml(path, data, rules, packages)
    edits = unique_edits(findings)
    after = apply_edits(data, edits)
    assert outside_unchanged(data, after, edits)
    assert yaml_errors(after) == 0
    again = find_yaml(path, after, rules, packages)
    assert not [f for f in again if f.status is Status.FIXABLE], "a second run would change it again"
    return findings, after


def statuses(findings: list[Finding]) -> list[tuple[int, str]]:
    return [(f.line, f.status.value) for f in findings]


# -- packages ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "package"), [
    ("# @package _global_\na: 1\n", ""),
    ("\n#   @package   actor_rollout_ref.actor\na: 1\n", "actor_rollout_ref.actor"),
    ("# @package _global_.critic\na: 1\n", "critic"),
    ("# @package _group_\na: 1\n", None),
    ("# a comment first ends Hydra's header\n# @package _global_\na: 1\n", None),
    ("a: 1\n# @package _global_\n", None),
])
def test_header_package_reads_the_header_as_hydra_does(text: str, package: str | None) -> None:
    assert header_package(text.encode()) == package


def test_keys_get_the_package_from_header_then_mapping_then_root() -> None:
    src = b"megatron:\n  use_mbridge: False\n"
    mbridge = [RULES["megatron-use-mbridge"]]
    placed = {"cfg/actor/megatron_actor.yaml": "actor_rollout_ref.actor"}
    assert find_yaml("cfg/actor/megatron_actor.yaml", src, mbridge, placed)[0].key == (
        "actor_rollout_ref.actor.megatron.use_mbridge")
    assert find_yaml("cfg/other.yaml", src, mbridge, placed)[0].key == "megatron.use_mbridge"
    header = b"# @package critic\n" + src
    assert find_yaml("cfg/actor/megatron_actor.yaml", header, mbridge, placed)[0].key == "critic.megatron.use_mbridge"
    group = b"# @package _group_\n" + src
    assert find_yaml("cfg/actor/megatron_actor.yaml", group, mbridge, placed)[0].key == (
        "actor_rollout_ref.actor.megatron.use_mbridge")


def test_yaml_packages_follows_defaults_lists(tmp_path: Path) -> None:
    config = tmp_path / "verl" / "trainer" / "config"
    files = {
        "ppo_megatron_trainer.yaml": (
            "# primary config\ndefaults:\n"
            "  - actor@actor_rollout_ref.actor: megatron_actor\n"
            "  - ref@actor_rollout_ref.ref: megatron_ref\n"
            "  - critic: megatron_critic\n"
            "  - /engine@reward_model.engine: megatron\n"
            "  - rollout@actor_rollout_ref.rollout: missing_option\n"
            "  - override hydra/job_logging: disabled\n"
            "  - _self_\ntrainer:\n  n_gpus_per_node: 8\n"),
        "actor/megatron_actor.yaml": ("defaults:\n  - ../optim@optim: megatron\n  - actor\n  - _self_\n"
                                      "strategy: megatron\n"),
        "actor/actor.yaml": "ppo_mini_batch_size: 256\n",
        "optim/megatron.yaml": "lr: 1e-6\n",
        "ref/megatron_ref.yaml": "# @package _global_\ndefaults:\n  - /optim@extra: megatron\nstrategy: megatron\n",
        "critic/megatron_critic.yaml": "strategy: megatron\n",
        "engine/megatron.yaml": "use_mbridge: True\n",
        "unrelated.yaml": "key: [unclosed\n",
    }
    for rel, text in files.items():
        (config / rel).parent.mkdir(parents=True, exist_ok=True)
        (config / rel).write_text(text)
    base = "verl/trainer/config/"
    packages = yaml_packages(tmp_path, [base + rel for rel in files])
    assert packages == {
        base + "actor/megatron_actor.yaml": "actor_rollout_ref.actor",
        base + "actor/actor.yaml": "actor_rollout_ref.actor",  # a plain entry keeps the includer's package
        base + "optim/megatron.yaml": "actor_rollout_ref.actor.optim",  # relative to the includer's package
        base + "ref/megatron_ref.yaml": "actor_rollout_ref.ref",  # the entry's @package wins over a header
        base + "critic/megatron_critic.yaml": "critic",
        base + "engine/megatron.yaml": "reward_model.engine",  # /engine: from the config root
    }


def test_yaml_packages_reads_only_files_that_mention_defaults(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_bytes(b"\xff\xfe not yaml: [\n")
    (tmp_path / "b.yaml").write_text("defaults: [x: y]\n")
    assert yaml_packages(tmp_path, ["a.yaml", "b.yaml", "gone.yaml"]) == {}


# -- settings ---------------------------------------------------------------------------------------


def test_every_key_is_a_setting_with_its_text_state_and_place() -> None:
    src = ("defaults:\n  - ppo_trainer\nhydra:\n  run: {dir: out}\n"
           "actor_rollout_ref:\n  actor:\n    lr: 1e-6   # small\n    name: 'x'\n"
           "    ref: ${actor_rollout_ref.model.path}\n    loggers: [console, wandb]\n    none:\n")
    group, hydra_node = yaml_groups(src.encode(), "")
    assert (hydra_node.role, [s.key for s in hydra_node.settings]) == ("hydra-node", ["hydra.run", "hydra.run.dir"])
    got = {s.key: (s.state, s.text, s.value, s.line, s.column) for s in group.settings}
    assert got == {
        "actor_rollout_ref": ("mapping", None, None, 5, 1),
        "actor_rollout_ref.actor": ("mapping", None, None, 6, 3),
        "actor_rollout_ref.actor.lr": ("static", "1e-6", 1e-6, 7, 5),
        "actor_rollout_ref.actor.name": ("static", "'x'", "x", 8, 5),
        "actor_rollout_ref.actor.ref": ("dynamic", "${actor_rollout_ref.model.path}",
                                        "${actor_rollout_ref.model.path}", 9, 5),
        "actor_rollout_ref.actor.loggers": ("static", "[console, wandb]", ["console", "wandb"], 10, 5),
        "actor_rollout_ref.actor.none": ("static", "", None, 11, 5),
    }
    assert group.settings[4].reason == "an interpolation, resolved at run time"


def test_a_custom_tag_leaves_the_rest_of_the_file_readable() -> None:
    src = b"model: !Custom {path: x}\nengine:\n  tag: !Local v\n  use_mbridge: false\n"
    (finding,) = find_yaml("x.yaml", src, [RULES["megatron-use-mbridge"]])
    assert finding.status is Status.FIXABLE


def test_each_document_is_one_group_and_columns_count_characters() -> None:
    groups = yaml_groups("a:\n  b: 1\n---\n# ü\nc: {é: 1, d: 2}\n".encode(), "p.")
    assert [[s.key for s in g.settings] for g in groups] == [["p.a", "p.a.b"], ["p.c", "p.c.é", "p.c.d"]]
    assert (groups[1].settings[2].line, groups[1].settings[2].column) == (5, 11)


def test_yaml_errors() -> None:
    assert yaml_errors(b"a: 1\n---\nb: 2\n") == 0
    assert yaml_errors(b"") == 0
    assert yaml_errors(b"a: [1\n") == 1
    assert yaml_errors(b"a: 1\na: 2\n") == 1  # duplicate keys fail the round-trip loader
    assert yaml_errors(b"a: \xff\n") == 1
    assert yaml_errors(b"a: 1\n---\n  - b: [\n") == 1


# -- value ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("old", "new"), [
    ("False", "True"), ("false", "true"), ("FALSE", "TRUE"), ('"False"', '"True"'), ("'false'", "'true'"),
    ("no", "true"), ("0", "True"),
])
def test_value_keeps_the_style(old: str, new: str) -> None:
    src = f"critic:\n  megatron:\n    use_mbridge: {old}  # note\n"
    _, after = fix(src, [RULES["megatron-use-mbridge"]])
    assert after.decode() == f"critic:\n  megatron:\n    use_mbridge: {new}  # note\n"


def test_an_empty_value_gets_a_space_and_the_comment_stays() -> None:
    _, after = fix("engine:\n  use_mbridge:   # unset\n  x: 1\n", [RULES["megatron-use-mbridge"]])
    assert after == b"engine:\n  use_mbridge: True   # unset\n  x: 1\n"


@pytest.mark.parametrize("value", [1e-6, 0.1, 3, -2, "a: b", "yes", "null", "", "x #y", "it's", math.inf,
                                   None, True, ["a", 1, "b, c"], {"k": [1, 2]}, "${x}", "ü"])
def test_values_are_written_as_yaml_that_reads_back(value: Any) -> None:
    from ruamel.yaml import YAML

    for flow in (False, True):
        text = yaml_value(value, None, "lower", flow=flow)
        src = "{_: " + text + "}" if flow else "_: " + text
        assert YAML(typ="safe", pure=True).load(src) == {"_": value}, text


def test_a_set_in_a_flow_mapping_replaces_only_the_scalar() -> None:
    lr = rule("lr", match={"key": ["**.optim.lr"]}, fix={"set": "1e-5, warm"})
    _, after = fix("critic:\n  optim: {lr: 1e-4, clip_grad: 1.0}\n", [lr])
    assert after == b'critic:\n  optim: {lr: "1e-5, warm", clip_grad: 1.0}\n'


def test_non_ascii_text_before_the_value_shifts_the_byte_span() -> None:
    src = "# 配置\nengine:\n  name: 'é'\n  use_mbridge: False  # 旧\n".encode()
    (finding,) = find_yaml("x.yaml", src, [RULES["megatron-use-mbridge"]])
    (edit,) = finding.edits
    assert src[edit.span.start : edit.span.end] == b"False"
    assert apply_edits(src, finding.edits) == src.replace(b"False", b"True")


# -- key --------------------------------------------------------------------------------------------


def test_rename_under_the_same_parent_replaces_the_key_text_only() -> None:
    src = "actor_rollout_ref:\n  actor:\n    optim:\n      'warmup_style': constant # why\n      lr: 1\n"
    _, after = fix(src, [RULES["optim-warmup-rename"]])
    assert after == src.replace("'warmup_style'", "'lr_scheduler_type'").encode()


def test_rename_and_map_write_key_and_value() -> None:
    src = "# @package actor_rollout_ref\nrollout:\n  disable_mm_preprocessor_cache: false\n  n: 4\n"
    _, after = fix(src, [RULES["mm-cache-map"]])
    assert after == src.replace("disable_mm_preprocessor_cache: false", "mm_processor_cache_gb: 4").encode()


MOVE = rule("move", match={"key": ["trainer.val_kwargs.temperature"]}, fix={"rename": "trainer.temperature"})


def test_rename_to_another_parent_moves_a_scalar_line() -> None:
    src = "trainer:\n  val_kwargs:\n    n: 1\n    temperature: 0.6  # greedy-ish\n  epochs: 3\nother: 1\n"
    _, after = fix(src, [MOVE])
    assert after == b"trainer:\n  val_kwargs:\n    n: 1\n  epochs: 3\n  temperature: 0.6  # greedy-ish\nother: 1\n"


def test_a_move_next_to_its_old_line_becomes_one_replacement() -> None:
    src = "trainer:\r\n  epochs: 3\r\n  val_kwargs:\r\n    n: 1\r\n    temperature: 0.6"
    findings, after = fix(src, [MOVE])
    assert len(findings[0].edits) == 1
    assert after == b"trainer:\r\n  epochs: 3\r\n  val_kwargs:\r\n    n: 1\r\n  temperature: 0.6"


def test_a_block_mapping_moves_whole_and_a_flow_one_or_onto_a_set_key_is_manual() -> None:
    nested = rule("nested", match={"key": ["trainer.val_kwargs"]}, fix={"rename": "eval.kwargs"})
    _, after = fix("trainer:\n  val_kwargs:\n    n: 1  # runs\n    top: 2\n  x: 2\n", [nested])
    assert after == b"trainer:\n  x: 2\neval:\n  kwargs:\n    n: 1  # runs\n    top: 2\n"
    (finding,) = find_yaml("x.yaml", b"trainer:\n  val_kwargs: {n: 1}\n  x: 2\n", [nested])
    assert finding.status is Status.MANUAL and "one-line scalar or a block mapping" in finding.message
    (finding,) = find_yaml("x.yaml", b"trainer:\n  temperature: 1\n  val_kwargs:\n    temperature: 0\n    n: 1\n",
                           [MOVE])
    assert finding.status is Status.MANUAL and "already set" in finding.message
    (finding,) = find_yaml("x.yaml", b"trainer:\n  val_kwargs:\n    temperature: ${.n}\n    n: 1\n", [MOVE])
    assert finding.status is Status.MANUAL and "relative interpolation" in finding.message


# -- remove -----------------------------------------------------------------------------------------


def test_remove_deletes_the_whole_entry_with_its_nested_lines() -> None:
    drop = rule("drop", match={"key": ["actor_rollout_ref.rollout.engine_kwargs"]}, fix={"remove": True})
    src = ("actor_rollout_ref:\n  rollout:\n    engine_kwargs:  # per engine\n      vllm:\n        swap_space: 4\n"
           "      # sglang has none\n      sglang: {}\n    name: vllm\n")
    _, after = fix(src, [drop])
    assert after == b"actor_rollout_ref:\n  rollout:\n    name: vllm\n"


def test_remove_between_blank_lines_keeps_one_blank_line() -> None:
    src = "actor_rollout_ref:\n  rollout:\n    name: vllm\n\n    log_prob_use_dynamic_bsz: true\n\n    n: 1\n"
    _, after = fix(src, [RULES["drop-dynamic-bsz"]])
    assert after == b"actor_rollout_ref:\n  rollout:\n    name: vllm\n\n    n: 1\n"


def test_remove_and_insert_around_keys_without_a_value() -> None:
    src = "actor_rollout_ref:\n  rollout:\n    log_prob_use_dynamic_bsz:   # none\n    n:\n"
    _, after = fix(src, [RULES["drop-dynamic-bsz"]])
    assert after == b"actor_rollout_ref:\n  rollout:\n    n:\n"
    src = "actor_rollout_ref:\n  actor:\n    megatron:\n      seed:\ntrainer: {}\n"
    _, after = fix(src, [RULES["npu-flash-attn-demo"]])
    assert after == (b"actor_rollout_ref:\n  actor:\n    megatron:\n      seed:\n"
                     b"      override_transformer_config:\n        use_flash_attn: True\ntrainer: {}\n")


@pytest.mark.parametrize(("src", "reason"), [
    ("actor_rollout_ref:\n  rollout:\n    log_prob_use_dynamic_bsz: true\n", "empty"),
    ("actor_rollout_ref:\n  rollout: {n: 1, log_prob_use_dynamic_bsz: true}\n", "flow mapping"),
    ("base: &b\n  log_prob_use_dynamic_bsz: true\n  n: 1\nactor_rollout_ref:\n  rollout: *b\n", "anchor"),
    ("base: &b {n: 1}\nactor_rollout_ref:\n  rollout:\n    <<: *b\n    log_prob_use_dynamic_bsz: true\n",
     "merge key"),
])
def test_remove_refusals(src: str, reason: str) -> None:
    findings, after = fix(src, [RULES["drop-dynamic-bsz"]])
    assert [f.status for f in findings] == [Status.MANUAL]
    assert reason in findings[0].message and after == src.encode()


# -- insert -----------------------------------------------------------------------------------------


def test_insert_creates_missing_mappings_with_the_files_indent() -> None:
    src = ("actor_rollout_ref:\n    actor:\n        megatron:\n            seed: 1\n\n"
           "    # the rollout block\n    rollout:\n        name: vllm\n")
    _, after = fix(src, [RULES["npu-flash-attn-demo"]])
    assert after.decode() == (
        "actor_rollout_ref:\n    actor:\n        megatron:\n            seed: 1\n"
        "            override_transformer_config:\n                use_flash_attn: True\n\n"
        "    # the rollout block\n    rollout:\n        name: vllm\n")


def test_inserts_from_two_rules_share_one_new_mapping() -> None:
    src = "actor_rollout_ref:\n  actor:\n    megatron:\n      use_mbridge: true\n"
    findings, after = fix(src, [RULES["npu-flash-attn-demo"], RULES["megatron-recompute-uniform"]])
    assert len(findings) == 4 and all(f.status is Status.FIXABLE for f in findings)
    assert after.decode() == (
        "actor_rollout_ref:\n  actor:\n    megatron:\n      use_mbridge: true\n"
        "      override_transformer_config:\n        use_flash_attn: true\n        recompute_method: uniform\n"
        "        recompute_granularity: full\n        recompute_num_layers: 1\n")


def test_insert_after_non_ascii_text_lands_on_the_right_byte() -> None:
    src = "# 说明\nactor_rollout_ref:\n  actor:\n    megatron:\n      name: 'ü'  # é\n---\nx: 1\n"
    _, after = fix(src, [RULES["npu-flash-attn-demo"]])
    assert after.decode() == src.replace("# é\n", "# é\n      override_transformer_config:\n"
                                         "        use_flash_attn: True\n")


def test_insert_keeps_crlf_and_a_missing_final_newline() -> None:
    src = b"actor_rollout_ref:\r\n  actor:\r\n    megatron:\r\n      seed: 1"
    _, after = fix(src, [RULES["npu-flash-attn-demo"]])
    assert after == src + b"\r\n      override_transformer_config:\r\n        use_flash_attn: True"


@pytest.mark.parametrize(("src", "reason"), [
    ("actor_rollout_ref:\n  actor:\n    megatron: {seed: 1}\n", "flow mapping"),
    ("actor_rollout_ref:\n  actor:\n    megatron:\n      override_transformer_config: ${oc.select:x,{}}\n",
     "not a mapping"),
    ("m: &m\n  seed: 1\nactor_rollout_ref:\n  actor:\n    megatron:\n      <<: *m\n      x: 1\n", "merge key"),
])
def test_insert_refusals(src: str, reason: str) -> None:
    findings, after = fix(src, [RULES["npu-flash-attn-demo"]])
    assert [f.status for f in findings] == [Status.MANUAL]
    assert reason in findings[0].message and after == src.encode()


def test_insert_outside_the_files_package_is_manual() -> None:
    src = b"# @package actor_rollout_ref.ref\nmegatron:\n  seed: 1\n"
    sets_ref = rule("ref-flash", ensure=[{"key": "actor_rollout_ref.actor.megatron.use_flash_attn", "value": True,
                                          "if_sets": ["actor_rollout_ref.ref.**"]}])
    (finding,) = find_yaml("x.yaml", src, [sets_ref])
    assert finding.status is Status.MANUAL and "outside this file's package" in finding.message


# -- prefix, tags, multi-line, engine ----------------------------------------------------------------


def test_a_prefix_fix_is_manual_in_yaml() -> None:
    plus = rule("plus", match={"key": ["trainer.val_before_train"]}, fix={"prefix": "+"})
    (finding,) = find_yaml("x.yaml", b"trainer:\n  val_before_train: false\n", [plus])
    assert finding.status is Status.MANUAL and "prefixes do not exist in a YAML config" in finding.message


@pytest.mark.parametrize(("value", "reason"), [
    ("!!bool false", "YAML tag"),
    ("&off false\nother: *off", "anchor"),
    ("|\n    false", "several lines"),
    ('"fal\n    se"', "several lines"),
])
def test_value_refusals(value: str, reason: str) -> None:
    src = f"engine:\n  use_mbridge: {value}\n"
    findings, after = fix(src, [RULES["megatron-use-mbridge"]])
    assert findings and all(f.status is Status.MANUAL for f in findings)
    assert reason in findings[0].message and after == src.encode()


def test_the_engine_verifies_and_applies_yaml_fixes() -> None:
    src = b"megatron:\n  use_mbridge: False\n  override_transformer_config: {}\n"
    placed = {"cfg/actor/megatron_actor.yaml": "actor_rollout_ref.actor"}
    result = check_file("cfg/actor/megatron_actor.yaml", src,
                        [RULES["megatron-use-mbridge"], RULES["npu-flash-attn-demo"]], packages=placed)
    assert statuses(result.findings) == [(2, "fixable"), (1, "fixable")]
    assert result.change is not None and result.change.after == (
        b"megatron:\n  use_mbridge: True\n  override_transformer_config:\n    use_flash_attn: True\n")


def test_line_separators_leave_line_numbers_as_ruamel_counts_them(tmp_path: Path) -> None:
    """U+2028 breaks a line for libyaml, not for YAML 1.2: the fast path must not read such a file."""
    from bot.engine.scan import scan
    from tests.conftest import make_repo

    text = ('note: "A\u2028B"\nactor_rollout_ref:\n  actor:\n    megatron:\n'
            "      use_mbridge: false  # followup-bot: ignore[megatron-use-mbridge]\n      seed: 1\n"
            "critic:\n  megatron:\n    use_mbridge: false\n")
    root = make_repo(tmp_path / "repo", {"conf/ppo.yaml": text})
    report = scan(root, load_rules())
    assert [(f.path, f.line) for f in report.findings] == [("conf/ppo.yaml", 9)]
    assert [(f.path, f.line) for f in report.silenced] == [("conf/ppo.yaml", 5)]
    assert b"ignore[megatron-use-mbridge]" in report.changes[0].after.splitlines()[4]
    assert report.changes[0].after.splitlines()[4].count(b"false") == 1


def test_yaml_packages_place_every_option_of_a_group_where_the_group_goes(tmp_path: Path) -> None:
    files = {
        "conf/train.yaml": "defaults:\n  - data: small.yaml\n  - experiment: null\n  - model: tiny\n  - _self_\n",
        "conf/eval.yaml": "defaults:\n  - model@scorer: tiny\n  - _self_\n",
        "conf/data/small.yaml": "rows: 10\n",  # named with its suffix, as Hydra allows
        "conf/data/large.yaml": "rows: 1000000\n",  # chosen only on the command line or by an experiment
        "conf/experiment/full.yaml": "# @package _global_\ndefaults:\n  - override /data: huge\n",
        "conf/data/huge.yaml": "defaults:\n  - large\nrows: 1\n",
        "conf/model/tiny.yaml": "width: 8\n",
        "conf/model/wide.yaml": "width: 4096\n",  # the group sits at two packages: which one is unknown
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    packages = yaml_packages(tmp_path, list(files))
    assert packages == {
        "conf/data/small.yaml": "data", "conf/data/large.yaml": "data", "conf/data/huge.yaml": "data",
        "conf/experiment/full.yaml": "", "conf/model/tiny.yaml": "scorer",  # included twice: the first place
    }  # and model/wide.yaml is left out


def test_yaml_packages_read_option_paths_schema_options_and_rooted_groups(tmp_path: Path) -> None:
    """`- model: layers/mlp` puts mlp.yaml at `model` (the group's package, not `model.layers`); an option
    with its own schema defaults, of a group each run chooses (`task: ???`), is the group's, not a primary;
    a primary below the config root (`bench/nav/run.yaml`) writes `/lab/task: walk` from that root."""
    files = {
        "conf/config.yaml": "defaults:\n  - model: layers/mlp\n  - task: ???\n  - _self_\nseed: 0\n",
        "conf/model/layers/mlp.yaml": "num_cells: [32, 32]\n",
        "conf/model/layers/cnn.yaml": "num_cells: [16]\n",  # no list names it: an option of `model` all the same
        "conf/task/vmas/balance.yaml": "defaults:\n  - balance_schema\n  - _self_\nn_agents: 3\n",
        "conf/bench/nav/run.yaml": "# @package _global_\ndefaults:\n  - /lab/task: walk\n  - _self_\n",
        "conf/lab/task/walk.yaml": "end_on_success: true\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    packages = yaml_packages(tmp_path, list(files))
    assert packages == {
        "conf/model/layers/mlp.yaml": "model", "conf/model/layers/cnn.yaml": "model",
        "conf/task/vmas/balance.yaml": "task", "conf/lab/task/walk.yaml": "lab.task",
    }


def test_yaml_packages_give_an_option_of_a_nested_group_the_nested_groups_package(tmp_path: Path) -> None:
    files = {
        "conf/config.yaml": "defaults:\n  - model: big\n  - _self_\n",
        "conf/model/big.yaml": "defaults:\n  - layers: mlp\n  - _self_\nwidth: 8\n",
        "conf/model/layers/mlp.yaml": "depth: 2\n",
        "conf/model/layers/conv.yaml": "depth: 4\n",  # chosen on the command line: model/layers=conv
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert yaml_packages(tmp_path, list(files)) == {
        "conf/model/big.yaml": "model", "conf/model/layers/mlp.yaml": "model.layers",
        "conf/model/layers/conv.yaml": "model.layers"}  # the nearest group, not `model`


def test_yaml_packages_place_a_nested_groups_options_when_the_outer_group_defaults_to_null(tmp_path: Path) -> None:
    """`- model: null` at the root: `model/net.yaml`, chosen at run time, names the nested group `encoder`,
    whose options sort before it (`model/encoder/small.yaml`): they are `model.encoder`, never `model`."""
    files = {
        "conf/config.yaml": "defaults:\n  - model: null\n  - _self_\n",
        "conf/model/net.yaml": "defaults:\n  - encoder: small\n  - _self_\nwidth: 8\n",
        "conf/model/encoder/small.yaml": "layers: 3\n",
        "conf/model/encoder/big.yaml": "layers: 12\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert yaml_packages(tmp_path, list(files)) == {
        "conf/model/net.yaml": "model", "conf/model/encoder/small.yaml": "model.encoder",
        "conf/model/encoder/big.yaml": "model.encoder"}


def test_a_defaults_list_choice_is_mapped_only_to_an_option_the_repository_has(tmp_path: Path) -> None:
    """`- env: tsp` chooses as `env=tsp` does: a map of the group's options rewrites it, where the new
    option's file exists (beside the config or in a directory above it); else the config would not compose."""
    from bot.engine.scan import scan
    from bot.model import Status
    from bot.rules.loader import load_rules
    from tests.conftest import make_repo

    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    (rules_dir / "env-moved.yaml").write_text("id: env-moved\nmatch: {key: [env]}\n"
                                              "fix: {map: {tsp: routing/tsp, cvrp: routing/cvrp}}\n")
    repo = make_repo(tmp_path / "r", {
        "conf/main.yaml": "defaults:\n  - env: tsp\n  - _self_\nseed: 1\n",
        "conf/experiment/e1.yaml": "# @package _global_\ndefaults:\n  - override /env: cvrp\n",
        "conf/env/routing/tsp.yaml": "size: 20\n"})  # no routing/cvrp yet
    report = scan(repo, load_rules([rules_dir], include_bundled=False))
    found = {f.path: f for f in report.findings}
    assert found["conf/main.yaml"].status is Status.FIXABLE
    assert found["conf/experiment/e1.yaml"].status is Status.MANUAL
    message = found["conf/experiment/e1.yaml"].message
    assert message.endswith("no option routing/cvrp of env in the repository: the config would not compose"
                            " (not written: set to routing/cvrp)"), message  # never "set to ...; no option"


def test_a_hydra_group_choice_may_map_to_an_option_hydra_core_ships(tmp_path: Path) -> None:
    """`hydra/job_logging: disabled` is a file of hydra-core, not of the repository: the map is written. A
    `hydra/launcher` option no file provides may come from a plugin: manual, and not said to break the config."""
    from bot.engine.scan import scan
    from tests.conftest import make_repo

    repo = make_repo(tmp_path / "r", {"conf/main.yaml": "defaults:\n  - _self_\n  - override hydra/job_logging: "
                                                        "colorlog\n  - override hydra/launcher: basic\nseed: 1\n"})
    found = scan(repo, [rule("quiet", match={"key": ["hydra/job_logging"]}, fix={"map": {"colorlog": "disabled"}}),
                        rule("fan", match={"key": ["hydra/launcher"]}, fix={"map": {"basic": "joblib"}})]).findings
    assert [(f.rule, f.status.value) for f in found] == [("quiet", "fixable"), ("fan", "manual")]
    assert "a person must check that an installed plugin provides it" in found[1].message
    assert "would not compose" not in found[1].message


def test_a_defaults_choice_written_as_its_file_name_is_that_option_and_keeps_the_suffix(tmp_path: Path) -> None:
    """Hydra reads `- env: gym.yaml` as the option `gym`: a map of `gym` rewrites it, as `gymnasium.yaml`."""
    from bot.engine.scan import scan
    from tests.conftest import make_repo

    repo = make_repo(tmp_path / "r", {"conf/main.yaml": "defaults:\n  - env: gym.yaml\n  - _self_\nseed: 1\n",
                                      "conf/env/gymnasium.yaml": "size: 2\n"})
    report = scan(repo, [rule("env", match={"key": ["env"], "value": ["gym"]}, fix={"map": {"gym": "gymnasium"}})])
    assert [(f.line, f.status.value) for f in report.findings] == [(2, "fixable")]
    (change,) = report.changes
    assert b"  - env: gymnasium.yaml\n" in change.after


def test_a_defaults_choice_is_read_only_where_its_group_is_known(tmp_path: Path) -> None:
    """A relative entry in an option or experiment config is below that config's own group, which its
    package does not tell: not read. In a primary config, the new option must be beside it (not in
    another config tree up the directories)."""
    from bot.engine.scan import scan
    from bot.rules.loader import load_rules
    from tests.conftest import make_repo

    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    (rules_dir / "enc.yaml").write_text("id: enc\nmatch: {key: [encoder]}\nfix: {map: {small: v2/small}}\n")
    repo = make_repo(tmp_path / "r", {
        "conf/config.yaml": "defaults:\n  - encoder: small\n  - _self_\n",
        "conf/encoder/v2/small.yaml": "layers: 2\n",
        "conf/model/net.yaml": "# @package model\ndefaults:\n  - encoder: small\n",  # model/encoder
        "conf/legacy/main.yaml": "defaults:\n  - encoder: small\n",  # beside it: legacy/encoder, no v2
        "conf/legacy/encoder/small.yaml": "layers: 1\n"})
    report = scan(repo, load_rules([rules_dir], include_bundled=False))
    assert sorted((f.path, f.status.value) for f in report.findings) == [
        ("conf/config.yaml", "fixable"), ("conf/legacy/main.yaml", "manual")]


def test_a_removal_names_each_interpolation_it_leaves_once(tmp_path: Path) -> None:
    rules = [rule("drop", match={"key": ["trainer.total_epochs"]}, fix={"remove": True})]
    src = ("trainer:\n  total_epochs: 3\n  seed: 1\nbase: &b\n  horizon: ${trainer.total_epochs}\n"
           "a:\n  <<: *b\nb:\n  <<: *b\n"
           "esc: \\${trainer.total_epochs}\nsel: ${oc.select:trainer.total_epochs,10}\n")
    found = find_yaml("c.yaml", src.encode(), rules)
    assert sorted((f.line, f.status.value) for f in found) == [(2, "fixable"), (5, "manual")]


def test_a_renamed_mapping_takes_the_interpolations_of_its_keys_along() -> None:
    rules = [rule("moved", match={"key": ["model.enc"]}, fix={"rename": "model.encoder"})]
    src = ("model:\n  enc:\n    dim: 4\n    sizes: [1, 2]\nhead:\n  dim: ${model.enc.dim}\n"
           "  first: ${model.enc.sizes[0]}\n"
           "  other: ${model.encoder_x}\n  path: \"${model.enc.dim}/it's\"\nlayers:\n  - width: ${model.enc.dim}\n")
    result = check_file("c.yaml", src.encode(), rules)
    assert result.change is not None
    expected = src.replace("  enc:", "  encoder:").replace("${model.enc.", "${model.encoder.")
    assert result.change.after.decode() == expected


def test_a_removal_reports_what_a_list_keeps_of_the_removed_key() -> None:
    rules = [rule("drop", match={"key": ["**.workers"]}, fix={"remove": True})]
    src = "data:\n  workers: 4\n  batch: 8\nloaders:\n  - workers: ${data.workers}\n  - jobs: ${data.workers}\n"
    found = find_yaml("c.yaml", src.encode(), rules)
    assert sorted((f.line, f.status.value) for f in found) == [(2, "fixable"), (5, "manual"), (6, "manual")]


def test_two_renames_whose_keys_one_value_names_both_fix_it() -> None:
    rules = [rule("ra", match={"key": ["a"]}, fix={"rename": "x"}),
             rule("rb", match={"key": ["b"]}, fix={"rename": "y"})]
    src = "a: 1\nb: 2\nc: ${a}_${b}\nd: \"${oc.select:a,0}/${b}\"\n"
    result = check_file("c.yaml", src.encode(), rules)
    assert all(f.status is Status.FIXABLE for f in result.findings) and len(result.findings) == 6
    assert result.change is not None
    assert result.change.after.decode() == "x: 1\ny: 2\nc: ${x}_${y}\nd: \"${oc.select:x,0}/${y}\"\n"


def test_a_primary_config_with_a_global_header_has_its_defaults_read(tmp_path: Path) -> None:
    """lightning-hydra's `train.yaml` is `# @package _global_`: its relative entries are still the config
    root's groups; an experiment config with the same header, which a defaults list names, is not read."""
    from bot.engine.scan import scan
    from tests.conftest import make_repo

    repo = make_repo(tmp_path / "repo", {
        "conf/train.yaml": "# @package _global_\ndefaults:\n  - _self_\n  - db: mysql\n  - experiment: null\n",
        "conf/db/mysql.yaml": "user: a\n", "conf/db/pg.yaml": "user: b\n",
        "conf/experiment/x.yaml": "# @package _global_\ndefaults:\n  - db: mysql\n"})
    report = scan(repo, [rule("db-map", match={"key": ["db"], "value": ["mysql"]}, fix={"map": {"mysql": "pg"}})])
    assert [(f.path, f.line, f.status.value) for f in report.findings] == [("conf/train.yaml", 4, "fixable")]


def test_an_experiment_configs_relative_entry_is_below_its_own_group_even_with_that_directory_beside_it(
        tmp_path: Path) -> None:
    """An experiment config that no defaults list names, in a group directory of the config root: its relative
    `- db: mysql` chooses `experiment/db` (the directory beside it), never the root's `db`."""
    from bot.engine.scan import scan
    from tests.conftest import make_repo

    repo = make_repo(tmp_path / "repo", {
        "conf/train.yaml": "# @package _global_\ndefaults:\n  - _self_\n  - db: mysql\n",
        "conf/db/mysql.yaml": "user: a\n", "conf/db/pg.yaml": "user: b\n",
        "conf/experiment/x.yaml": "# @package _global_\ndefaults:\n  - db: mysql\n",
        "conf/experiment/db/mysql.yaml": "user: c\n", "conf/experiment/db/pg.yaml": "user: d\n"})
    top = scan(repo, [rule("db-map", match={"key": ["db"], "value": ["mysql"]}, fix={"map": {"mysql": "pg"}})])
    assert [(f.path, f.line) for f in top.findings] == [("conf/train.yaml", 4)]
    nested = scan(repo, [rule("db-map", match={"key": ["experiment/db"], "value": ["mysql"]},
                              fix={"map": {"mysql": "pg"}})])
    assert [(f.path, f.line, f.status.value) for f in nested.findings] == [("conf/experiment/x.yaml", 3, "fixable")]


def test_two_rules_renaming_one_key_to_two_names_still_clash_in_its_interpolations() -> None:
    rules = [rule("ra", match={"key": ["optim.lr"]}, fix={"rename": "optim.base_lr"}),
             rule("rb", match={"key": ["optim.lr"]}, fix={"rename": "optim.lr_max"})]
    result = check_file("c.yaml", b"sched:\n  start: ${optim.lr}\n", rules)
    assert [f.status.value for f in result.findings] == ["manual", "manual"] and result.change is None


def test_a_rule_naming_a_hydra_setting_reads_the_configs_hydra_node_and_a_wildcard_does_not() -> None:
    src = b"seed: 1\nhydra:\n  job:\n    chdir: true\n"
    named = find_yaml("c.yaml", src, [rule("chdir", match={"key": ["hydra.job.chdir"], "value": [True]},
                                           fix={"set": False})])
    assert [(f.line, f.status.value) for f in named] == [(4, "fixable")]
    assert find_yaml("c.yaml", src, [rule("any", match={"key": ["**.chdir"]}, fix={"remove": True})]) == []
    listed = b"hydra:\n  callbacks:\n    - name: cb\nmodel:\n  name: x\n"  # the node's lists are the node's too
    renamed = find_yaml("c.yaml", listed, [rule("name", match={"key": ["**.name"]}, fix={"rename": "title"})])
    assert [f.key for f in renamed] == ["model.name"]


def test_the_hydra_node_of_a_config_with_a_package_is_a_key_below_that_package(tmp_path: Path) -> None:
    """Hydra puts a packaged config's `hydra:` under its package (`foo.hydra.job.chdir`): not Hydra's own."""
    from bot.engine.scan import scan
    from tests.conftest import make_repo

    node = "hydra:\n  job:\n    chdir: false\n"
    repo = make_repo(tmp_path / "r", {"conf/config.yaml": "defaults:\n  - _self_\n" + node,
                                      "conf/extra/d.yaml": "# @package foo\n" + node,
                                      "conf/extra/g.yaml": "# @package _global_\n" + node})
    chdir = rule("chdir", match={"key": ["hydra.job.chdir"], "value": [False]}, fix={"set": True})
    assert sorted(f.path for f in scan(repo, [chdir]).findings) == ["conf/config.yaml", "conf/extra/g.yaml"]
    below = rule("below", match={"key": ["foo.hydra.job.chdir"]}, fix={"remove": True})
    assert [(f.path, f.line) for f in scan(repo, [below]).findings] == [("conf/extra/d.yaml", 4)]


def test_a_key_a_list_element_merges_in_is_shared_and_its_own_keys_are_settings() -> None:
    """Reading the list's value flattens its merge keys in place (ruamel): its mappings are walked first, so a
    merged key is still known as shared, and a key of the element's own is a setting of index path."""
    src = b"base: &b\n  patience: 4\nruns:\n  - <<: *b\n    every: 2\n  - patience: 1\n    every: 3\n"
    found = find_yaml("c.yaml", src, [rule("drop", match={"key": ["**.patience"]}, fix={"remove": True})])
    assert [(f.key, f.status.value) for f in found] == [
        ("base.patience", "manual"), ("runs.0.patience", "manual"), ("runs.1.patience", "manual")]
    assert all("shared through a YAML anchor" in f.message for f in found[:2])
    renamed = find_yaml("c.yaml", src, [rule("every", match={"key": ["runs.*.every"]}, fix={"rename": "period"})])
    assert [(f.line, f.status.value) for f in renamed] == [(5, "fixable"), (7, "fixable")]
