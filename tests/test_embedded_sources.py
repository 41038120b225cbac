"""Shell embedded in other files, checked directly through bot.engine.scan.check_file and bot.engine.scan.scan.

Workflow cases here check what a fixture cannot (messages, columns, fix sites, env order and
shadowing; fixtures named `workflow_*.yml` cover the plain edits), as do the notebook
byte-for-byte guarantees and the per-kind counts of a scan. Several tests pin bugs found
while writing them (workflow env order and shadowing, folded-script lines, aliases, `=` in env
values, `!` in Python strings, attribute fences).
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot.engine.check import check_file
from bot.engine.scan import scan
from bot.model import FileResult, Status
from bot.rules.loader import load_rules
from bot.rules.model import Rule
from tests.conftest import RULE_DEFS, make_repo

RULES = {rule.id: rule for rule in load_rules([RULE_DEFS])}
WORKFLOW = ".github/workflows/x.yml"


def rule(rule_id: str) -> list[Rule]:
    return [replace(RULES[rule_id], enabled=True)]


def check(path: str, data: str | bytes, rule_id: str = "megatron-use-mbridge") -> FileResult:
    raw = data.encode() if isinstance(data, str) else data
    result = check_file(path, raw, rule(rule_id))
    assert result.unreadable is None, result.unreadable
    return result


def after(result: FileResult, before: str) -> str:
    return result.change.after.decode() if result.change else before


def found(result: FileResult) -> list[tuple[int, str]]:
    return sorted((f.line, "manual" if f.status is Status.MANUAL else "fixable") for f in result.findings)


def workflow(steps: str, top: str = "") -> str:
    return f"name: e2e\non: [push]\n{top}jobs:\n  megatron:\n    runs-on: [self-hosted, gpu]\n    steps:\n{steps}"


# ---------------------------------------------------------------- workflows: run scripts


def test_workflow_literal_run_block() -> None:
    before = workflow(
        "      - uses: actions/checkout@v4\n"
        "      - name: Train\n"
        "        run: |\n"
        "          set -x\n"
        "          python3 -m verl.trainer.main_ppo \\\n"
        "            --config-name=ppo_megatron_trainer \\\n"
        "            actor_rollout_ref.actor.megatron.use_mbridge=False \\\n"
        "            trainer.total_epochs=1\n")
    result = check(WORKFLOW, before)
    assert result.kind == "workflow"
    assert found(result) == [(13, "fixable")]
    assert after(result, before) == before.replace("use_mbridge=False", "use_mbridge=True")


def test_workflow_single_line_run() -> None:
    before = workflow("      - run: python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False"
                      " trainer.total_epochs=1\n")
    result = check(WORKFLOW, before)
    assert found(result) == [(7, "fixable")]
    assert after(result, before) == before.replace("use_mbridge=False", "use_mbridge=True")


def test_workflow_double_quoted_run() -> None:
    before = workflow('      - run: "python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False"\n')
    result = check(WORKFLOW, before)
    assert after(result, before) == before.replace("use_mbridge=False", "use_mbridge=True")


def test_workflow_folded_run_block() -> None:
    before = workflow(
        "      - name: folded\n"
        "        run: >\n"
        "          python3 -m verl.trainer.main_ppo\n"
        "          critic.megatron.use_mbridge=False\n"
        "          trainer.total_epochs=1\n")
    result = check(WORKFLOW, before)
    assert [f.status for f in result.findings] == [Status.FIXABLE]
    assert after(result, before) == before.replace("use_mbridge=False", "use_mbridge=True")


@pytest.mark.parametrize("indicator", [" >", ""])
def test_workflow_folded_run_reports_the_file_line(indicator: str) -> None:
    first = "\n          " if indicator else " "
    before = workflow(f"      - run:{indicator}{first}python3 -m verl.trainer.main_ppo\n"
                      "          trainer.total_epochs=1\n"
                      "          critic.megatron.use_mbridge=False\n")
    result = check(WORKFLOW, before)
    line = before[: before.index("critic.")].count("\n") + 1
    assert [(f.line, f.column) for f in result.findings] == [(line, 11)]
    assert result.findings[0].fix_site == (WORKFLOW, line)


def test_workflow_folded_run_ensure_stays_one_line() -> None:
    """In a folded scalar the script is one line: a `\\`-newline continuation would become `\\ `."""
    from ruamel.yaml import YAML

    before = workflow(
        "      - run: >\n"
        "          python3 -m verl.trainer.main_ppo\n"
        "          actor_rollout_ref.actor.megatron.param_offload=True\n"
        "          trainer.total_epochs=1\n")
    result = check(WORKFLOW, before, "npu-flash-attn-demo")
    script = YAML(typ="safe").load(after(result, before))["jobs"]["megatron"]["steps"][0]["run"]
    assert script == ("python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.param_offload=True "
                      "+actor_rollout_ref.actor.megatron.override_transformer_config.use_flash_attn=True "
                      "trainer.total_epochs=1\n")


def test_workflow_crlf_run_block() -> None:
    before = workflow("      - run: |\n          python3 -m verl.trainer.main_ppo \\\n"
                      "            critic.megatron.use_mbridge=False\n").replace("\n", "\r\n")
    result = check(WORKFLOW, before.encode())
    assert result.change is not None
    assert result.change.after == before.replace("use_mbridge=False", "use_mbridge=True").encode()


def test_workflow_non_ascii_offsets() -> None:
    before = ('name: "🚀 Megatron e2e — Größe"\non: push\nenv:\n  MB: False\njobs:\n  a:\n    name: "训练 ✓"\n'
              "    runs-on: x\n    steps:\n      - name: \"Schritt ① – läuft\"\n        run: |\n"
              '          echo "开始 ✓"; python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False '
              "trainer.experiment_name=模型 actor_rollout_ref.actor.megatron.use_mbridge=$MB\n")
    result = check(WORKFLOW, before)
    assert [(f.line, f.column) for f in result.findings] == [(12, 57), (12, 118)]  # columns count characters
    assert after(result, before) == before.replace("use_mbridge=False", "use_mbridge=True").replace(
        "MB: False", "MB: True")


# ---------------------------------------------------------------- workflows: env maps and expressions


def test_workflow_job_and_step_env_values_fixed_in_place() -> None:
    before = workflow(
        "      - name: step env\n"
        "        env:\n"
        '          REF_MBRIDGE: "false"\n'
        "        run: |\n"
        "          python3 -m verl.trainer.main_ppo \\\n"
        "            actor_rollout_ref.actor.megatron.use_mbridge=$MBRIDGE \\\n"
        "            actor_rollout_ref.ref.megatron.use_mbridge=${REF_MBRIDGE} \\\n"
        "            critic.megatron.use_mbridge=$CRITIC_MB\n",
        top="env:\n  MBRIDGE: False\n").replace(
        "    runs-on: [self-hosted, gpu]\n", "    runs-on: [self-hosted, gpu]\n    env:\n      CRITIC_MB: 'False'\n")
    result = check(WORKFLOW, before)
    assert found(result) == [(16, "fixable"), (17, "fixable"), (18, "fixable")]
    assert [f.message.split("(line ")[1][:2] for f in sorted(result.findings, key=lambda f: f.line)] == [
        "4)", "13", "9)"]
    assert after(result, before) == (before.replace("MBRIDGE: False", "MBRIDGE: True")
                                     .replace('REF_MBRIDGE: "false"', 'REF_MBRIDGE: "true"')
                                     .replace("CRITIC_MB: 'False'", "CRITIC_MB: 'True'"))


def test_workflow_step_env_shadows_workflow_env() -> None:
    before = workflow(
        "      - env:\n          MB: True\n"
        "        run: python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=$MB\n",
        top="env:\n  MB: False\n")
    result = check(WORKFLOW, before)
    assert result.findings == [] and result.change is None


def test_workflow_env_does_not_leak_between_steps_or_jobs() -> None:
    before = (
        "on: push\njobs:\n"
        "  a:\n    runs-on: x\n    env:\n      MB: False\n    steps:\n      - run: echo $MB\n"
        "  b:\n    runs-on: x\n    steps:\n"
        "      - env:\n          MB2: False\n        run: echo $MB2\n"
        "      - run: python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=$MB ref.megatron.use_mbridge=$MB2\n")
    result = check(WORKFLOW, before)
    assert found(result) == [(15, "manual"), (15, "manual")]
    assert result.change is None


def test_workflow_matrix_expression_is_manual() -> None:
    before = workflow(
        "      - run: |\n"
        "          python3 -m verl.trainer.main_ppo \\\n"
        "            trainer.experiment_name=mb-${{ matrix.mbridge }}-${{ github.run_id }} \\\n"
        "            actor_rollout_ref.actor.megatron.use_mbridge=${{ matrix.mbridge }}\n").replace(
        "    steps:\n", "    strategy:\n      matrix:\n        mbridge: [False, True]\n    steps:\n")
    result = check(WORKFLOW, before)
    assert found(result) == [(13, "manual")]
    assert "${{ matrix.mbridge }}" in result.findings[0].message
    assert "GH_EXPR" not in result.findings[0].message
    assert result.change is None


def test_workflow_expression_elsewhere_on_the_line_keeps_offsets() -> None:
    before = workflow("      - run: python3 -m verl.trainer.main_ppo trainer.experiment_name=${{ github.run_id }}-"
                      "${{ matrix.model }} critic.megatron.use_mbridge=False\n")
    result = check(WORKFLOW, before)
    assert after(result, before) == before.replace("use_mbridge=False", "use_mbridge=True")


def test_workflow_env_expression_value_is_manual() -> None:
    before = workflow("      - env:\n          MB: ${{ inputs.mbridge }}\n"
                      "        run: python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=$MB\n")
    result = check(WORKFLOW, before)
    assert found(result) == [(9, "manual")]
    assert result.change is None


def test_workflow_python_steps_are_ignored() -> None:
    launch = "python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False"
    before = (
        "on: push\ndefaults:\n  run:\n    shell: python\njobs:\n  a:\n    runs-on: x\n    steps:\n"
        f"      - run: print('{launch}')\n"
        f"      - shell: python\n        run: |\n          import subprocess\n"
        f"          subprocess.run('{launch}', shell=True)\n"
        f"      - shell: pwsh\n        run: {launch}\n"
        f"      - shell: bash\n        run: {launch}\n")
    result = check(WORKFLOW, before)
    assert found(result) == [(17, "fixable")]
    assert after(result, before) == before[: before.rindex(launch)] + launch.replace("False", "True") + "\n"


def test_workflow_step_env_after_run() -> None:
    before = workflow("      - name: env after run\n"
                      "        run: python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.megatron.use_mbridge=$MB\n"
                      "        env:\n          MB: False\n")
    result = check(WORKFLOW, before)
    assert found(result) == [(8, "fixable")]
    assert after(result, before) == before.replace("MB: False", "MB: True")


def test_workflow_job_env_after_steps() -> None:
    before = ("on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n"
              "      - run: python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=$MB\n"
              "    env:\n      MB: False\n")
    result = check(WORKFLOW, before)
    assert found(result) == [(6, "fixable")]
    assert after(result, before) == before.replace("MB: False", "MB: True")


def test_workflow_step_env_after_run_shadows_workflow_env() -> None:
    before = workflow("      - run: python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=$MB\n"
                      "        env:\n          MB: True\n"
                      '      - run: echo "MB is $MB"\n', top="env:\n  MB: False\n")
    result = check(WORKFLOW, before)
    assert result.findings == [] and result.change is None


def test_workflow_env_value_holding_an_override() -> None:
    before = workflow("      - run: python3 -m verl.trainer.main_ppo $MB_ARG\n",
                      top="env:\n  MB_ARG: critic.megatron.use_mbridge=False\n")
    result = check(WORKFLOW, before)
    assert found(result) == [(4, "fixable")]
    assert after(result, before) == before.replace("use_mbridge=False", "use_mbridge=True")


def test_workflow_aliased_run_is_reported_once() -> None:
    before = ("on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: &train |\n"
              "          python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False\n"
              "  b:\n    runs-on: x\n    steps:\n      - run: *train\n")
    result = check(WORKFLOW, before)
    assert after(result, before) == before.replace("use_mbridge=False", "use_mbridge=True")
    assert found(result) == [(7, "fixable")]


# ---------------------------------------------------------------- notebooks


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def notebook(*cells: dict[str, Any]) -> dict[str, Any]:
    return {"cells": list(cells),
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                         "language_info": {"name": "python", "version": "3.10.12"},
                         "widgets": {"application/vnd.jupyter.widget-state+json": {"state": {}}}},
            "nbformat": 4, "nbformat_minor": 5}


def cell(kind: str, source: str, cid: str, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"cell_type": kind, "id": cid, "metadata": {"tags": ["demo"]}, "source": _lines(source)}
    if kind == "code":
        out.update({"execution_count": extra.pop("n", None), "outputs": extra.pop("outputs", [])})
    out.update(extra)
    return out


def jupyter(nb: dict[str, Any]) -> bytes:
    return (json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode()


def without_sources(nb: dict[str, Any]) -> dict[str, Any]:
    stripped = copy.deepcopy(nb)
    for c in stripped["cells"]:
        c.pop("source")
    return stripped


NB = notebook(
    cell("markdown", "# Megatron GRPO — démarrage rapide 🚀\n\n"
                     "Old docs: `actor_rollout_ref.actor.megatron.use_mbridge=False`.", "m1"),
    cell("code", "import os\nos.environ['MODEL_PATH'] = 'Qwen/Qwen2.5-0.5B'  # модель", "c1", n=1),
    cell("code",
         "# 训练\n"
         "!python3 -m verl.trainer.main_ppo \\\n"
         "    actor_rollout_ref.model.path=$MODEL_PATH \\\n"
         "    actor_rollout_ref.actor.megatron.use_mbridge=False \\\n"
         "    trainer.experiment_name='grpo-\"例\"' \\\n"
         "    trainer.total_epochs=1",
         "c2", n=2,
         outputs=[{"name": "stdout", "output_type": "stream",
                   "text": ["actor_rollout_ref.actor.megatron.use_mbridge=False\n"]},
                  {"data": {"text/plain": ["'use_mbridge=False'"]}, "execution_count": 2, "metadata": {},
                   "output_type": "execute_result"}]),
    cell("code", "%%bash\nMB=False\npython3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=$MB", "c3", n=3),
    cell("raw", "!python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False", "r1"),
)


def test_notebook_edit_keeps_every_byte_outside_the_edited_strings() -> None:
    before = jupyter(NB)
    result = check("tutorial.ipynb", before)
    assert found(result) == [(14, "manual"), (64, "fixable"), (82, "fixable")]  # 14: a note in markdown prose
    assert result.change is not None
    out = result.change.after
    new = json.loads(out)
    assert without_sources(new) == without_sources(NB)
    assert [c["source"] for i, c in enumerate(new["cells"]) if i not in (2, 3)] == [
        c["source"] for i, c in enumerate(NB["cells"]) if i not in (2, 3)]
    old_line = json.dumps("    actor_rollout_ref.actor.megatron.use_mbridge=False \\\n", ensure_ascii=False)
    new_line = json.dumps("    actor_rollout_ref.actor.megatron.use_mbridge=True \\\n", ensure_ascii=False)
    old_var, new_var = json.dumps("MB=False\n"), json.dumps("MB=True\n")
    assert out.count(new_line.encode()) == 1 and out.count(new_var.encode()) == 1
    assert out.replace(new_line.encode(), old_line.encode()).replace(new_var.encode(), old_var.encode()) == before


def test_notebook_inserted_line_is_its_own_json_string() -> None:
    nb = notebook(cell("code", "!python3 -m verl.trainer.main_ppo \\\n"
                               "    actor_rollout_ref.actor.megatron.param_offload=True \\\n"
                               "    trainer.total_epochs=1", "c1"))
    before = jupyter(nb)
    result = check("flash.ipynb", before, "npu-flash-attn-demo")
    assert result.change is not None
    expected = copy.deepcopy(nb)
    expected["cells"][0]["source"].insert(
        2, "    +actor_rollout_ref.actor.megatron.override_transformer_config.use_flash_attn=True \\\n")
    assert result.change.after == jupyter(expected)


def test_notebook_inserted_line_at_cell_end_without_final_newline() -> None:
    nb = notebook(cell("code", "%%bash\npython3 -m verl.trainer.main_ppo \\\n"
                               "    actor_rollout_ref.actor.megatron.param_offload=True", "c1"))
    result = check("flash.ipynb", jupyter(nb), "npu-flash-attn-demo")
    assert result.change is not None
    expected = copy.deepcopy(nb)
    expected["cells"][0]["source"][-1] += " \\\n"
    expected["cells"][0]["source"].append(
        "    +actor_rollout_ref.actor.megatron.override_transformer_config.use_flash_attn=True")
    assert result.change.after == jupyter(expected)


def test_notebook_crlf_and_ascii_escaped_layouts_are_kept() -> None:
    nb = notebook(cell("code", "# Größe 模型\n!python3 -m verl.trainer.main_ppo \\\n"
                               "    actor_rollout_ref.actor.megatron.param_offload=True \\\n"
                               "    trainer.experiment_name=模型", "c1"))
    before = (json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=True) + "\n").replace("\n", "\r\n").encode()
    result = check("win.ipynb", before, "npu-flash-attn-demo")
    assert result.change is not None
    expected = copy.deepcopy(nb)
    expected["cells"][0]["source"].insert(
        3, "    +actor_rollout_ref.actor.megatron.override_transformer_config.use_flash_attn=True \\\n")
    assert result.change.after == (json.dumps(expected, sort_keys=True, indent=1, ensure_ascii=True)
                                   + "\n").replace("\n", "\r\n").encode()


def test_notebook_string_source_is_edited_as_one_string() -> None:
    nb = notebook(cell("code", "", "c1"))
    nb["cells"][0]["source"] = "!python3 -m verl.trainer.main_ppo \\\n    critic.megatron.use_mbridge=False"
    result = check("s.ipynb", jupyter(nb))
    expected = copy.deepcopy(nb)
    expected["cells"][0]["source"] = expected["cells"][0]["source"].replace("False", "True")
    assert result.change is not None and result.change.after == jupyter(expected)


def test_notebook_markdown_raw_and_outputs_are_not_read_as_shell() -> None:
    nb = notebook(NB["cells"][0], NB["cells"][4],
                  cell("code", "x = 1\nprint('!python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False')",
                       "c1", outputs=NB["cells"][2]["outputs"]))
    result = check("notes.ipynb", jupyter(nb))
    assert [(f.line, f.severity) for f in result.findings] == [(14, "note")]  # the markdown's prose literal
    assert result.change is None


def test_notebook_that_is_not_json_is_unreadable() -> None:
    result = check_file("broken.ipynb", b'{"cells": [', rule("megatron-use-mbridge"))
    assert result.unreadable is not None and result.change is None


def test_notebook_bang_inside_python_string_is_not_shell() -> None:
    nb = notebook(cell("code", 'doc = """\n!python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False\n"""\n'
                               "print(doc)", "c1"))
    result = check("doc.ipynb", jupyter(nb))
    assert result.change is None


# ---------------------------------------------------------------- Markdown and reStructuredText


def test_markdown_prompt_lines_edited_output_lines_not() -> None:
    before = ("```console\n"
              "$ python3 -m verl.trainer.main_ppo \\\n"
              "    critic.megatron.use_mbridge=False\n"
              "critic.megatron.use_mbridge=False\n"
              "$ python3 -m verl.trainer.main_ppo reward_model.megatron.use_mbridge=False\n"
              "python3 -m verl.trainer.main_ppo reward_model.megatron.use_mbridge=False\n"
              "```\n"
              "```bash\n"
              "$ python3 -m verl.trainer.main_ppo actor_rollout_ref.ref.megatron.use_mbridge=False\n"
              "actor_rollout_ref.ref.megatron.use_mbridge=False\n"
              "```\n")
    result = check("docs/run.md", before)
    assert found(result) == [(3, "fixable"), (5, "fixable"), (9, "fixable")]
    lines = after(result, before).splitlines()
    assert [i + 1 for i, line in enumerate(lines) if "use_mbridge=True" in line] == [3, 5, 9]
    assert [i + 1 for i, line in enumerate(lines) if "use_mbridge=False" in line] == [4, 6, 10]


def test_markdown_ensure_inside_prompt_continuation() -> None:
    before = ("```console\n$ python3 -m verl.trainer.main_ppo \\\n"
              "    actor_rollout_ref.actor.megatron.param_offload=True \\\n    trainer.total_epochs=1\nstep:0\n```\n")
    result = check("docs/run.md", before, "npu-flash-attn-demo")
    assert after(result, before) == before.replace(
        "param_offload=True \\\n",
        "param_offload=True \\\n"
        "    +actor_rollout_ref.actor.megatron.override_transformer_config.use_flash_attn=True \\\n")


def test_markdown_attribute_fence() -> None:
    before = "```{.bash}\npython3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False\n```\n"
    result = check("docs/run.md", before)
    assert after(result, before) == before.replace("False", "True")


def test_rst_caption_option_is_not_code() -> None:
    before = (".. code-block:: bash\n   :caption: was use_mbridge=False\n   :linenos:\n\n"
              "   python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False\n")
    result = check("docs/run.rst", before)
    assert found(result) == [(5, "fixable")]
    assert after(result, before) == before.replace("megatron.use_mbridge=False", "megatron.use_mbridge=True")


# ---------------------------------------------------------------- scan: per-kind counts


LAUNCH = "python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False"


def test_scan_counts_each_kind(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "run.sh": f"#!/bin/bash\n{LAUNCH}\n",
        "docs/guide.md": f"# Guide\n\n```bash\n{LAUNCH}\n```\n\n```console\n$ {LAUNCH}\n{LAUNCH}\n```\n",
        "docs/empty.md": "# Nothing to see\n",
        "docs/guide.rst": f"Guide\n=====\n\nRun::\n\n   {LAUNCH}\n",
        "nb/demo.ipynb": jupyter(notebook(cell("code", f"!{LAUNCH}", "c1"),
                                          cell("markdown", LAUNCH, "m1"))).decode(),
        ".github/workflows/e2e.yml": workflow(
            "      - run: python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=${{ matrix.mb }}\n"
            f"      - run: {LAUNCH}\n"),
    }
    root = make_repo(tmp_path / "repo", files)
    rules = [replace(r, enabled=r.id == "megatron-use-mbridge") for r in RULES.values()]
    report = scan(root, rules)
    counts = report.kind_counts()
    assert {kind: counts[kind] for kind in ("shell", "markdown", "rst", "notebook", "workflow")} == {
        "shell": {"files": 1, "parsed": 1, "findings": 1, "fixable": 1, "manual": 0, "notes": 0},
        "markdown": {"files": 2, "parsed": 1, "findings": 2, "fixable": 2, "manual": 0, "notes": 0},
        "rst": {"files": 1, "parsed": 1, "findings": 1, "fixable": 1, "manual": 0, "notes": 0},
        "notebook": {"files": 1, "parsed": 1, "findings": 1, "fixable": 1, "manual": 0, "notes": 0},
        "workflow": {"files": 1, "parsed": 1, "findings": 2, "fixable": 1, "manual": 1, "notes": 0},
    }
    assert {c.path for c in report.changes} == {"run.sh", "docs/guide.md", "docs/guide.rst", "nb/demo.ipynb",
                                                ".github/workflows/e2e.yml"}
    assert report.file_kinds["nb/demo.ipynb"] == "notebook"
    assert report.file_kinds[".github/workflows/e2e.yml"] == "workflow"


def test_rst_comments_are_not_read_but_directive_bodies_are() -> None:
    from bot.engine.check import check_file
    from bot.rules.loader import load_rules

    rules = [r for r in load_rules() if r.id == "megatron-use-mbridge"]
    src = (b".. highlight:: bash\n\n..\n   a comment that ends::\n\n"
           b"      python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False\n\n"
           b".. note::\n\n   .. code-block::\n\n"
           b"      python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=False\n")
    result = check_file("guide.rst", src, rules)
    assert [f.line for f in result.findings] == [12]


def test_console_continuation_prompts_are_shell() -> None:
    from bot.engine.check import check_file
    from bot.rules.loader import load_rules

    rules = [r for r in load_rules() if r.id == "megatron-use-mbridge"]
    src = (b"```console\n$ python3 -m verl.trainer.main_ppo \\\n> critic.megatron.use_mbridge=False\n"
           b"out use_mbridge=False\n```\n")
    result = check_file("guide.md", src, rules)
    assert result.change is not None
    old, new = b"> critic.megatron.use_mbridge=False", b"> critic.megatron.use_mbridge=True"
    assert result.change.after == src.replace(old, new)


def test_makefiles_are_found_by_name_and_their_recipes_read(tmp_path: Path) -> None:
    makefile = ("PY ?= python3\n\ntrain:\n\t@$(PY) -m verl.trainer.main_ppo "
                "actor_rollout_ref.actor.megatron.use_mbridge=False trainer.out=$$HOME/x\n"
                "notes:\n\techo actor_rollout_ref.actor.megatron.use_mbridge=False\n")
    repo = make_repo(tmp_path / "repo", {"Makefile": makefile, "sub/rules.mk": makefile, "sub/makefile.txt": makefile})
    report = scan(repo, rule("megatron-use-mbridge"))
    assert sorted((f.path, f.line, f.status.value) for f in report.findings) == [
        ("Makefile", 4, "fixable"), ("sub/rules.mk", 4, "fixable")]
    change = next(c for c in report.changes if c.path == "Makefile")
    assert change.after == makefile.replace("use_mbridge=False trainer", "use_mbridge=True trainer").encode()
    from bot.engine.launches import collect

    launches = collect(repo, "repo").launches
    assert [(launch.path, launch.entry) for launch in launches] == [
        ("Makefile", "verl.trainer.main_ppo"), ("sub/rules.mk", "verl.trainer.main_ppo")]


def test_each_recipe_line_of_a_makefile_is_a_shell_of_its_own() -> None:
    from bot.lang.embedded.makefile import makefile_views
    from bot.lang.shell.parse import analyse
    from bot.lang.shell.values import read_value

    makefile = (b"train:\n\tDS=cifar10\n\tpython3 -m app data.dataset=$$DS\nifeq ($(GPU),1)\n"
                b"\tpython3 -m app \\\n\t\t+trainer.seed=1\nendif\nhelp: ## show; python3 -m app x=1\n\t@echo help\n")
    views = makefile_views(makefile)
    assert len(views) == 4  # DS=..., the launch, the continued launch, echo
    launches = [launch for view in views for launch in analyse(view.text).launches]
    assert [(launch.line, [o.prefix + o.key for o in launch.overrides]) for launch in launches] == [
        (3, ["data.dataset"]), (5, ["+trainer.seed"])]  # a continuation keeps its `+`; `## show;` is a comment
    assert read_value(launches[0].overrides[0]).state == "dynamic"  # DS was set in another shell
    oneshell = makefile_views(b".ONESHELL:\ntrain:\n\tDS=cifar10\n\tpython3 -m app data.dataset=$$DS\n")
    (view,) = oneshell
    (launch,) = analyse(view.text).launches
    assert read_value(launch.overrides[0]).text == "cifar10"


def test_launches_names_a_workflow_env_value_by_its_line_in_the_file(tmp_path: Path) -> None:
    from bot.engine.launches import collect

    workflow = ("name: e2e\non: [push]\njobs:\n  megatron:\n    runs-on: ubuntu-latest\n    env:\n"
                "      HYDRA_FULL_ERROR: \"1\"\n      USE_MBRIDGE: \"False\"\n    steps:\n      - name: Run\n"
                "        env:\n          EPOCHS: \"2\"\n        run: |\n          python3 -m verl.trainer.main_ppo \\\n"
                "            actor_rollout_ref.actor.megatron.use_mbridge=$USE_MBRIDGE \\\n"
                "            trainer.total_epochs=$EPOCHS\n")
    root = make_repo(tmp_path / "repo", {".github/workflows/e2e.yml": workflow})
    (launch,) = collect(root, "repo").launches
    assert [o["source"] for o in launch.overrides] == ["from USE_MBRIDGE (line 8)", "from EPOCHS (line 12)"]
