"""The compose index (bot.hydra.compose_index): what it says of a launch's overrides, held against Hydra.

Each case is a small config tree of our own composed by real Hydra: the index's verdict on an override list
read off the composed base is compared with what `hydra.compose` does with the same list (it composes or
raises). PASS must compose, FAIL must raise; UNSURE is what the index must answer where it cannot be certain
(the composer then applies the list as before). The composer's counters show what the index saves: a base
composed once, no copy for a list it passes, each config file's YAML parsed once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.hydra.applied import Applied, ComposerCounts
from bot.hydra.compose_index import FAIL, PASS, UNSURE, verdict
from tests.conftest import make_repo

MAIN = """\
defaults:
  - db: mysql
  - _self_
trainer:
  epochs: 3
  logger: [console]
  name: run
  nothing: null
  ref: ${trainer.epochs}
  must: ???
  nested:
    deep: 1
  rows:
    - a: 1
model:
  path: /models/m
"""
CONF = {"main.yaml": MAIN, "db/mysql.yaml": "host: localhost\nport: 3306\n", "db/pg.yaml": "host: pg\n"}


@pytest.fixture(scope="module")
def conf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("index")
    for rel, text in CONF.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.fixture(scope="module")
def hydra_at(conf: Path) -> Iterator[Any]:
    """hydra.compose on the tree (Hydra initialised for the module's tests, put back after)."""
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(conf), version_base=None):
        yield lambda overrides: compose("main", overrides=overrides)


def parsed(texts: list[str]) -> list[Any]:
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parser = OverridesParser.create()
    return [parser.parse_overrides([text])[0] for text in texts]


def hydra_composes(hydra_at: Any, texts: list[str]) -> bool:
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    try:
        hydra_at(texts)
    except (HydraException, OmegaConfBaseException):
        return False
    return True


COMPOSE = [  # the index must say PASS and Hydra compose
    ["trainer.epochs=5"], ["trainer.name=other"], ["trainer.nothing=3"], ["trainer.nothing=null"],
    ["trainer.logger=[console,wandb]"], ["trainer.logger=console"], ["trainer.name=[a,b]"],
    ["trainer.nested=5"], ["trainer.ref=4"], ["trainer.must=4"], ["db.port=1"],
    ["+trainer.brand_new=1"], ["+extra.deep.key=x"], ["+trainer.nothing=1"], ["+trainer.logger=[a]"],
    ["+trainer.fresh={a:1,b:x}"], ["++trainer.epochs=2"], ["++trainer.fresh=2"], ["++brand.new.key=[1,2]"],
    ["~trainer.name"], ["~trainer.nested"], ["~model"], ["trainer.epochs=1", "trainer.epochs=2"],
    ["trainer.epochs=1", "model.path=x", "+trainer.other=3", "~trainer.name"],
    ["+extra.a=1", "++extra.b=2", "+extra.c.d=3"],  # each adds its key, whichever adds the mapping
    # `++` through a value on the way puts a mapping in its place: an interpolation, `???`, null, a plain value
    ["++trainer.ref.x=1"], ["++trainer.must.x.y=[1,2]"], ["++trainer.nothing.x=a"], ["++trainer.epochs.x=1"],
    ["++trainer.ref.x=1", "++trainer.ref.y=2"],
]
RAISE = [  # the index must say FAIL and Hydra raise
    ["trainer.nonexistent=1"], ["nothere.x=1"], ["trainer.nested.absent.deeper=1"], ["+trainer.epochs=3"],
    ["+trainer.name=x"], ["~trainer.absent"], ["~trainer.nothing"], ["~nothere.x"],
    ["trainer.epochs=2", "trainer.absent=1"], ["extra.b=2", "+extra.a=1"],
]
UNCERTAIN = [  # the index must leave these to Hydra (whatever Hydra says of them)
    ["trainer.epochs=${model.path}"], ["trainer.name=???"], ["+trainer.ref=1"], ["~trainer.ref"],
    ["+trainer.must=1"], ["~trainer.epochs=3"], ["trainer.nested={a:1}"], ["trainer.nested.deep=1", "~trainer.nested"],
    ["+trainer.a=1", "trainer.a.b=2"], ["trainer.rows.0.a=2"], ["trainer.logger.0=x"], ["trainer.epochs=range(3)"],
    ["+trainer.epochs=1", "trainer.epochs=2"], ["trainer.ref.x=1"], ["+trainer.ref.x=1"], ["++trainer.rows.x=1"],
    ["++trainer.ref.x=1", "trainer.ref.y=2"],
    ["+extra.a=1", "extra.b=2"], ["++extra.deep.a=1", "~extra.deep.b"],  # a `+` adds the mapping the next one reads
]


