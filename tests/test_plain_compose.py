"""Bases composed as plain data (bot.hydra.plain_compose) and the compose index read off them
(bot.hydra.plain_index): the same config and the same verdicts as Hydra's, and Hydra's composition wherever
OmegaConf would decide otherwise."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_repo

TRAINER = '''\
import hydra


@hydra.main(config_path="conf", config_name="main", version_base=None)
def main(cfg):
    print(cfg)
'''

# A config tree with the shapes a composition meets: a package per option, an option with defaults of its own,
# an interpolated choice, a `_global_` option, `???` left by a later config, lists replaced, null over a mapping,
# Hydra settings in the primary config
CONF = {
    "main.yaml": (
        "defaults:\n  - store: files\n  - net@learner.net: tiny\n  - plan: ${store}_plan\n  - extras\n  - _self_\n"
        "learner:\n  rounds: 3\n  labels: [red, green]\n  solver: ???\n  clip: {low: 0, high: 1}\n"
        "title: demo\nhydra:\n  run:\n    dir: runs/here\n  job:\n    chdir: false\n"
    ),
    "store/files.yaml": "root: /srv/files\nretries: 5\n",
    "store/cloud.yaml": "# @package _global_\nstore:\n  bucket: b1\nlearner:\n  rounds: 9\n",
    "net/tiny.yaml": "defaults:\n  - common\n  - _self_\ndepth: 2\n",
    "net/common.yaml": "depth: 1\nwidth: 64\nnorm: null\nact: relu\n",
    "net/wide.yaml": "width: 512\nnorm: {kind: layer}\n",
    "plan/files_plan.yaml": "steps: 10\n",
    "plan/cloud_plan.yaml": "steps: 20\nwarmup: ${learner.rounds}\n",
    "extras.yaml": "learner:\n  solver: sgd\n  labels: [blue]\n  rounds: ???\n  clip: null\n",
}
BASES = [(), ("store=cloud",), ("net@learner.net=wide",), ("store=cloud", "net@learner.net=wide")]


def _app(root: Path) -> Any:
    from bot.hydra.app import HydraApp

    real = root.resolve()
    return HydraApp(source="lab/train.py", config_dir=real / "lab" / "conf", config_name="main", root=real)


def _tree(tmp_path: Path, conf: dict[str, str] | None = None) -> Path:
    files = {"lab/train.py": TRAINER, **{f"lab/conf/{k}": v for k, v in (conf or CONF).items()}}
    return make_repo(tmp_path / "lab", files)


def _hydras(composer: Any, app: Any, groups: tuple[str, ...]) -> dict[str, Any]:
    from omegaconf import OmegaConf

    whole = OmegaConf.to_container(composer.base(app, groups), resolve=False)
    assert isinstance(whole, dict)
    whole.pop("hydra", None)  # the compose API leaves Hydra's node out
    return whole


@pytest.mark.parametrize("groups", BASES)
def test_a_plain_base_is_the_config_hydra_composes(tmp_path: Path, groups: tuple[str, ...]) -> None:
    from bot.hydra.compose import Composer

    root = _tree(tmp_path)
    composer = Composer(cross_check=False)
    plain = composer.plain_base(_app(root), groups)
    assert plain is not None
    assert plain == _hydras(Composer(cross_check=False), _app(root), groups)
    assert list(plain) == list(_hydras(Composer(cross_check=False), _app(root), groups))  # Hydra's key order too


def test_the_plain_merge_keeps_what_omegaconf_keeps(tmp_path: Path) -> None:
    """`???` leaves a value that is there, a later list replaces a list, null replaces a mapping."""
    from bot.hydra.compose import Composer

    plain = Composer().plain_base(_app(_tree(tmp_path)), ())
    assert plain is not None
    learner = plain["learner"]
    assert (learner["solver"], learner["rounds"], learner["labels"], learner["clip"]) == ("sgd", 3, ["red", "green"],
                                                                                          {"low": 0, "high": 1})
    assert plain["learner"]["net"] == {"depth": 2, "width": 64, "norm": None, "act": "relu"}
    assert plain["plan"] == {"steps": 10}


NOT_PLAIN = {
    "a mapping merged into a list": {"extras.yaml": "learner:\n  labels: {x: 1}\n"},
    "a non-primary config setting the search path": {
        "extras.yaml": "# @package _global_\nhydra:\n  searchpath: [file://elsewhere]\n"},
    "a Hydra setting that is not a string": {"extras.yaml": "# @package _global_\nhydra:\n  verbose: true\n"},
    "a bytes value": {"extras.yaml": "learner:\n  seed: !!binary aGk=\n"},
    "a key that is a number": {"extras.yaml": "learner:\n  7: seven\n"},
    "an option of Hydra's group of the app's own": {
        "main.yaml": CONF["main.yaml"].replace("  - _self_\n", "  - override hydra/job_logging: quiet\n  - _self_\n"),
        "hydra/job_logging/quiet.yaml": "version: 1\n"},
}


@pytest.mark.parametrize("case", sorted(NOT_PLAIN))
def test_what_omegaconf_decides_otherwise_is_hydras_to_compose(tmp_path: Path, case: str) -> None:
    from bot.hydra.compose import Composer

    root = _tree(tmp_path, {**CONF, **NOT_PLAIN[case]})
    composer = Composer()
    assert composer.plain_base(_app(root), ()) is None
    assert composer.counts.plain_composes == 0


def test_a_launch_on_a_base_that_is_not_plain_gets_hydras_message(tmp_path: Path) -> None:
    """A mapping merged into a list: Hydra's composition raises, and the launch's finding is Hydra's message."""
    from bot.compose.launches import check_script
    from bot.engine.context import scan_context
    from bot.hydra.compose import Composer
    from bot.lang import launch_reader

    root = _tree(tmp_path, {**CONF, **NOT_PLAIN["a mapping merged into a list"]})
    context = replace(scan_context(root), composer=Composer())
    (view,) = launch_reader("run.sh", "shell").launch_views(b"python lab/train.py learner.rounds=4\n")
    (finding,) = check_script("run.sh", context, view.launches)
    assert "Cannot merge DictConfig with ListConfig" in finding.message


