"""Every edit composes: a launch that composed before the bot's edits composes after them (Hydra judges)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from bot.cache.reuse import CachedResults
from bot.cache.store import ResultCache, fingerprint
from bot.engine.scan import compose_scan, scan
from bot.model import Reason, Report, Status
from bot.rules.loader import parse_rule
from bot.rules.model import Rule
from tests.conftest import git, make_repo

APP = '''\
import hydra


@hydra.main(config_path="config", config_name="train", version_base=None)
def main(config):
    pass
'''
CONFIG = """\
policy:
  engine:
    tuning: {}
    layers: 2
reference:
  engine:
    tuning: ${oc.select:policy.engine.tuning,{}}
    layers: 2
"""
SCRIPT = """\
#!/bin/bash
python3 -m trainer.main \\
    policy.engine.layers=4 \\
    reference.engine.layers=4
"""


def _rule(ref_prefix: str) -> Rule:
    return parse_rule(yaml.safe_load(f"""
id: tuning-flag
title: Turn the tuning flag on
when: {{sets: ["policy.engine.**"]}}
ensure:
  - {{key: policy.engine.tuning.flag, value: true, prefix: "+"}}
  - {{key: reference.engine.tuning.flag, value: true, prefix: "{ref_prefix}"}}
"""), Path("tuning-flag.yaml"))


def _repo(tmp_path: Path, script: str = SCRIPT) -> Path:
    return make_repo(tmp_path / "repo", {"trainer/main.py": APP, "trainer/config/train.yaml": CONFIG,
                                         "run.sh": script})


def test_an_edit_that_would_break_a_composing_launch_is_not_made(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    assert compose_scan(root)[0].findings == []  # the launch composes as written
    report = scan(root, [_rule("+")])
    assert report.changes == []
    assert report.findings and all(f.status is Status.MANUAL and f.reason is Reason.UNCOMPOSED for f in report.findings)
    assert "would no longer compose" in report.findings[0].message
    assert "An item is already at 'reference.engine.tuning.flag'" in report.findings[0].message


def test_the_prefix_that_composes_is_written(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    report = scan(root, [_rule("++")])
    (change,) = report.changes
    assert b"++reference.engine.tuning.flag=True" in change.after
    (root / "run.sh").write_bytes(change.after)
    assert compose_scan(root)[0].findings == []  # and the edited launch still composes


def test_a_launch_that_did_not_compose_before_is_not_judged(tmp_path: Path) -> None:
    root = _repo(tmp_path, SCRIPT.replace("policy.engine.layers=4", "policy.engine.missing=4"))
    assert compose_scan(root)[0].findings  # Hydra rejects it as written
    report = scan(root, [_rule("+")])
    assert report.changes and all(f.status is Status.FIXABLE for f in report.findings)


def test_a_launch_whose_entry_point_moves_is_not_judged_by_what_it_composes_to(tmp_path: Path) -> None:
    # the app moved (trainer.old_main is gone): neither launch ran anything before, so the move is made in
    # both, though the second one's override is not in the config (compose-check reports that one)
    script = "#!/bin/bash\npython3 -m trainer.old_main policy.engine.layers=4\n" \
             "python3 -m trainer.old_main policy.engine.missing=4\n"
    root = _repo(tmp_path, script)
    moved = parse_rule(yaml.safe_load("""