@pytest.mark.parametrize("texts", COMPOSE, ids=" ".join)
def test_what_the_index_passes_hydra_composes(hydra_at: Any, texts: list[str]) -> None:
    assert verdict(hydra_at([]), parsed(texts))[0] == PASS
    assert hydra_composes(hydra_at, texts)


@pytest.mark.parametrize("texts", RAISE, ids=" ".join)
def test_what_the_index_fails_hydra_rejects(hydra_at: Any, texts: list[str]) -> None:
    assert verdict(hydra_at([]), parsed(texts))[0] == FAIL
    assert not hydra_composes(hydra_at, texts)


@pytest.mark.parametrize("texts", UNCERTAIN, ids=" ".join)
def test_what_the_index_is_not_sure_of_it_leaves_to_hydra(hydra_at: Any, texts: list[str]) -> None:
    assert verdict(hydra_at([]), parsed(texts))[0] == UNSURE


@dataclasses.dataclass
class Typed:
    epochs: int = 3
    name: str = "run"


@pytest.mark.parametrize(("texts", "said"), [
    (["epochs=5"], PASS), (["rate=1"], PASS), (["name=7"], PASS), (["flag=true"], PASS), (["opt=null"], UNSURE),
    (["epochs=abc"], UNSURE), (["epochs=null"], UNSURE), (["flag=maybe"], UNSURE), (["sizes=[2,3]"], PASS),
    (["sizes=[a]"], PASS), (["+epochs=1"], FAIL), (["epochs.x=1"], UNSURE), (["~name"], PASS),
    (["++epochs.x=1"], UNSURE),  # a typed value takes no mapping in its place
], ids=str)
def test_typed_nodes_are_passed_only_for_values_their_type_takes(texts: list[str], said: str) -> None:
    """Typed value nodes in a mapping of the config's own, against Hydra's own applying of the list (what the
    composer does when the index is not sure)."""
    from omegaconf import BooleanNode, FloatNode, IntegerNode, OmegaConf, StringNode

    base = OmegaConf.create({"epochs": IntegerNode(3), "rate": FloatNode(0.5), "name": StringNode("run"),
                             "flag": BooleanNode(False), "opt": IntegerNode(None, is_optional=True), "sizes": [1]})
    OmegaConf.set_struct(base, True)
    assert verdict(base, parsed(texts))[0] == said
    answer = Applied(ComposerCounts(), cross_check=False)._apply(base, texts)
    assert answer == [] if said == PASS else said == UNSURE or answer


@pytest.mark.parametrize("texts", [["epochs=5"], ["+extra=1"], ["~name"], ["name=x"]], ids=str)
def test_a_structured_config_is_left_to_hydra(texts: list[str]) -> None:
    from omegaconf import OmegaConf

    base = OmegaConf.structured(Typed)
    OmegaConf.set_struct(base, True)
    assert verdict(base, parsed(texts))[0] == UNSURE


def test_flags_of_their_own_leave_it_to_hydra() -> None:
    """A mapping read-only, or with a struct flag of its own: Hydra decides."""
    from omegaconf import OmegaConf

    base = OmegaConf.create({"a": {"b": 1}, "c": {"d": 1}})
    OmegaConf.set_readonly(base.a, True)
    OmegaConf.set_struct(base.c, True)
    assert verdict(base, parsed(["a.b=2"]))[0] == UNSURE
    assert verdict(base, parsed(["~c.d"]))[0] == UNSURE
    applied = Applied(ComposerCounts(), cross_check=False)
    assert applied._apply(base, ["a.b=2"]) and applied._apply(base, ["~c.d"])


TRAINER = '''\
import hydra


@hydra.main(config_path="conf", config_name="main", version_base=None)
def main(cfg):
    print(cfg)
'''


def _lab(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "lab", {"lab/train.py": TRAINER, **{f"lab/conf/{k}": v for k, v in CONF.items()}})


def _composed(root: Path, script: str, cross_check: bool = False) -> tuple[list[Any], ComposerCounts]:
    from dataclasses import replace

    from bot.compose.launches import check_script
    from bot.engine.context import scan_context
    from bot.hydra.compose import Composer
    from bot.lang import launch_reader

    context = replace(scan_context(root), composer=Composer(cross_check=cross_check))
    (view,) = launch_reader("run.sh", "shell").launch_views(script.encode())
    findings = check_script("run.sh", context, view.launches)
    return findings, context.composer.counts