SCRIPT = "".join(line + "\n" for line in [
    "python lab/train.py learner.rounds=4 +learner.seed=1 ~learner.clip title=x",
    "python lab/train.py store=cloud learner.rounds=4 store.bucket=b2 plan.warmup=2",
    "python lab/train.py net@learner.net=wide learner.net.norm.kind=batch learner.net.norm=null",
    "python lab/train.py learner.missing=1 +title=again",
    "python lab/train.py ~learner.net.norm learner.labels=[a,b] learner.clip={low:1}",
    "python lab/train.py 'learner.solver=${title}' learner.net.act=gelu ++learner.net.act=tanh",
])


def _findings(root: Path, cross_check: bool) -> tuple[list[tuple[int, str | None, str]], Any]:
    from bot.compose.launches import check_script
    from bot.engine.context import scan_context
    from bot.hydra.compose import Composer
    from bot.lang import launch_reader

    context = replace(scan_context(root), composer=Composer(cross_check=cross_check))
    (view,) = launch_reader("run.sh", "shell").launch_views(SCRIPT.encode())
    found = check_script("run.sh", context, view.launches)
    return [(f.line, f.key, f.message) for f in found], context.composer.counts


def test_hydra_agrees_with_every_plain_verdict(tmp_path: Path) -> None:
    """Under the real-world check's cross-check every plain base is composed by Hydra too and every list the
    plain index passes is applied: no disagreement, and the same findings as without it."""
    root = _tree(tmp_path)
    quick, counts = _findings(root, cross_check=False)
    checked, _ = _findings(root, cross_check=True)
    assert quick == checked
    # deleting a key whose value is null raises too (line 5); `++` sets a key that is there (line 6)
    assert [(line, key) for line, key, _ in quick] == [(4, "learner.missing"), (4, "title"), (5, "learner.net.norm")]
    assert (counts.plain_composes, counts.indexed) == (3, 2)  # lines 1 and 2 passed on plain data alone


