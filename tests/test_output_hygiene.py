"""What the bot prints names nothing of the machine it ran on and none of its own stand-ins: no absolute
path of the repository (whatever the working directory; only where the user named the repository so, as
the report's `repo`), no stand-in name a doc's `<placeholder>` was read as, in every format of every
command."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import make_repo

BOT = str(Path(sys.executable).parent / "bot")
FORMATS = ("text", "markdown", "json", "sarif", "diff", "github")
DOC = """\
# Running the trainer

Point it at your config directory and pick a test:

```bash
python3 -m verl.trainer.main_ppo --config-path <config_dir> actor_rollout_ref.actor.megatron.use_mbridge=False
python3 tests/run_<test>.py critic.megatron.use_mbridge=False
python3 app/train.py trainer.epochs=2 trainer.no_such_key=1
```
"""
APP = """\
import hydra


@hydra.main(config_path="conf", config_name="train", version_base=None)
def main(cfg):
    print(cfg)


if __name__ == "__main__":
    main()
"""
STAND_IN = re.compile(r"\$\{?(DOC_\d|D\d)")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_repo(tmp_path_factory.mktemp("hygiene") / "a-repository", {
        "README.md": DOC, "app/train.py": APP, "app/conf/train.yaml": "trainer:\n  epochs: 1\n",
        "run.sh": "python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False\n"
                  "python3 app/train.py --config-name no_such_config trainer.epochs=3\n"})


def outputs(repo: Path) -> dict[str, str]:
    found = {}
    for cwd, name in ((repo, "."), (repo.parent, repo.name), (Path("/"), str(repo))):
        for fmt in FORMATS:
            for command in (["run", "--repo", name, "--dry-run"], ["compose-check", "--repo", name]):
                result = subprocess.run([BOT, *command, "--format", fmt], cwd=cwd, capture_output=True, text=True,
                                        check=False)
                found[f"{' '.join(command)} {fmt} (in {cwd})"] = result.stdout
                found[f"{' '.join(command)} {fmt} (in {cwd}), stderr"] = result.stderr
        for fmt in ("text", "json"):
            result = subprocess.run([BOT, "launches", "--repo", name, "--format", fmt], cwd=cwd,
                                    capture_output=True, text=True, check=False)
            found[f"launches {fmt} (in {cwd})"] = result.stdout
    return found


def test_no_absolute_path_and_no_stand_in_name_in_any_report(repo: Path) -> None:
    for what, text in outputs(repo).items():
        assert text or " diff " in what or "stderr" in what, what
        # the repository as it was named (`repo`): here, where the user named it by its absolute path
        text = text.replace(f'"repo": "{repo}"', "").replace(f"`{repo}` at", "")
        assert str(repo) not in text and "file:///" not in text, what
        assert not STAND_IN.search(text), f"{what}: {STAND_IN.search(text)}"
    launches = subprocess.run([BOT, "launches", "--repo", str(repo)], capture_output=True, text=True,
                              check=True).stdout
    assert "tests/run_<test>.py" in launches


def test_each_compose_finding_is_labelled_with_its_files_kind(repo: Path) -> None:
    import json

    out = subprocess.run([BOT, "compose-check", "--repo", str(repo), "--format", "json"], capture_output=True,
                         text=True, check=False).stdout
    kinds = {(f["path"], f["kind"]) for f in json.loads(out)["findings"]}
    assert kinds == {("README.md", "markdown"), ("run.sh", "shell")}
