"""Structured configs a repository stores in Hydra's ConfigStore, read statically (bot.hydra.store_calls,
bot.hydra.dataclass_spec) and put in the store while its launches compose; our own fixtures. Each verdict is
checked against Hydra itself composing the same launches with the fixture's own classes imported (in a
child process, so this process's ConfigStore stays as it was)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_repo
from tests.stored_schemas import compose_check, hydra_by_hand

SCHEMAS = '''\
from dataclasses import dataclass, field
from enum import Enum
from typing import Dict, List, Optional

from omegaconf import MISSING

DEFAULT_FUEL = "coal"


@dataclass
class Common:
    seed: int = 0


@dataclass
class Cooling:
    rate: float = 0.5
    stages: List[int] = field(default_factory=lambda: [1, 2])


@dataclass
class FurnaceSchema(Common):
    temperature: int = MISSING
    fuel: str = DEFAULT_FUEL
    label: Optional[str] = None
    cooling: Cooling = field(default_factory=Cooling)
    weights: Dict[str, float] = field(default_factory=dict)


class Metal(Enum):
    IRON = "iron"
    COPPER = "copper"
'''
REGISTER = '''\
from hydra.core.config_store import ConfigStore

from forge.schemas import FurnaceSchema, Metal


def register():
    cs = ConfigStore.instance()
    cs.store(group="furnace", name="furnace_schema", node=FurnaceSchema)
    for metal in Metal:
        cs.store(group="metal", name=f"{metal.value}_schema", node={"melting": 0, "symbol": metal.name.lower()})
    for size in ["small", "large"]:
        cs.store(group="mould", name=f"{size}_mould", node=dict(depth=1))


register()
'''
APP = '''\
import hydra

import forge.register  # noqa: F401  (stores the schemas)


@hydra.main(config_path="conf", config_name="config", version_base=None)
def run(cfg):
    print(cfg)


if __name__ == "__main__":
    run()
'''
TREE = {
    "forge/__init__.py": "",
    "forge/schemas.py": SCHEMAS,
    "forge/register.py": REGISTER,
    "forge/app.py": APP,
    "forge/conf/config.yaml": "defaults:\n  - furnace: big\n  - metal: iron\n  - _self_\nbatch: 1\n",
    "forge/conf/furnace/big.yaml": "defaults:\n  - furnace_schema\n  - _self_\ntemperature: 1200\n",
    "forge/conf/metal/iron.yaml": "defaults:\n  - iron_schema\n  - _self_\nmelting: 1538\n",
    "forge/conf/metal/copper.yaml": "defaults:\n  - copper_schema\n  - _self_\nmelting: 1085\n",
}
LAUNCHES = [
    "furnace.seed=3 furnace.cooling.rate=0.7 furnace.label=x metal.symbol=fe",  # inherited, nested, Optional
    "furnace.temp=1",  # no such key in the schema: struct mode refuses it
    "furnace.temperature=hot",  # an int field
    "furnace.cooling.stages=[1,x]",  # a List[int] field
    "metal=copper metal.melting=1000 furnace.fuel=wood",
    "metal.density=8",  # not in the stored dict
    "furnace.cooling.rate=fast",  # a float field of a nested schema
]


def test_a_stored_dataclass_composes_with_its_keys_and_types(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    script = "".join(f"python forge/app.py {launch}\n" for launch in LAUNCHES)
    repo = make_repo(tmp_path / "r", {**TREE, "run.sh": script})
    found, err = compose_check(capsys, repo)
    assert "not checked" not in err, err
    assert found == [2, 3, 4, 6, 7]
    # as Hydra decides with the repository's own classes
    assert found == hydra_by_hand(repo, "forge.register", repo / "forge" / "conf", LAUNCHES)


def test_the_config_store_is_left_as_it_was(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hydra.core.config_store import ConfigStore

    before = {key: dict(value) if isinstance(value, dict) else value
              for key, value in ConfigStore.instance().repo.items()}
    repo = make_repo(tmp_path / "r", {**TREE, "run.sh": "python forge/app.py furnace.temp=1\n"})
    assert compose_check(capsys, repo)[0] == [1]
    after = ConfigStore.instance().repo
    assert {key: dict(value) if isinstance(value, dict) else value for key, value in after.items()} == before


IMPORTS = "from forge.schemas import FurnaceSchema, Metal"
UNREAD = REGISTER.replace(IMPORTS, "from elsewhere import OutsideSchema\n" + IMPORTS).replace(
    'node=FurnaceSchema)', 'node=OutsideSchema)\n    for name in pick_names():\n'
                           '        cs.store(group="furnace", name=name, node=FurnaceSchema)')


def test_a_store_not_read_leaves_its_launches_not_checked(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {**TREE, "forge/register.py": UNREAD,
                                      "run.sh": "python forge/app.py furnace.temp=1\n"})
    found, err = compose_check(capsys, repo)
    assert found == []
    assert ("run.sh:1: launch not checked: its config names furnace/furnace_schema, which the repository registers "
            "in Hydra's ConfigStore when it runs (forge/register.py:9: its node OutsideSchema is not a class of the "
            "repository)") in err


def test_a_schema_typed_with_another_packages_class_is_not_read(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    schemas = SCHEMAS.replace("    cooling: Cooling = field(default_factory=Cooling)\n",
                              "    cooling: Cooling = field(default_factory=Cooling)\n    tool: Tongs = MISSING\n")
    repo = make_repo(tmp_path / "r", {**TREE, "forge/schemas.py": "from smithy import Tongs\n" + schemas,
                                      "run.sh": "python forge/app.py furnace.tool.grip=2\n"})
    found, err = compose_check(capsys, repo)
    assert found == []  # Tongs may be a dataclass with `grip`: not a finding
    assert "the type Tongs is not a class of the repository" in err