QUICK = ["a.b=1", "+a=x/y", "++a.b_c=3.5", "~a", "a=null", "a-b.c=True", "a=1e-5", "a=-1", "x=./a:b", "a=inf",
         "a=.5", "data.files=/d/x.parquet", "a=", "a=[]", "a=[x,y]", "a=[ 1 , 2.5 ]", "a=['p', 'q']", 'a=["p","q"]',
         "a=[1,null]"]
LEFT_TO_HYDRA = ["~a=1", "a=Null", "a=NULL", "a=1,2", "a.0=1", "a@p=1", "a='x y'", "a=${b}", "a=???",
                 "a={b:1}", "a=choice(1,2)", "a=x*", "a=[a b]", "a=[[1]]", "a=[NULL]", "a=['x y']", "a=[${b}]"]


@pytest.mark.parametrize("text", QUICK)
def test_a_quick_override_reads_as_hydras_parse(text: str) -> None:
    from hydra.core.override_parser.overrides_parser import OverridesParser

    from bot.hydra.plain_index import quick_override

    mine = quick_override(text)
    hydra = OverridesParser.create().parse_overrides([text])[0]
    assert mine is not None
    assert (mine.key_or_group, mine.is_add(), mine.is_force_add(), mine.is_delete(), mine.value() is None) == (
        hydra.key_or_group, hydra.is_add(), hydra.is_force_add(), hydra.is_delete(), hydra.value() is None)
    theirs = hydra.value()
    if isinstance(theirs, list):  # the items as written: what tells them apart for the index is the same
        assert [None if i == "null" else i for i in mine.value()] == [None if i is None else str(i) for i in theirs]
    else:
        assert isinstance(mine.value(), (str, type(None))) and not isinstance(theirs, (list, dict))


@pytest.mark.parametrize("text", LEFT_TO_HYDRA)
def test_other_overrides_are_left_to_hydras_parser(text: str) -> None:
    from bot.hydra.plain_index import quick_override

    assert quick_override(text) is None


DATA = {"a": {"b": 1, "c": [1, 2], "d": None, "e": "???", "f": "${a.b}", "g": {"h": "x"}}, "top": "t"}
LISTS = [["a.b=2"], ["a.x=1"], ["+a.x=1"], ["+a.b=1"], ["++a.b=1"], ["~a.b"], ["~a.d"], ["~a.zz"], ["~a.e"],
         ["+a.f=1"], ["a.c=[3]"], ["a.c=5"], ["a.g=5"], ["a.g=null"], ["a.g={h:y}"], ["a.d=[1]"], ["a.b.z=1"],
         ["a.c.z=1"], ["a.b=1", "a.b=2"], ["a=1", "a.b=2"], ["+n.m=1", "n.m=2"], ["+n.m=1", "+n.k=2"],
         ["a.b=${top}"], ["a.b=???"], ["top=null"], ["a.e=1"], ["a.f=2"], ["x@p=1"], ["a.b=1,2"], ["a.c=[]"],
         ["a.b=[x,y]"], ["+a.new=[1,2]"], ["a.g=[1]"], ["a.b="], ["~a.c"],
         # `++` through a value on the way (an interpolation, `???`, null, a plain value, a list)
         ["++a.f.x=1"], ["++a.e.x.y=[1]"], ["++a.d.x=1", "++a.d.y=2"], ["++a.b.x=1", "a.b.y=2"], ["++a.c.x=1"],
         ["++top.x=${a.b}"], ["++a.b.x=1", "+a.b.y=2"], ["++a.b.x=1", "~a.b.y"]]


