"""Issue 21's readers: config in docs YAML blocks, bare override blocks, commented-out overrides and
prose literals (docs/dev/replay-format.md), with the rule field `comments`."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.engine.check import check_file
from bot.engine.scan import scan
from bot.errors import UserError
from bot.model import Status
from bot.rules.globs import key_glob
from bot.rules.loader import load_rules, parse_rule
from bot.rules.suffix import full_key, suffix_match
from tests.conftest import RULE_DEFS, make_repo

RULES = {rule.id: rule for rule in load_rules([RULE_DEFS], include_bundled=False)}


def test_keys_match_by_their_last_segments() -> None:
    globs = (key_glob("**.correction.bound_mode"), key_glob("sampler.{warm,cold}.steps"))
    assert suffix_match(globs, "bound_mode") and suffix_match(globs, "correction.bound_mode")
    assert suffix_match(globs, "steps") and suffix_match(globs, "warm.steps")
    assert not suffix_match(globs, "other.bound_mode") and not suffix_match(globs, "hot.steps")
    assert not suffix_match(globs, "correction")  # a suffix ends at the leaf
    assert full_key((key_glob("judge.scorer"),), "scorer") == "judge.scorer"
    assert full_key((key_glob("**.scorer"),), "scorer") is None  # not a literal key


@pytest.mark.parametrize(("field", "error"), [
    ("comments: sometimes", "comments: expected note, fix or off, got the string 'sometimes'"),
    ("comments: [fix]", "comments: expected note, fix or off, got a list"),
])
def test_a_bad_comments_field_is_one_line(field: str, error: str) -> None:
    from ruamel.yaml import YAML

    data = YAML(typ="safe").load(f"match: {{key: [a.b]}}\nfix: {{remove: true}}\n{field}\n")
    with pytest.raises(UserError) as caught:
        parse_rule(data, Path("r.yaml"))
    assert str(caught.value) == f"r.yaml: {error}"


def test_comments_fix_needs_a_fix() -> None:
    with pytest.raises(UserError, match="comments: expected note or off: fix needs a fix section"):
        parse_rule({"match": {"key": ["a.b"]}, "comments": "fix"}, Path("r.yaml"))


def test_default_policy_follows_the_fix() -> None:
    assert RULES["judge-scorer-section"].comment_policy() == "fix"
    assert RULES["judge-scorer-section"].comment_policy(prose=True) == "fix"
    assert RULES["bound-mode-map"].comment_policy(prose=True) == "fix"
    use_mbridge = next(r for r in load_rules() if r.id == "megatron-use-mbridge")  # a set
    assert (use_mbridge.comment_policy(), use_mbridge.comment_policy(prose=True)) == ("fix", "note")
    assert RULES["accelerator-npu-dropped"].comment_policy() == "note"
    assert RULES["accelerator-npu-comments"].comment_policy() == "fix"
    assert RULES["judge-scorer-quiet"].comment_policy() == "off"


def test_comment_and_prose_findings_are_notes() -> None:
    doc = b"Use `trainer.accelerator=npu`.\n\n```bash\n# trainer.accelerator=npu\necho\n```\n"
    result = check_file("a.md", doc, [RULES["accelerator-npu-dropped"]])
    assert sorted((f.line, f.status, f.severity) for f in result.findings) == [
        (1, Status.MANUAL, "note"), (4, Status.MANUAL, "note")]
    assert result.change is None


def test_a_dotted_rename_in_a_docs_block_is_manual() -> None:
    doc = b"```yaml\nscorer: fuzzy\n```\n\n```yaml\njudge:\n  scorer: fuzzy\n```\n"
    result = check_file("a.md", doc, [RULES["judge-scorer-section"]])
    assert [(f.line, f.status) for f in result.findings] == [(2, Status.MANUAL), (7, Status.MANUAL)]
    assert result.change is None


def test_a_broken_yaml_block_is_skipped_and_counted() -> None:
    doc = (b"```yaml\ncorrection: {bound_mode: clip\n```\n\n"
           b"```yaml\ncorrection:\n  bound_mode: clip\n```\n")
    result = check_file("a.md", doc, [RULES["bound-mode-map"], RULES["judge-scorer-section"]])
    assert result.partly_parsed and result.unsure == ("bound-mode-map",)
    assert [f.line for f in result.findings] == [7]
    assert result.change is not None and result.change.after.endswith(b"  bound_mode: mask\n```\n")


@pytest.mark.parametrize("doc", [
    b"```yaml\nkey: [\n",  # an unclosed fence
    b".. code-block:: yaml\n\n\t correction:\n  \tbound_mode: clip\n",  # tabs and spaces mixed
    b"```\n\\\n```\n",  # a lone continuation
    b"```yaml\n---\n- a\n---\ncorrection: !tag {bound_mode: clip}\n```\n",
    b"``judge.scorer=``\n\n``judge.scorer='``\n",
    "```yaml\ncorrection:\n  bound_mode: clip  # é\n```\n".encode(),
])
def test_odd_docs_never_abort(doc: bytes) -> None:
    for name in ("a.md", "a.rst"):
        check_file(name, doc, list(RULES.values()))


def test_notes_from_comments_never_fail_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "accelerator-npu-dropped.yaml").write_text((RULE_DEFS / "accelerator-npu-dropped.yaml").read_text())
    root = make_repo(tmp_path / "repo", {"run.sh": "#!/bin/bash\n# trainer.accelerator=npu\necho hi\n",
                                         "docs/a.md": "Set `trainer.accelerator=npu`.\n"})
    assert main(["run", "--repo", str(root), "--dry-run", "--check", "--no-cache", "--no-bundled",
                 "--rules", str(rules)]) == 0
    out = capsys.readouterr().out
    assert "run.sh:2:3: [accelerator-npu-dropped] note trainer.accelerator is npu, commented out" in out
    report = scan(root, load_rules([rules], include_bundled=False))
    assert sorted((f.path, f.severity) for f in report.findings) == [("docs/a.md", "note"), ("run.sh", "note")]


def test_a_hash_line_inside_a_string_or_here_document_is_no_comment() -> None:
    key = "actor_rollout_ref.actor.megatron.use_mbridge"
    src = (f'OVERRIDES="\n# {key}=False\ntrainer.n=1"\npython3 -m verl.trainer.main_ppo $OVERRIDES\n'
           f"cat > notes.txt <<EOF\n# {key}=False\nEOF\n# {key}=False\n").encode()
    result = check_file("run.sh", src, load_rules())
    lines = sorted((f.line, f.is_note) for f in result.findings)
    assert lines == [(2, False), (8, True)]  # the string's value is a setting; the here-document is text


def test_a_docs_placeholder_is_a_value_the_reader_fills_in(tmp_path: Path) -> None:
    from bot.engine.launches import collect

    doc = ("```bash\npython3 train.py \\\n    run.id=<run_id> \\\n    plot.enabled=true \\\n"
           "    out.dir='<kept as written>' \\\n    names='[\"<NAME_1>\",\"</abs/dir>\"]' \\\n"
           "    paths=[\"<NAME_1>\",\"</abs/dir>\"]\n```\n")
    repo = make_repo(tmp_path / "repo", {"README.md": doc, "train.py": "print('x')\n"})
    (launch,) = collect(repo, "repo").launches
    assert [(o["text"], o["source"]) for o in launch.overrides] == [
        ("run.id=<run_id>", "run time: <run_id>, a placeholder the reader fills in"),
        ("plot.enabled=true", "literal"),  # bash would have taken it for a file to redirect to
        ("out.dir=<kept as written>", "literal"),  # the word bash passes, quotes removed
        ('names=["<NAME_1>","</abs/dir>"]', "literal"),  # in single quotes: text
        ('paths=[<NAME_1>,</abs/dir>]', "run time: <NAME_1>, a placeholder the reader fills in")]


def test_each_placeholder_keeps_its_own_name_and_a_word_it_starts(tmp_path: Path) -> None:
    from bot.engine.launches import collect

    doc = ("```bash\npython3 train.py a.lr=<lr> a.n=<N> \\\n    a.dir=<d>_run a.tag=<tag>_v2 b.c=1\n```\n\n"
           "```bash\npython3 train.py a.m=<b>\n```\n")
    repo = make_repo(tmp_path / "repo", {"README.md": doc, "train.py": "print('x')\n"})
    first, second = collect(repo, "repo").launches
    assert [(o["text"], o["source"].split(",")[0]) for o in first.overrides] == [
        ("a.lr=<lr>", "run time: <lr>"), ("a.n=<N>", "run time: <N>"),
        ("a.dir=", "literal"),  # `<d>` is too short for a name that ends before `_run`: read as bash reads it
        ("a.tag=<tag>_v2", "run time: <tag>"), ("b.c=1", "literal")]
    assert [(o["text"], o["source"].split(",")[0]) for o in second.overrides] == [("a.m=<b>", "run time: <b>")]


def test_a_fence_without_a_language_is_read_when_it_starts_with_any_launcher_or_a_console_script(
        tmp_path: Path) -> None:
    """`nohup`, `uv run`, `./train.py`, `CUDA_VISIBLE_DEVICES=0 lab-train` (a console script of the
    repository) begin commands as surely as `python`; output that merely mentions `time` is no launch."""
    from bot.engine.launches import collect

    app = ('import hydra\n\n\n@hydra.main(config_path="conf", config_name="c", version_base=None)\n'
           'def main(cfg):\n    pass\n')
    readme = ("# Lab\n\n```\nCUDA_VISIBLE_DEVICES=0 lab-train a.x=2\n```\n\n```\nnohup python lab/train.py a.x=3 &\n"
              "```\n\n```\nuv run python lab/train.py a.x=4\n```\n\n```\n./lab/train.py a.x=5\n```\n\n"
              "```\ntime elapsed: 3 s\n```\n")
    repo = make_repo(tmp_path / "lab", {
        "lab/train.py": app, "lab/conf/c.yaml": "a:\n  x: 1\n", "README.md": readme,
        "pyproject.toml": ('[project]\nname = "lab"\nversion = "1"\n\n[project.scripts]\n'
                           'lab-train = "lab.train:main"\n')})
    found = [(launch.line, launch.cls) for launch in collect(repo, "lab").launches if launch.path == "README.md"]
    assert found == [(4, "hydra"), (8, "hydra"), (12, "hydra"), (16, "hydra")]


def test_a_python_block_of_a_crlf_doc_gets_its_added_element_on_a_crlf_line() -> None:
    import yaml

    ensure = parse_rule(yaml.safe_load("id: flag\ntitle: t\nwhen: {sets: ['optim.**']}\n"
                                       "ensure: [{key: optim.flag, value: true, prefix: '+'}]\n"), Path("flag.yaml"))
    src = (b"# Compose\r\n\r\n```python\r\ncfg = compose(\r\n    config_name=\"train\",\r\n"
           b"    overrides=[\r\n        \"optim.lr=1\",\r\n    ],\r\n)\r\n```\r\n")
    result = check_file("docs/a.md", src, [ensure])
    assert [(f.line, f.status) for f in result.findings] == [(6, Status.FIXABLE)]  # the list's line
    assert result.change is not None
    assert b'        "optim.lr=1",\r\n        "+optim.flag=True",\r\n    ],\r\n' in result.change.after