id: trainer-moved
title: The trainer moved
when: {entrypoint: ["trainer.old_main"]}
fix: {entrypoint: {trainer.old_main: trainer.main}}
"""), Path("trainer-moved.yaml"))
    report = scan(root, [moved])
    assert [f.status for f in report.findings] == [Status.FIXABLE, Status.FIXABLE]
    (change,) = report.changes
    assert change.after.count(b"-m trainer.main ") == 2


def test_another_rules_fix_in_the_same_file_is_still_made(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    layers = parse_rule(yaml.safe_load("""
id: layers-eight
title: Eight layers
match: {key: ["policy.engine.layers"], value_not: [8]}
fix: {set: 8}
"""), Path("layers-eight.yaml"))
    report = scan(root, [_rule("+"), layers])
    status = {f.rule: f.status for f in report.findings}
    assert status == {"tuning-flag": Status.MANUAL, "layers-eight": Status.FIXABLE}  # not "a second run would ..."
    (change,) = [c for c in report.changes if c.path == "run.sh"]
    assert b"policy.engine.layers=8" in change.after and b"tuning" not in change.after


def test_a_second_scan_in_one_process_sees_the_app_as_it_is_now(tmp_path: Path) -> None:
    """What a scan learnt of the repository's files (the app's decorator, where its module is) is not
    kept for the next: a process that scans again after the files changed reports what a new one would."""
    root = _repo(tmp_path)

    def judged() -> list[bool]:
        return [f.reason is Reason.UNCOMPOSED for f in scan(root, [_rule("+")]).findings if f.path == "run.sh"]

    assert judged() == [True, True]  # Hydra refused the edits
    (root / "trainer" / "main.py").write_text("def main(config):\n    pass\n")  # no longer a Hydra app
    assert judged() == [False, False]
    (root / "trainer" / "main.py").unlink()  # no module at all
    assert judged() == [False, False]
    (root / "trainer" / "main.py").write_text(APP)
    assert judged() == [True, True]


def test_each_refused_fix_names_hydras_message_for_its_own_launch(tmp_path: Path) -> None:
    script = ("python3 -m trainer.main policy.engine.layers=4\n"
              "python3 -m trainer.main \\\n    reference.engine.layers=8\n")
    root = _repo(tmp_path, script)
    rule = parse_rule(yaml.safe_load("""
id: layers-renamed
title: layers became depth
files: ["*.sh"]
match: {key: ["**.engine.layers"]}
fix: {rename: depth}
"""), Path("layers-renamed.yaml"))  # the config keeps `layers`
    report = scan(root, [rule])
    by_line = {f.line: f.message for f in report.findings if f.path == "run.sh"}
    assert "(line 1: policy.engine.depth:" in by_line[1]
    assert "(line 2: reference.engine.depth:" in by_line[3]


RENAME = """
id: layers-renamed
title: layers became depth
match: {key: ["**.engine.layers"]}
fix: {rename: depth}
"""


def test_a_rename_composes_with_the_config_the_same_run_renames(tmp_path: Path) -> None:
    """The run renames the key in the app's config and in its launches: the edited launches run with the
    edited config, so Hydra judges them with it (not with the config as it was, which lacks `depth`)."""
    root = _repo(tmp_path)
    rule = parse_rule(yaml.safe_load(RENAME), Path("layers-renamed.yaml"))
    report = scan(root, [rule])
    assert {(f.path, f.status) for f in report.findings} == {("run.sh", Status.FIXABLE),
                                                             ("trainer/config/train.yaml", Status.FIXABLE)}
    for change in report.changes:
        (root / change.path).write_bytes(change.after)
    assert b"policy.engine.depth=4" in (root / "run.sh").read_bytes()
    assert compose_scan(root)[0].findings == []  # what was written composes
    assert not list(tmp_path.glob("**/bot-config-*"))  # the edited copy of the config is gone


def test_a_script_fixed_alone_is_judged_with_the_config_as_it_is(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    rule = parse_rule(yaml.safe_load(RENAME), Path("layers-renamed.yaml"))
    report = scan(root, [rule], paths={"run.sh"})  # the config is not edited by this run
    assert report.changes == []
    assert report.findings and all(f.reason is Reason.UNCOMPOSED for f in report.findings)


def test_a_config_edit_that_does_not_define_the_new_key_still_refuses(tmp_path: Path) -> None:
    """The run edits the config (another rule), but nothing there defines `depth`: the script's rename is
    refused, quoting Hydra with no trace of the edited copy the launch was composed with."""
    root = _repo(tmp_path)
    scripts_only = parse_rule(yaml.safe_load(RENAME.replace("title:", 'files: ["*.sh"]\ntitle:')),
                              Path("layers-renamed.yaml"))
    other = parse_rule(yaml.safe_load("""