@pytest.mark.parametrize("texts", LISTS, ids=" ".join)
def test_plain_verdicts_are_the_compose_indexs(texts: list[str]) -> None:
    """On the same config, read as plain data or as OmegaConf's, the index says the same (or the plain one is
    not sure where the OmegaConf one is not)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from omegaconf import OmegaConf

    from bot.hydra.compose_index import verdicts
    from bot.hydra.plain_index import plain_verdicts, quick_override

    parser = OverridesParser.create()
    hydra_parsed = [parser.parse_overrides([t])[0] for t in texts]
    base = OmegaConf.create(DATA)
    OmegaConf.set_struct(base, True)
    theirs = verdicts(base, hydra_parsed)[0]
    assert plain_verdicts(DATA, hydra_parsed) == theirs
    quick = [quick_override(t) for t in texts]
    if all(q is not None for q in quick):
        assert plain_verdicts(DATA, quick) in (theirs, None)


def test_hydras_steps_are_put_back_after_composing(tmp_path: Path) -> None:
    from hydra._internal import defaults_list
    from hydra._internal.sources_registry import SourcesRegistry

    from bot.hydra.compose import Composer

    made, package = defaults_list._create_interpolation_map, SourcesRegistry.instance().types["pkg"]
    composer = Composer()
    composer.base(_app(_tree(tmp_path)), ("store=cloud",))
    assert defaults_list._create_interpolation_map is made
    assert SourcesRegistry.instance().types["pkg"] is package


def test_the_defaults_outline_tells_hydra_the_config_has_content(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Working out the defaults list, Hydra reads only an outline of each config; whether a primary config has
    content of its own still reaches it (with SELF_WARNING_AS_ERROR, a missing `_self_` is then Hydra's error,
    and the plain composition says so as Hydra's would)."""
    from bot.hydra.compose import Composer

    main = CONF["main.yaml"].replace("  - _self_\n", "")
    conf = {**CONF, "main.yaml": main[: main.index("hydra:")]}
    root = _tree(tmp_path, conf)
    assert Composer().plain_base(_app(root), ()) is not None
    monkeypatch.setenv("SELF_WARNING_AS_ERROR", "1")
    assert Composer().plain_base(_app(root), ()) is None
    with pytest.raises(Exception, match="missing `_self_`"):
        Composer().base(_app(root), ())


YAML_TEXTS = {
    "mapping": "a: 1\nb: [x, 2.5, null]\nc: {d: true}\n",
    "floats": "lr: 1e-5\nmin: .5\nbig: 1_000\nneg: -3e2\n",
    "dates stay strings": "when: 2024-05-01\nat: 2024-05-01 10:00:00\n",
    "anchors": "base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n",
    "interpolations": "a: ${b}\nb: '???'\nc: ???\n",
    "empty": "",
    "comments only": "# nothing here\n",
    "duplicate key": "a: 1\na: 2\n",
    "broken": "a: [1, 2\n",
    "a tab": "a:\n\tb: 1\n",
    "a list": "- 1\n- 2\n",
}


@pytest.mark.parametrize("name", sorted(YAML_TEXTS))
def test_config_yaml_reads_as_omegaconfs_loader_reads_it(name: str) -> None:
    """libyaml with OmegaConf's resolvers reads what OmegaConf's own loader reads, and refuses what it refuses
    with its message (the text is then read by OmegaConf's loader)."""
    import io

    import yaml
    from omegaconf._utils import get_yaml_loader

    from bot.hydra.source import _data

    text = YAML_TEXTS[name]
    try:
        theirs: Any = yaml.load(io.StringIO(text), Loader=get_yaml_loader())
        theirs = {} if theirs is None else theirs
    except Exception as exc:
        with pytest.raises(type(exc), match=None) as raised:
            _data(text)
        assert str(raised.value) == str(exc)
        return
    assert _data(text) == theirs


