"""A schema the repository registers in Hydra's ConfigStore under a name it computes when it runs (a loop over a
registry its package fills at import): the option naming it composes with an empty, open stand-in node
(bot.hydra.stand_ins), so its own YAML keys make up the node; a key set at or under the stand-in is not judged,
a failure elsewhere stays a finding. Our own fixture; each verdict is set beside Hydra composing the same launches
with the fixture's own classes registered (in a child process, so this process's ConfigStore stays as it was)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_repo
from tests.stored_schemas import compose_check, hydra_by_hand

REGISTRY = '''\
import importlib

from hydra.core.config_store import ConfigStore

# filled at import, one schema per kind of kiln: which ones is known only when the package runs
_schemas = {}
for kind in ("brick", "clay"):
    _schemas[kind] = importlib.import_module(f"pottery.kinds.{kind}").Schema


def register():
    store = ConfigStore.instance()
    for kind, schema in _schemas.items():
        store.store(name=f"{kind}_kiln", group="kiln", node=schema)


register()
'''
BRICK = '''\
from dataclasses import dataclass


@dataclass
class Schema:
    heat: int = 900
    glaze: str = "clear"  # not in the option's YAML: the real schema has more keys than the stand-in
'''
APP = '''\
import hydra

import pottery.registry  # noqa: F401  (registers the kilns' schemas)


@hydra.main(config_path="conf", config_name="config", version_base=None)
def fire(cfg):
    print(cfg)


if __name__ == "__main__":
    fire()
'''
TREE = {
    "pottery/__init__.py": "",
    "pottery/kinds/__init__.py": "",
    "pottery/kinds/brick.py": BRICK,
    "pottery/kinds/clay.py": BRICK,
    "pottery/registry.py": REGISTRY,
    "pottery/fire.py": APP,
    "pottery/conf/config.yaml": "defaults:\n  - kiln: brick\n  - _self_\nbatch: 4\n",
    "pottery/conf/kiln/brick.yaml": "defaults:\n  - brick_kiln\n  - _self_\nheat: 1100\n",
}
LAUNCHES = [
    "kiln.heat=1200 batch=2",  # the option's own key: composes
    "kiln.glaze=matte",  # not in the YAML; the real schema has it: not judged
    "batches=3",  # no such key, outside the stand-in: a finding
]


def test_a_schema_registered_under_a_computed_name_composes_with_a_stand_in(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {**TREE, "run.sh": "".join(f"python pottery/fire.py {x}\n" for x in LAUNCHES)})
    found, err = compose_check(capsys, repo)
    assert found == [3]
    assert "run.sh:1: launch" not in err, err  # composed
    assert ("run.sh:2: launch not checked: kiln.glaze is set under the empty stand-in for kiln/brick_kiln, which the "
            "repository registers under a name it computes when it runs (pottery/registry.py:14): its schema is not "
            "read") in err
    assert "compose-check: 2 of 3 launches composed" in err
    assert ("composed with an empty, open node for kiln/brick_kiln (pottery/registry.py:14), which the repository "
            "registers under a name it computes when it runs: the schema's fields and types were not checked") in err
    # with the real schema, `kiln.glaze` composes: no finding was right
    assert hydra_by_hand(repo, "pottery.registry", repo / "pottery" / "conf", LAUNCHES) == [3]


def test_a_misspelt_entry_of_a_group_with_no_computed_name_stays_a_finding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree = {**TREE, "pottery/conf/kiln/brick.yaml": "defaults:\n  - /shelf/brick_kiln\n  - _self_\nheat: 1100\n"}
    repo = make_repo(tmp_path / "r", {**tree, "run.sh": "python pottery/fire.py kiln.heat=1200\n"})
    found, err = compose_check(capsys, repo)
    assert found == [1]  # group `shelf` is registered by no call: Hydra's "Could not load" stands
    assert "empty, open node" not in err


def test_the_config_store_is_left_as_it_was(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hydra.core.config_store import ConfigStore

    before = {key: dict(value) if isinstance(value, dict) else value
              for key, value in ConfigStore.instance().repo.items()}
    repo = make_repo(tmp_path / "r", {**TREE, "run.sh": "python pottery/fire.py kiln.heat=1\n"})
    assert compose_check(capsys, repo)[0] == []
    after = ConfigStore.instance().repo
    assert {key: dict(value) if isinstance(value, dict) else value for key, value in after.items()} == before