LAUNCHES = "".join(f"python lab/train.py trainer.epochs={n} model.path=/m/{n} +trainer.seed={n}\n" for n in range(6))


def test_launches_sharing_a_base_with_leaf_overrides_compose_it_once(tmp_path: Path) -> None:
    """Six launches, one base, only leaf overrides: the base is composed once as plain data (Hydra works out
    its defaults list, bot.hydra.plain_compose), nothing is copied or applied."""
    findings, counts = _composed(_lab(tmp_path), LAUNCHES)
    assert findings == []
    assert (counts.hydra_composes, counts.plain_composes, counts.applied, counts.indexed) == (0, 1, 0, 6)


def test_a_failing_launch_is_confirmed_by_hydra_with_its_message(tmp_path: Path) -> None:
    """The failing override is applied by Hydra's own override logic to the mappings on the way to its key, which
    confirms it and words why: Hydra composes no base, and nothing is applied to a copy of one."""
    script = LAUNCHES + "python lab/train.py trainer.epochs=2 trainer.nonexistent=1\n"
    findings, counts = _composed(_lab(tmp_path), script)
    assert [(f.line, f.key) for f in findings] == [(7, "trainer.nonexistent")]
    assert "Could not override 'trainer.nonexistent'" in findings[0].message
    assert "full_key: trainer.nonexistent" in findings[0].message
    assert (counts.hydra_composes, counts.plain_composes, counts.applied, counts.confirmed, counts.indexed) == (
        0, 1, 0, 1, 6)


def test_cross_check_applies_every_list_the_index_decides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The dev-only cross-check (the real-world check sets it): every decided list applied as well, the same
    findings; the environment variable turns it on."""
    from bot.hydra.applied import CROSS_CHECK
    from bot.hydra.compose import Composer

    script = LAUNCHES + ("python lab/train.py trainer.epochs=2 trainer.nonexistent=1\n"
                         "python lab/train.py trainer.absent=1 trainer.epochs=2 +trainer.name=x ~trainer.gone "
                         "model.path=y trainer.nested.deep.er=3\n")
    plain, counts = _composed(_lab(tmp_path), script)
    # the index is sure of line 7 (its failure confirmed on the way to its key), not of line 8 (`trainer.nested.deep`
    # is a value): line 8 applied whole to the plain base made a config; Hydra composes nothing
    assert (counts.hydra_composes, counts.applied, counts.confirmed, counts.indexed) == (0, 1, 1, 6)
    assert [(f.line, f.key) for f in plain] == [(7, "trainer.nonexistent"), (8, "trainer.absent"),
                                                (8, "trainer.name"), (8, "trainer.gone"), (8, "trainer.nested.deep.er")]
    checked, counts = _composed(tmp_path / "lab", script, cross_check=True)
    assert [(f.line, f.key, f.message) for f in checked] == [(f.line, f.key, f.message) for f in plain]
    # Hydra composes the base once, applies each list to it and the failing overrides alone, and agrees
    assert (counts.hydra_composes, counts.applied) == (1, 10)
    monkeypatch.setenv(CROSS_CHECK, "1")
    assert Composer().applied.cross_check
    monkeypatch.delenv(CROSS_CHECK)
    assert not Composer().applied.cross_check


def test_each_config_file_is_parsed_once_across_bases(tmp_path: Path) -> None:
    """Two bases (two choices of `db`) read main.yaml both: its YAML is parsed for the first only."""
    root = _lab(tmp_path)
    script = "python lab/train.py trainer.epochs=1\npython lab/train.py db=pg trainer.epochs=1\n"
    from dataclasses import replace

    from bot.compose.launches import check_script
    from bot.engine.context import scan_context
    from bot.hydra.compose import Composer
    from bot.lang import launch_reader

    composer = Composer()
    context = replace(scan_context(root), composer=composer)
    (view,) = launch_reader("run.sh", "shell").launch_views(script.encode())
    assert check_script("run.sh", context, view.launches) == []
    assert (composer.counts.hydra_composes, composer.counts.plain_composes) == (0, 2)
    texts = sorted(composer._data)
    assert texts == sorted(CONF.values())  # each file's text once; pg's and mysql's both read
