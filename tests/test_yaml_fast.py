"""libyaml's nodes (bot.lang.yaml.fast) equal ruamel's round-trip nodes on what the bot reads, or defer to ruamel."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from bot.lang.embedded.workflow import _compose, _views, workflow_views
from bot.lang.yaml.fast import compose_all

DOCUMENTS = [
    "a: 1\nb: yes\nc: on\nd: 0o12\ne: 012\nf: 1_000\ng: 1.5e3\nh: .inf\ni: ~\nj: null\nk: 2001-12-14\n",
    "base: &base\n  lr: 1e-6\n  use: False\nchild:\n  <<: *base\n  lr: 2e-6\nlist: [*base, {x: 1}]\n",
    "&top a: 1\nb: !!str 5\nc: !custom {x: 1}\nd: &d !!int '7'\ne: *d\n",
    "run: |\n  python3 -m verl.trainer.main_ppo \\\\\n    a.b=1\nother: >-\n  folded\n  text\n"
    "q: 'it''s'\nr: \"x\\ty\"\n",
    "jobs:\n  j:\n    env:\n      A: 1\n      B: \"two\"\n      C:\n"
    "    steps:\n      - run: echo $A\n      -\n      - name: x\n",
    "---\na: 1\n...\n---\n- x\n- [y, z]\n- {k: v}\n",
    "k: v # comment\n# full line\nm:\n  # inside\n"
    "  n: [1, 2,\n      3]\n",
    "é: ü\nkey: \"ünïcode ☃\"\n'quoted key': x\n? complex\n: value\n",
    "a: b: c\n", "a: [1, 2\n", "a: *missing\n", "a: 1\na: 2\n", "- a\nb: c\n", "key: 'unterminated\n",
]
PIECES = ["", " ", "\n", ":", "- ", "  ", '"', "'", "&a ", "*a", "!!str ", "#", "{", "[", "}", "]", ",", "<<: ",
          "? ", "|\n", ">\n", "yes", "0o7", "---\n", "...", "!x ", "%", "@", "`"]


def shape(node: Any, seen: dict[int, int]) -> Any:
    """What the bot reads of a node: class, tag, value, style, anchor, start mark, end index (children too)."""
    if id(node) in seen:
        return ("alias", seen[id(node)])
    seen[id(node)] = len(seen)
    empty = node.id == "scalar" and node.value == "" and node.style is None
    mark = None if empty else (node.start_mark.index, node.start_mark.line, node.start_mark.column,
                               node.end_mark.index)
    if node.id == "scalar":
        return ("scalar", node.tag, None if node.style == ">" else node.value, node.style, node.anchor, mark)
    children = [tuple(shape(p, seen) for p in item) if isinstance(item, tuple) else shape(item, seen)
                for item in node.value]
    return (node.id, node.tag, bool(node.flow_style), node.anchor, mark, children)


def same_as_ruamel(text: str) -> bool:
    fast = compose_all(text)
    if fast is None:
        return True  # ruamel reads it
    try:
        slow = list(YAML(typ="rt").compose_all(text))
    except Exception:
        return False
    return [shape(n, {}) for n in fast] == [shape(n, {}) for n in slow]


def test_documents_compose_alike() -> None:
    for text in DOCUMENTS:
        assert same_as_ruamel(text), text


def test_mutated_documents_compose_alike_or_defer() -> None:
    rng = random.Random(19)
    for _ in range(1500):
        text = rng.choice(DOCUMENTS)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(PIECES) + text[at + rng.randint(0, 2):]
        assert same_as_ruamel(text), text


def test_unsure_texts_go_to_ruamel() -> None:
    for text in ["%YAML 1.1\n---\na: yes\n", "a:\tb\n", "a: ! x\n", "? >\n  k\n: v\n"]:
        assert compose_all(text) is None, text
    assert compose_all("a: >\n  x\n  y\n", folded=True) is None


WORKFLOW = """on:
  workflow_dispatch:
env:
  TOP: "1"
  EMPTY:
jobs:
  j:
    env: {MID: x}
    steps:
      - run: |
          python3 -m verl.trainer.main_ppo a.b=${{ matrix.x }} c=$TOP
      - shell: >
          bash
        run: echo hi
      - run: echo "$MID"
"""


def test_workflow_views_alike() -> None:
    plain_shell = WORKFLOW.replace("shell: >\n          bash\n", "shell: bash\n")
    for text in [WORKFLOW, WORKFLOW.replace("  EMPTY:\n", ""), plain_shell]:
        data = text.encode()
        fast = [(v.text, v.host_at) for v in workflow_views(data)]
        slow = [(v.text, v.host_at) for v in _views(data, _compose(data, fast=False), fast=False)]
        assert fast == slow


def test_a_workflow_with_a_byte_order_mark_is_edited_at_the_right_bytes(tmp_path: Path) -> None:
    from bot.cli import main as cli
    from tests.conftest import make_repo

    flow = ("\ufeffjobs:\n  t:\n    runs-on: x\n    steps:\n      - run: python3 -m verl.trainer.main_ppo "
            "actor_rollout_ref.actor.megatron.use_mbridge=False\n")
    repo = make_repo(tmp_path / "r", {".github/workflows/t.yml": flow})
    assert cli(["run", "--repo", str(repo), "--write"]) == 0
    assert (repo / ".github/workflows/t.yml").read_text() == flow.replace("=False", "=True")
