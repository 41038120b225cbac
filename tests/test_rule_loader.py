"""Strict validation: a bad rule file names the file, the field and what was expected."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.errors import UserError
from bot.rules.loader import load_rules

GOOD = """\
id: {id}
title: t
match:
  key: ["**.x"]
fix:
  set: true
"""


def write_rule(directory: Path, name: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.yaml"
    path.write_text(text)
    return path


def test_bundled_rules_load_with_their_defaults() -> None:
    rules = {r.id: r for r in load_rules()}
    assert set(rules) == {"megatron-use-mbridge", "megatron-flash-attn", "megatron-recompute-uniform"}
    assert rules["megatron-use-mbridge"].enabled
    assert not rules["megatron-flash-attn"].enabled
    assert not rules["megatron-recompute-uniform"].enabled


def test_enable_and_only(tmp_path: Path) -> None:
    enabled = {r.id: r.enabled for r in load_rules(enable=["megatron-flash-attn"])}
    assert enabled["megatron-flash-attn"]
    only = load_rules(only=["megatron-recompute-uniform"])
    assert [r.id for r in only] == ["megatron-recompute-uniform"] and only[0].enabled


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("id: r\nmatch: {key: ['a.b']}\nfix: {sett: true}\n", "fix.sett: unknown field"),
        ("id: r\nmatch: {key: ['a.b']}\nfix: {set: true}\ncolour: red\n", "colour: unknown field"),
        ("id: r\nmatch: {key: 'a..b'}\n", "match.key[0]: expected a key glob"),
        ("id: r\nmatch: {key: ['a.b']}\nseverity: fatal\n", "severity: expected error, warning or note"),
        ("id: r\nmatch: {key: ['a.b'], prefix: ['+++']}\n", "match.prefix[0]: expected one of"),
        ("id: r\nmatch: {key: ['a.b']}\nenabled: 'yes'\n", "enabled: expected true or false"),
        ("id: r\nmatch: {key: ['a.b']}\nfix: {remove: true, set: 1}\n", "fix.remove: expected remove alone"),
        ("id: r\nensure: [{key: 'a.*', value: 1}]\n", "ensure[0].key: expected a dotted key"),
        ("id: r\nensure: [{key: 'a.b'}]\n", "ensure[0]: expected both key and value"),
        ("id: r\ntitle: t\n", "expected a match, an ensure or a relation section"),
        ("id: r\nrelation: {left: ['a.b'], op: '=>', right: c}\n", "relation.op: expected one of"),
        ("id: r\nrelation: {left: ['a.b'], op: '>=', right: c, value: 1}\n", "relation: expected exactly one"),
        ("id: r\nrelation: {left: ['a.b'], op: '>=', value: 'x'}\n", "relation.value: expected a number"),
        ("id: r\nrelation: {op: '>='}\n", "relation: expected left"),
        ("id: other\nmatch: {key: ['a.b']}\n", "id: expected the file name's stem"),
        ("id: r\nmatch: [1, 2\n", "expected valid YAML"),
        ("- just a list\n", "expected a mapping"),
        ("id: r\nmatch: {key: ['a.b'], value: {x: 1}}\n", "match.value: expected a non-empty list"),
        ("id: r\nmatch: {key: ['a.b'], item: tracking}\n", "match.item: expected a non-empty list"),
        ("id: r\nmatch: {key: ['a.b'], item: [[a]]}\n", "match.item[0]: expected a list element"),
        ("id: r\nmatch: {key: ['a.b'], items: [x]}\n", "match.items: unknown field"),
        ("id: r\nmatch: {key: ['a.b']}\nfix: {map_items: [a, b]}\n", "fix.map_items: expected a non-empty mapping"),
        ("id: r\nmatch: {key: ['a.b']}\nfix: {map_items: {a: [b]}}\n", "fix.map_items.a: expected a list element"),
        ("id: r\nmatch: {key: ['a.b']}\nfix: {remove_items: x}\n", "fix.remove_items: expected a non-empty list"),
        ("id: r\nmatch: {key: ['a.b']}\nfix: {map_items: {a: b}, map: {c: d}}\n", "fix.map_items: expected"),
        ("id: r\nmatch: {key: ['a.b']}\nfix: {remove_items: [a], set: 1}\n", "fix.remove_items: expected"),
        ("id: r\nmatch: {key: ['a.b']}\nfix: {map_items: {a: b}, remove_items: [a]}\n", "is in both"),
        ("id: r\nfix: {entrypoint: [a.b]}\n", "fix.entrypoint: expected a non-empty mapping"),
        ("id: r\nfix: {entrypoint: {a.b: 'x/y'}}\n", "fix.entrypoint.a.b: expected a dotted module name"),
        ("id: r\nfix: {entrypoint: {'a.*': x.y}}\n", "expected a dotted module name"),
        ("id: r\nfix: {entrypoint: {a.b: a.b}}\n", "fix.entrypoint.a.b: expected a module other than the old one"),
        ("id: r\nfix: {entrypoint: {a.b: c.d}, rename: x}\n", "fix.entrypoint: expected entrypoint alone"),
        ("id: r\nmatch: {key: ['a.b']}\nfix: {entrypoint: {a.b: c.d}}\n", "match: expected no match section"),
        ("id: r\nfix: {rename: x}\n", "fix: expected a match section"),
    ],
)
def test_bad_rule_files_are_one_line_errors(tmp_path: Path, text: str, expected: str) -> None:
    path = write_rule(tmp_path / "rules", "r", text)
    with pytest.raises(UserError) as caught:
        load_rules([tmp_path / "rules"], include_bundled=False)
    message = str(caught.value)
    assert str(path) in message and expected in message
    assert "\n" not in message


def test_duplicate_ids_across_directories(tmp_path: Path) -> None:
    write_rule(tmp_path / "one", "dup", GOOD.format(id="dup"))
    write_rule(tmp_path / "two", "dup", GOOD.format(id="dup"))
    with pytest.raises(UserError, match="unique rule id"):
        load_rules([tmp_path / "one", tmp_path / "two"], include_bundled=False)


def test_unknown_rule_id_on_the_command_line() -> None:
    with pytest.raises(UserError, match="no such rule"):
        load_rules(only=["nope"])


def test_cli_exit_code_2_for_a_bad_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_rule(tmp_path / "rules", "r", "id: r\nmatch: {key: ['a.b']}\nfix: {set: [1, {a: 2}]}\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    code = main(["run", "--repo", str(repo), "--dry-run", "--rules", str(tmp_path / "rules")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "r.yaml: fix.set" in err


def test_the_new_fields_load() -> None:
    from tests.conftest import RULE_DEFS

    rules = {r.id: r for r in load_rules([RULE_DEFS], include_bundled=False)}
    moved = rules["trainer-module-move"]
    assert moved.match_key == () and moved.fix is not None
    assert moved.fix.entrypoint[0] == ("labs.async_rl.legacy", "mylib.async_rl_legacy")  # longest first
    assert moved.prefilter_tokens() == [b"async_rl", b"legacy"]
    mapped = rules["logger-item-map"]
    assert mapped.match_item == ("legacy_tb",) and mapped.fix is not None
    assert mapped.fix.map_items == (("legacy_tb", "tensorboard"),)
    dropped = rules["logger-item-drop"]
    assert dropped.match_item is None and dropped.fix is not None and dropped.fix.remove_items == ("stdout",)