@pytest.mark.parametrize("texts", [t for t in LISTS if "@" not in t[0]], ids=" ".join)
def test_a_failure_confirmed_on_the_way_to_its_key_is_worded_as_on_the_whole_base(texts: list[str]) -> None:
    """Where the plain index is sure, each failure it finds is applied alone, by Hydra's override logic, to the
    mappings on the way to its key: the messages are those of the whole list applied to the whole config."""
    from omegaconf import OmegaConf

    from bot.hydra.applied import Applied, ComposerCounts

    applied = Applied(ComposerCounts(), cross_check=False)
    said = applied.plain_said(DATA, texts)
    if said is None:
        pytest.skip("the plain index is not sure: the whole list is applied")
    whole = Applied(ComposerCounts(), cross_check=True)  # applies the whole list in turn
    assert applied.confirmed(DATA, texts, said) == whole.failures(OmegaConf.create(DATA), texts, line=1)


def test_on_the_way_keeps_only_the_mappings_to_the_key() -> None:
    from bot.hydra.plain_index import on_the_way

    assert on_the_way(DATA, "a.g.h") == {"a": {"g": {"h": "x"}}}
    assert on_the_way(DATA, "a.c") == {"a": {"c": []}}  # a list emptied, as a mapping: only its place is said
    assert on_the_way(DATA, "a.g") == {"a": {"g": {}}}
    assert on_the_way(DATA, "a.zz.y") == {"a": {}}  # the way stops where the config does
    assert on_the_way(DATA, "top.x") == {"top": "t"}


@pytest.mark.parametrize("line", ["  - override hydra/job_logging: disabled\n", "  - override hydra/launcher: basic\n"])
def test_a_config_choosing_hydras_own_options_is_still_composed_as_plain_data(tmp_path: Path, line: str) -> None:
    """The defaults list is first worked out without Hydra's own node; a config that chooses an option of Hydra's
    groups has it worked out again with the node, and its base is still the one Hydra composes."""
    from bot.hydra.compose import Composer

    root = _tree(tmp_path, {**CONF, "main.yaml": CONF["main.yaml"].replace("  - _self_\n", line + "  - _self_\n")})
    plain = Composer(cross_check=False).plain_base(_app(root), ())
    assert plain is not None
    assert plain == _hydras(Composer(cross_check=False), _app(root), ())


def test_hydras_own_node_is_left_out_of_the_defaults_list_where_nothing_names_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hydra._internal import defaults_list

    from bot.hydra.compose import Composer

    asked: list[bool] = []
    made = defaults_list.create_defaults_list

    def create(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs["prepend_hydra"])
        return made(*args, **kwargs)

    monkeypatch.setattr(defaults_list, "create_defaults_list", create)
    assert Composer(cross_check=False).plain_base(_app(_tree(tmp_path)), ()) is not None
    assert asked == [False]


def test_the_config_names_of_one_config_dir_read_each_config_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                  ) -> None:
    """Hydra's search path is the app's (given on the command line), whatever the primary config: the bases of
    every config name of a config dir share one caching repository, and each is still Hydra's composition."""
    from hydra._internal.config_repository import ConfigRepository

    from bot.hydra.compose import Composer

    loaded: list[str] = []
    load = ConfigRepository.load_config

    def counted(self: Any, config_path: str) -> Any:
        loaded.append(config_path)
        return load(self, config_path)

    root = _tree(tmp_path, {**CONF, "other.yaml": "defaults:\n  - store: files\n  - net@learner.net: tiny\n"
                                                  "  - _self_\ntitle: other\n"})
    monkeypatch.setattr(ConfigRepository, "load_config", counted)
    composer = Composer(cross_check=False)
    apps = [_app(root), replace(_app(root), config_name="other")]
    plains = [composer.plain_base(app, ()) for app in apps]
    assert sorted(loaded) == sorted(set(loaded)) and "store/files" in loaded
    monkeypatch.undo()
    for app, plain in zip(apps, plains):
        assert plain == _hydras(Composer(cross_check=False), app, ())
