"""Do no harm, composing: nothing the repository controls is trusted.

Hydra reads only the repository's own config files (a link out of the repository is absent, and no byte
behind it reaches a report), and a config Hydra cannot compose (a defaults cycle, a chain thousands of
configs deep, a tree that doubles at every level, an option that is not YAML) is one error entry that names
the file, while every other launch and every rule is still checked.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
import yaml

from bot.cli import main
from bot.engine.scan import compose_scan, scan
from bot.model import Status
from bot.rules.loader import parse_rule
from tests.conftest import git, make_repo

SECRET = "s3cr3t-from-outside-the-repository"
APP = '''\
import hydra


@hydra.main(config_path="conf", config_name="train", version_base=None)
def main(cfg):
    pass
'''
TRAIN = "defaults:\n  - model: small\n  - _self_\ntrainer:\n  epochs: 1\n"
SMALL = "token: own\nlayers: 2\n"


def _outside(tmp_path: Path) -> Path:
    """A directory beside the repository holding what no report may ever show."""
    outside = tmp_path / "outside"
    (outside / "models").mkdir(parents=True)
    (outside / "key.yaml").write_text(f"token: {SECRET}\n")
    (outside / "models" / "key.yaml").write_text(f"token: {SECRET}\n")
    (outside / "train.yaml").write_text(f"defaults:\n  - model: small\n  - _self_\ntoken: {SECRET}\n")
    return outside


def _repo(tmp_path: Path, script: str, extra: dict[str, str] | None = None) -> Path:
    files = {"train.py": APP, "conf/train.yaml": TRAIN, "conf/model/small.yaml": SMALL, "run.sh": script}
    return make_repo(tmp_path / "repo", {**files, **(extra or {})})


def _commit(root: Path) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "links")


def _outputs(capsys: pytest.CaptureFixture[str], root: Path) -> str:
    """Everything compose-check says, in text and in JSON, on stdout and stderr."""
    said = []
    for form in ("text", "json"):
        main(["compose-check", "--repo", str(root), "--format", form])
        out, err = capsys.readouterr()
        said += [out, err]
    return "\n".join(said)


# (where the link is, what it points at, how the launch chooses what is behind it)
LINKS = {
    "absolute file": ("conf/model/key.yaml", "{outside}/key.yaml", "model=key ~model.token=guess"),
    "relative ../../outside": ("conf/model/key.yaml", "../../../outside/key.yaml", "model=key ~model.token=guess"),
    "directory outside": ("conf/models", "{outside}/models", "+models=key ~models.token=guess"),
}


@pytest.mark.parametrize("case", sorted(LINKS))
def test_a_config_linked_out_of_the_repository_is_absent_and_never_quoted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    outside = _outside(tmp_path)
    where, target, overrides = LINKS[case]
    root = _repo(tmp_path, f"python train.py {overrides}\npython train.py trainer.nope=1\n")
    (root / where).symlink_to(target.format(outside=outside))
    _commit(root)
    said = _outputs(capsys, root)
    assert SECRET not in said
    report, stats = compose_scan(root)
    assert [(f.line, f.key) for f in report.findings] == [(2, "trainer.nope")]  # the other launch is checked
    ((_, line, why),) = stats.unresolved
    assert line == 1 and "symlink to outside the repository: not followed" in why


def test_a_config_dir_linked_out_of_the_repository_is_not_composed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outside = _outside(tmp_path)
    app = APP.replace('config_path="conf"', 'config_path="linked"')
    root = _repo(tmp_path, "python other.py ~token=guess\n", {"other.py": app})
    (root / "linked").symlink_to(outside)
    _commit(root)
    assert SECRET not in _outputs(capsys, root)
    _, stats = compose_scan(root)
    assert stats.unresolved == [("run.sh", 1, "config directory linked of other.py is a symlink to outside the "
                                              "repository: not followed")]


def test_a_search_path_linked_out_of_the_repository_is_not_composed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outside = _outside(tmp_path)
    train = "hydra:\n  searchpath:\n    - file://extra\n" + TRAIN
    root = _repo(tmp_path, "python train.py +models=key ~models.token=guess\n", {"conf/train.yaml": train})
    (root / "extra").symlink_to(outside)
    _commit(root)
    assert SECRET not in _outputs(capsys, root)
    _, stats = compose_scan(root)
    assert stats.unresolved == [("run.sh", 1, "config search path file://extra is a symlink to outside the "
                                              "repository: not followed")]


def test_a_config_name_that_climbs_out_of_the_repository_names_nothing(tmp_path: Path) -> None:
    _outside(tmp_path)
    root = _repo(tmp_path, "python train.py --config-name=../../outside/train ~token=guess\n")
    report, stats = compose_scan(root)
    assert report.findings == []
    assert stats.unresolved == [("run.sh", 1, "its config reads ../outside/train.yaml, outside the repository: "
                                              "not followed")]


def test_a_link_that_stays_inside_the_repository_is_read_as_what_it_points_at(tmp_path: Path) -> None:
    """As Hydra reads it, and as the compose judge's copies do (bot.hydra.shadow): no byte leaves the repository.
    (discover lists such a link's target under its own name; here the link is where Hydra finds a config.)"""
    app = APP.replace('config_path="conf"', 'config_path="same_conf"')
    root = _repo(tmp_path, "python train.py model=shared ~model.token=guess\npython train.py +group=small\n"
                           "python other.py trainer.nope=1\n", {"shared/model.yaml": "token: kept\n", "other.py": app})
    (root / "conf/model/shared.yaml").symlink_to("../../shared/model.yaml")
    (root / "conf/group").symlink_to("model")
    (root / "same_conf").symlink_to("conf")
    _commit(root)
    report, stats = compose_scan(root)
    assert stats.unresolved == []
    assert [(f.line, f.key) for f in report.findings] == [(1, "model.token"), (3, "trainer.nope")]
    assert "The value of 'model.token' is kept and not guess" in report.findings[0].message


def test_the_judges_config_copy_holds_the_repositorys_own_files_with_their_edits(tmp_path: Path) -> None:
    from bot.hydra.app import HydraApp
    from bot.hydra.shadow import ConfigShadow

    outside = _outside(tmp_path)
    root = _repo(tmp_path, "true\n", {"shared/model.yaml": "token: kept\n"})
    (root / "conf/model/shared.yaml").symlink_to("../../shared/model.yaml")
    (root / "conf/model/key.yaml").symlink_to(outside / "key.yaml")
    (root / "conf/models").symlink_to(outside / "models")
    real = root.resolve()
    shadow = ConfigShadow(root, {"shared/model.yaml": b"token: edited\n"})
    try:
        app = shadow.app(HydraApp("train.py", real / "conf", "train", root=real))
        assert app.config_dir is not None and app.root is not None
        copied = sorted(p.relative_to(app.config_dir).as_posix() for p in app.config_dir.rglob("*") if p.is_file())
        assert copied == ["model/shared.yaml", "model/small.yaml", "train.yaml"]
        assert (app.config_dir / "model/shared.yaml").read_text() == "token: edited\n"
        assert not any(p.is_symlink() for p in app.config_dir.rglob("*"))
    finally:
        shadow.close()


def test_the_packages_of_the_yaml_front_end_read_nothing_behind_a_link_out(tmp_path: Path) -> None:
    """Where Hydra puts a config's keys (bot.lang.yaml.packages) comes from the repository's own files."""
    from bot.lang.yaml.packages import yaml_packages

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "base.yaml").write_text(f"defaults:\n  - /model@{SECRET}: small\n")
    root = _repo(tmp_path, "true\n", {"conf/train.yaml": "defaults:\n  - ext/base\n  - _self_\n"})
    (root / "conf/ext").symlink_to(outside)
    read: set[str] = set()
    packages = yaml_packages(root, ["conf/train.yaml", "conf/model/small.yaml"], read)
    assert SECRET not in json.dumps(packages)