id: reference-layers
title: reference layers are three
files: ["**/*.yaml"]
match: {key: ["reference.engine.layers"], value: [2]}
fix: {set: 3}
"""), Path("reference-layers.yaml"))
    report = scan(root, [scripts_only, other])
    refused = [f for f in report.findings if f.path == "run.sh"]
    assert refused and all(f.reason is Reason.UNCOMPOSED for f in refused)
    assert all("bot-config-" not in f.message and "policy.engine.depth" in f.message for f in refused)
    assert [c.path for c in report.changes] == ["trainer/config/train.yaml"]


def test_a_warm_run_judges_as_a_cold_one_when_the_config_changes(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    rule = parse_rule(yaml.safe_load(RENAME), Path("layers-renamed.yaml"))

    def warm() -> list[tuple[str, str]]:
        cache = ResultCache(tmp_path / "cache", root, fingerprint([rule]))
        return _statuses(scan(root, [rule], memo=CachedResults(cache, reuse_changes=True)))

    def cold() -> list[tuple[str, str]]:
        return _statuses(scan(root, [rule]))

    assert warm() == warm() == cold() == [("run.sh", "fixable"), ("run.sh", "fixable"),
                                          ("trainer/config/train.yaml", "fixable"),
                                          ("trainer/config/train.yaml", "fixable")]
    # the maintainers keep the config's `layers` (a comment silences its rename): the run no longer edits
    # the config, so the script's renames no longer compose, and a cached judgement must not say they do
    (root / "trainer/config/train.yaml").write_text(
        "# followup-bot: ignore[layers-renamed]\n" + CONFIG.replace("layers: 2", "layers: 2  # followup-bot: ignore"))
    git(root, "commit", "-qam", "keep layers")
    assert warm() == cold() == [("run.sh", "uncomposed"), ("run.sh", "uncomposed")]


def _statuses(report: Report) -> list[tuple[str, str]]:
    return sorted((f.path, f.reason.value if f.reason else f.status.value) for f in report.findings)


def test_a_second_scan_in_one_process_composes_the_config_as_it_is_now(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    scripts_only = parse_rule(yaml.safe_load(RENAME.replace("title:", 'files: ["*.sh"]\ntitle:')),
                              Path("layers-renamed.yaml"))
    assert _statuses(scan(root, [scripts_only])) == [("run.sh", "uncomposed"), ("run.sh", "uncomposed")]
    (root / "trainer/config/train.yaml").write_text(CONFIG.replace("    layers: 2\n", "    layers: 2\n    depth: 2\n"))
    assert _statuses(scan(root, [scripts_only])) == [("run.sh", "fixable"), ("run.sh", "fixable")]


def test_an_edit_in_a_doc_is_judged_as_in_a_script(tmp_path: Path) -> None:
    doc = "# Run\n\n```bash\n" + SCRIPT.split("\n", 1)[1] + "```\n"
    root = make_repo(tmp_path / "repo", {"trainer/main.py": APP, "trainer/config/train.yaml": CONFIG,
                                         "README.md": doc, "notebook.ipynb": _notebook(SCRIPT.split("\n", 1)[1])})
    docs_only = parse_rule(yaml.safe_load(RENAME.replace("title:", 'files: ["*.md", "*.ipynb"]\ntitle:')),
                           Path("layers-renamed.yaml"))
    report = scan(root, [docs_only])
    assert _statuses(report) == [("README.md", "uncomposed"), ("README.md", "uncomposed"),
                                 ("notebook.ipynb", "uncomposed"), ("notebook.ipynb", "uncomposed")]
    assert "(line 4: policy.engine.depth:" in report.findings[0].message  # the doc's line of the launch
    assert report.changes == []
    # with the config renamed by the same run, both compose
    both = parse_rule(yaml.safe_load(RENAME), Path("layers-renamed.yaml"))
    assert {c.path for c in scan(root, [both]).changes} == {"README.md", "notebook.ipynb", "trainer/config/train.yaml"}


def _notebook(source: str) -> str:
    import json

    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": ["!" + line for line in source.splitlines(keepends=True)]}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def test_a_rule_is_judged_with_its_own_config_edits_not_another_rules(tmp_path: Path) -> None:
    """The rename edits the config; the tuning rule does not. Judged alone with the renamed config, the
    tuning rule's fix would fail on the launch's old `layers` (which only the rename fixes): it is judged
    with the config its own edits leave (none), and every fix together with every config edit."""
    root = _repo(tmp_path)
    rename = parse_rule(yaml.safe_load(RENAME), Path("layers-renamed.yaml"))
    report = scan(root, [rename, _rule("++")])
    assert {(f.rule, f.path, f.status.value) for f in report.findings} == {
        ("layers-renamed", "run.sh", "fixable"), ("layers-renamed", "trainer/config/train.yaml", "fixable"),
        ("tuning-flag", "run.sh", "fixable")}
    for change in report.changes:
        (root / change.path).write_bytes(change.after)
    assert b"++reference.engine.tuning.flag=True" in (root / "run.sh").read_bytes()
    assert compose_scan(root)[0].findings == []


def test_a_config_edit_the_baseline_holds_back_judges_nothing(tmp_path: Path) -> None:
    """The baseline silences the config's rename: the run does not write it, so the launches run with
    the config as it is and their rename stays refused."""
    from bot.engine.silence import read_baseline

    root = _repo(tmp_path)
    rule = parse_rule(yaml.safe_load(RENAME), Path("layers-renamed.yaml"))
    held = tmp_path / "baseline.json"
    held.write_text(json.dumps({"version": 1, "tool": "followup-bot", "findings": [
        {"rule": "layers-renamed", "path": "trainer/config/train.yaml", "key": "policy.engine.layers", "value": "2"},
        {"rule": "layers-renamed", "path": "trainer/config/train.yaml", "key": "reference.engine.layers",
         "value": "2"}]}))
    report = scan(root, [rule], baseline=read_baseline(held))
    assert _statuses(report) == [("run.sh", "uncomposed"), ("run.sh", "uncomposed")]
    assert report.changes == []


def test_a_cached_judgement_is_not_used_by_a_run_that_leaves_the_config_as_it_is(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    rule = parse_rule(yaml.safe_load(RENAME), Path("layers-renamed.yaml"))

    def warm(paths: set[str] | None = None) -> list[tuple[str, str]]:
        cache = ResultCache(tmp_path / "cache", root, fingerprint([rule]))
        return _statuses(scan(root, [rule], paths=paths, memo=CachedResults(cache, reuse_changes=True)))

    assert [s for p, s in warm() if p == "run.sh"] == ["fixable", "fixable"]  # with the config's rename
    assert warm({"run.sh"}) == [("run.sh", "uncomposed"), ("run.sh", "uncomposed")]  # the script alone
    assert warm() == _statuses(scan(root, [rule]))


def test_a_config_group_linked_inside_the_repository_is_composed_in_the_edited_copy(tmp_path: Path) -> None:
    config = "defaults:\n  - engine@policy.engine: small\n  - _self_\nreference:\n  engine:\n    layers: 2\n"
    root = make_repo(tmp_path / "repo", {"trainer/main.py": APP, "trainer/config/train.yaml": config,
                                         "shared/engine/small.yaml": "tuning: {}\nlayers: 2\n",
                                         "run.sh": SCRIPT})
    (root / "trainer/config/engine").symlink_to("../../shared/engine")
    rename = parse_rule(yaml.safe_load(RENAME.replace('["**.engine.layers"]', '["reference.engine.layers"]')),
                        Path("layers-renamed.yaml"))
    report = scan(root, [rename, _rule("++")])
    assert {(f.rule, f.path, f.status.value) for f in report.findings if f.path == "run.sh"} == {
        ("layers-renamed", "run.sh", "fixable"), ("tuning-flag", "run.sh", "fixable")}


def test_prefix_auto_adds_with_plus_plus_where_the_caller_may_choose_a_group_that_has_the_key(tmp_path: Path) -> None:
    script = "#!/bin/bash\npython3 -m trainer.main \"$@\" policy.engine.layers=4\n" \
             "python3 -m trainer.main policy.engine.layers=4\n"
    root = _repo(tmp_path, script)
    auto = parse_rule(yaml.safe_load("""
id: seed-set
title: The seed is set
when: {sets: ["policy.engine.**"]}
ensure:
  - {key: policy.seed, value: 1, prefix: auto}
  - {key: policy.engine.layers, value: 4, prefix: auto}
"""), Path("seed-set.yaml"))
    (change,) = scan(root, [auto]).changes
    lines = change.after.decode().splitlines()
    assert "++policy.seed=1" in lines[1] and " +policy.seed=1" in lines[2]  # the config lacks it