def test_a_gitmodules_linked_out_of_the_repository_is_not_read(tmp_path: Path) -> None:
    from bot.engine.context import scan_context
    from bot.hydra.entry import missing_reason
    from bot.lang.shell.parse import analyse

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "modules").write_text('[submodule "x"]\n\tpath = leaked_name\n')
    root = _repo(tmp_path, "python -m leaked_name.train\n")
    (root / ".gitmodules").symlink_to(outside / "modules")
    (launch,) = analyse((root / "run.sh").read_bytes(), path="run.sh").launches
    assert missing_reason(scan_context(root), launch) == "module leaked_name.train is not in the repository"


def test_drift_exports_a_commit_with_links_out_of_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--since`: the exported commit's links out of the tree are left out, not a crash of the whole run."""
    outside = _outside(tmp_path)
    root = _repo(tmp_path, "python train.py model=key ~model.token=guess\npython train.py trainer.nope=1\n")
    (root / "conf/model/key.yaml").symlink_to(outside / "key.yaml")
    _commit(root)
    before = git(root, "rev-parse", "HEAD").strip()
    (root / "conf/train.yaml").write_text(TRAIN.replace("epochs: 1", "epochs: 2"))
    _commit(root)
    code = main(["compose-check", "--repo", str(root), "--since", before, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0 and SECRET not in out + err
    assert json.loads(out)["errors"] == []


# -- a broken config is one error entry; the rest is checked ------------------------------------------------

def _chain(depth: int) -> dict[str, str]:
    files = {f"conf/chain/c{i}.yaml": f"defaults:\n  - c{i + 1}\n" for i in range(depth - 1)}
    files[f"conf/chain/c{depth - 1}.yaml"] = "x: 1\n"
    files["conf/deep.yaml"] = "defaults:\n  - chain/c0\n  - _self_\ntrainer:\n  epochs: 1\n"
    return files


def _doubling(levels: int) -> dict[str, str]:
    """Each config names both configs of the next level: Hydra's tree has 2^levels nodes."""
    files = {}
    for i in range(levels):
        below = f"defaults:\n  - d{i + 1}a\n  - d{i + 1}b\n  - _self_\n" if i < levels - 1 else ""
        for side in "ab":
            files[f"conf/experiment/d{i}{side}.yaml"] = below + f"v{i}{side}: 1\n"
    return files


BROKEN = {
    "conf/model/broken.yaml": "layers: [1, 2\ntoken: : :\n",
    "conf/loop_a.yaml": "defaults:\n  - loop_b\n  - _self_\ntrainer:\n  epochs: 1\n",
    "conf/loop_b.yaml": "defaults:\n  - loop_a\n",
    **_chain(10_000),
    **_doubling(40),
    "other/app.py": APP, "other/conf/train.yaml": "trainer:\n  epochs: 1\n",
}
BROKEN_SCRIPT = """\
python train.py model=broken trainer.epochs=3
python train.py --config-name=loop_a trainer.epochs=3
python train.py --config-name=deep trainer.epochs=3
python train.py +experiment=d0a trainer.epochs=3
python train.py model=broken trainer.epochs=3
python train.py trainer.nope=1
python other/app.py trainer.epochs=4 trainer.nope=2
"""


def test_a_broken_config_is_one_error_entry_and_the_rest_is_composed(tmp_path: Path) -> None:
    root = _repo(tmp_path, BROKEN_SCRIPT, BROKEN)
    started = time.process_time()
    report, stats = compose_scan(root, seconds=None)
    assert time.process_time() - started < 30  # bounded: Hydra is never handed the doubling tree
    errors = {e.path: e.reason for e in report.errors}
    assert set(errors) == {"conf/model/broken.yaml", "conf/loop_b.yaml", "conf/deep.yaml",
                           "conf/experiment/d0a.yaml"}
    assert errors["conf/model/broken.yaml"].startswith("does not parse as YAML: while parsing a flow sequence")
    assert "(loop_a -> loop_b -> loop_a)" in errors["conf/loop_b.yaml"]
    assert "nest more than 64 levels deep" in errors["conf/deep.yaml"]
    assert "expand to more than 5000 configs" in errors["conf/experiment/d0a.yaml"]
    assert all("\n" not in reason for reason in errors.values())
    assert [(f.path, f.line, f.key) for f in report.findings] == [("run.sh", 6, "trainer.nope"),
                                                                  ("run.sh", 7, "trainer.nope")]
    assert [(line, why.split(" does not compose")[0]) for _, line, why in stats.unresolved] == [
        (1, "its config conf/model/broken.yaml"), (2, "its config conf/loop_b.yaml"),
        (3, "its config conf/deep.yaml"), (4, "its config conf/experiment/d0a.yaml"),
        (5, "its config conf/model/broken.yaml")]


def test_bot_run_keeps_every_rule_finding_of_a_script_whose_config_is_broken(tmp_path: Path) -> None:
    """The compose judge does not judge a launch whose config does not compose: the rules' fixes stand."""
    root = _repo(tmp_path, BROKEN_SCRIPT, BROKEN)
    rule = parse_rule(yaml.safe_load("""
id: drop-epochs
title: The trainer's epoch limit was removed
match: {key: trainer.epochs}
fix: {remove: true}
"""), Path("drop-epochs.yaml"))
    report = scan(root, [rule], paths={"run.sh"})
    assert report.errors == []
    assert [(f.line, f.status) for f in report.findings] == [(line, Status.FIXABLE) for line in (1, 2, 3, 4, 5, 7)]


def test_a_config_behind_a_link_out_does_not_stop_the_judge(tmp_path: Path) -> None:
    """Hydra never opens it: not even its YAML error (which quoted the outside path) reaches the report."""
    outside = _outside(tmp_path)
    (outside / "key.yaml").write_text(f"token: [{SECRET}\nx: : :\n")
    root = _repo(tmp_path, "python train.py model=key trainer.epochs=3\n")
    (root / "conf/model/key.yaml").symlink_to(outside / "key.yaml")
    _commit(root)
    rule = parse_rule(yaml.safe_load("id: drop-epochs\ntitle: t\nmatch: {key: trainer.epochs}\nfix: {remove: true}\n"),
                      Path("drop-epochs.yaml"))
    report = scan(root, [rule], paths={"run.sh"})
    assert report.errors == [] and [f.status for f in report.findings] == [Status.FIXABLE]
    assert str(outside) not in json.dumps([f.message for f in report.findings])


def test_reads_through_the_tree_refuse_a_name_swapped_for_a_link(tmp_path: Path) -> None:
    """bot.confined opens the resolved path one name at a time without following a link."""
    from bot import confined

    root = tmp_path / "repo"
    (root / "conf").mkdir(parents=True)
    (root / "conf" / "a.yaml").write_text("a: 1\n")
    (tmp_path / "secret.yaml").write_text(SECRET)
    real = confined.real(root)
    assert confined.read(real, "conf/a.yaml") == b"a: 1\n"
    os.rename(root / "conf", root / "gone")
    os.symlink(tmp_path, root / "conf")
    assert confined.read(real, "conf/secret.yaml") is None
    assert not confined.is_file(real, "conf/secret.yaml")
    os.mkfifo(root / "gone" / "fifo.yaml")
    assert confined.read(real, "gone/fifo.yaml") is None
