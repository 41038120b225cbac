"""Property-based tests: generated verl-shaped launch scripts with planted violations.

Each generated script records where every violation was planted (the line of that key occurrence).
For every script and rule set the bot must not crash, must find every planted violation (and
nothing it was not shown), and any change it makes must re-parse, keep every byte outside the
edited spans, keep line endings and the final newline, and be stable under a second run.

CI runs a fixed seed (derandomize) with BOT_PROPERTY_EXAMPLES examples (2,000 by default);
scripts/long_property_run.py runs a longer random-seed campaign.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from bot.engine.check import check_file
from bot.engine.edits import unique_edits
from bot.lang.shell.parse import count_errors
from bot.model import Edit, FileResult, Finding, Status
from bot.rules.loader import load_rules
from tests.conftest import RULE_DEFS

EXAMPLES = int(os.environ.get("BOT_PROPERTY_EXAMPLES", "2000"))
DERANDOMIZE = os.environ.get("BOT_PROPERTY_RANDOM", "") == ""

MBRIDGE = "megatron-use-mbridge"
ROLES = ["actor_rollout_ref.actor", "actor_rollout_ref.ref", "critic"]
TEST_RULES = ["drop-dynamic-bsz", "mm-cache-map", "optim-warmup-rename", "rollout-name-ensure",
              "val-before-train-prefix"]
ENSURE_RULES = {"rollout-name-ensure", "megatron-flash-attn", "megatron-recompute-uniform"}

# rule set name -> (extra dirs, only, enable)
RULE_SETS: dict[str, tuple[bool, tuple[str, ...], tuple[str, ...]]] = {
    "mbridge": (False, (MBRIDGE,), ()),
    "bundled-all": (False, (), ("megatron-flash-attn", "megatron-recompute-uniform")),
    **{f"test:{rid}": (True, (MBRIDGE, rid), ()) for rid in TEST_RULES},
}


@cache
def rules_for(name: str) -> list:  # type: ignore[type-arg]
    with_defs, only, enable = RULE_SETS[name]
    rules = load_rules([RULE_DEFS] if with_defs else [], include_bundled=True, only=list(only), enable=list(enable))
    return [r for r in rules if r.enabled]


# ---------------------------------------------------------------- the script model


@dataclass(frozen=True)
class Planted:
    rule: str
    key: str  # the dotted key, without a Hydra prefix
    line: int  # 1-based line of the key occurrence
    how: str  # where and how it was written, for messages
    must_fix: bool


@dataclass
class Script:
    lines: list[str] = field(default_factory=list)
    planted: list[Planted] = field(default_factory=list)
    crlf: bool = False
    final_newline: bool = True

    @property
    def next_line(self) -> int:
        return len(self.lines) + 1

    def add(self, text: str) -> int:
        self.lines.append(text)
        return len(self.lines)

    def render(self) -> bytes:
        eol = "\r\n" if self.crlf else "\n"
        text = eol.join(self.lines)
        if self.final_newline:
            text += eol
        return text.encode()


FALSE_SPELLINGS = ["False", "false", "'False'", '"False"', "'false'"]
PACK_FALSE_SPELLINGS = ["False", "false", "'False'"]  # inside "..." a double-quoted value cannot appear
OTHER_OVERRIDES = [
    "data.train_batch_size=1024",
    "trainer.total_epochs=15",
    "actor_rollout_ref.actor.optim.lr=1e-6",
    "actor_rollout_ref.rollout.tensor_model_parallel_size=2",
    "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2",
    "actor_rollout_ref.ref.megatron.pipeline_model_parallel_size=1",
    "critic.megatron.virtual_pipeline_model_parallel_size=null",
    "trainer.logger='[\"console\",\"wandb\"]'",
    "actor_rollout_ref.model.path=\"${MODEL_PATH}\"",
    "trainer.default_local_dir='${oc.env:HOME}/ckpt'",
    "trainer.n_gpus_per_node=-1",
    # look-alikes that must not match megatron-use-mbridge
    "actor_rollout_ref.actor.mindspeed.use_mbridge=False",
    "critic.megatron.vanilla_mbridge=False",
    "+actor_rollout_ref.ref.megatron.vanilla_mbridge=false",
]
# a shell-quoted value cannot sit inside a packed "..." string
PACK_OVERRIDES = [o for o in OTHER_OVERRIDES if "'" not in o and '"' not in o and "${" not in o]
# (rule, key, written override); a literal must always be fixable
TEST_RULE_TRIGGERS = [
    ("optim-warmup-rename", "actor_rollout_ref.actor.optim.warmup_style",
     "actor_rollout_ref.actor.optim.warmup_style=cosine"),
    ("mm-cache-map", "actor_rollout_ref.rollout.disable_mm_preprocessor_cache",
     "actor_rollout_ref.rollout.disable_mm_preprocessor_cache=True"),
    ("drop-dynamic-bsz", "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz",
     "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True"),
    ("val-before-train-prefix", "trainer.val_before_train", "+trainer.val_before_train=False"),
]
LAUNCHERS = [
    "python3 -m verl.trainer.main_ppo",
    "python -m verl.trainer.main_ppo",
    "torchrun --nproc_per_node=8 -m verl.trainer.main_ppo",
    "python3 -m verl.trainer.main_ppo --config-path=config --config-name=ppo_megatron_trainer",
    "ray job submit --address=http://127.0.0.1:8265 -- python3 -m verl.trainer.main_ppo",
    "python3 verl/trainer/main_ppo.py",
]
WRAPPERS = {
    "if": (['if [ "$ENGINE" = megatron ]; then'], ["fi"]),
    "else": (['if [ "$ENGINE" = fsdp ]; then', "    echo fsdp", "else"], ["fi"]),
    "function": (["run_megatron() {"], ["}", "run_megatron"]),
    "loop": (["for seed in 1 2 3; do"], ["done"]),
    "case": (['case "$ENGINE" in', "  megatron)"], ["    ;;", "esac"]),
}
CONT = " \\"
TAILS = ["", " $@", ' "$@"', " 2>&1 | tee x.log", ' "$@" 2>&1 | tee "${LOG_DIR}/run.log"']
UNRELATED = [
    "echo \"starting\"",
    "# use_mbridge=False is what older scripts had",
    "set -x",
    "export CUDA_DEVICE_MAX_CONNECTIONS=1",
    "",
    "MODEL_PATH=${MODEL_PATH:-$HOME/models/Qwen2.5-7B}",
    "echo 'actor_rollout_ref.actor.megatron.use_mbridge=False'",
]


@dataclass
class Item:
    """One thing on the command line of a launch, before layout."""

    kind: str  # override | array | pack
    text: str = ""  # for an override
    planted: tuple[str, str, str, bool] | None = None  # rule, key, how, must_fix
    elements: list[Item] = field(default_factory=list)  # array/pack members
    comment_lines: list[int] = field(default_factory=list)  # array: comment before element i


class Names:
    def __init__(self) -> None:
        self.n = 0
        self.bool_vars: list[str] = []  # variables holding False, defined in this launch

    def new(self, stem: str) -> str:
        self.n += 1
        return f"{stem}{self.n}"


@st.composite
def violation(draw: st.DrawFn, role: str, names: Names, defs: list[str], in_pack: bool) -> Item:
    key = f"{role}.megatron.use_mbridge"
    prefix = draw(st.sampled_from(["", "", "", "+", "++"]))
    choices = ["literal", "literal", "var", "export", "default"] + ["shared"] * bool(names.bool_vars)
    source = "literal" if in_pack else draw(st.sampled_from(choices))
    if source == "shared":  # one variable feeding two matched keys: the fix goes to its definition
        var = draw(st.sampled_from(names.bool_vars))
        value = draw(st.sampled_from([f"${var}", f"${{{var}}}"]))
        how = f"shared variable {var}"
    elif source == "literal":
        value = draw(st.sampled_from(PACK_FALSE_SPELLINGS if in_pack else FALSE_SPELLINGS))
        how = f"literal {value}"
    else:
        var = names.new("USE_MBRIDGE_")
        literal = draw(st.sampled_from(["False", "false"]))
        if source == "var":
            defs.append(f"{var}={literal}")
        elif source == "export":
            defs.append(f"export {var}={literal}")
        else:
            defs.append(f"{var}=${{{var}:-{literal}}}")
        names.bool_vars.append(var)
        value = draw(st.sampled_from([f"${var}", f"${{{var}}}"]))
        how = f"{source} variable {var}"
    return Item("override", f"{prefix}{key}={value}", (MBRIDGE, key, how, True))


@st.composite
def plain_override(draw: st.DrawFn, names: Names, used_keys: set[str], free_roles: list[str], in_pack: bool) -> Item:
    choice = draw(st.integers(0, 9))
    if choice <= 1:
        rule, key, text = draw(st.sampled_from(TEST_RULE_TRIGGERS))
        if key not in used_keys:
            used_keys.add(key)
            return Item("override", text, (rule, key, "literal", True))
    if choice == 3 and names.bool_vars and not in_pack:
        # the same variable also feeds a key no rule matches: the fix must go to the override
        var = draw(st.sampled_from(names.bool_vars))
        return Item("override", f"actor_rollout_ref.actor.megatron.use_dist_checkpointing=${var}")
    if choice == 2 and free_roles:
        role = draw(st.sampled_from(free_roles))
        free_roles.remove(role)
        return Item("override", f"{role}.megatron.use_mbridge={draw(st.sampled_from(['True', 'true', 'True']))}")
    pool = PACK_OVERRIDES if in_pack else OTHER_OVERRIDES
    return Item("override", draw(st.sampled_from(pool)))


@st.composite
def launch_items(draw: st.DrawFn, names: Names, defs: list[str]) -> list[Item]:
    """The overrides of one launch, grouped into direct ones, arrays and packs."""
    roles = draw(st.lists(st.sampled_from(ROLES), unique=True, max_size=3))
    free_roles = [r for r in ROLES if r not in roles]
    used: set[str] = set()
    # decide a home for each violation: direct, array index, pack index
    n_arrays = draw(st.integers(0, 2))
    n_packs = draw(st.integers(0, 1))
    arrays = [Item("array") for _ in range(n_arrays)]
    packs = [Item("pack") for _ in range(n_packs)]
    direct: list[Item] = []
    for role in roles:
        home = draw(st.sampled_from(["direct"] + ["array"] * bool(arrays) + ["pack"] * bool(packs)))
        if home == "direct":
            direct.append(draw(violation(role, names, defs, in_pack=False)))
        elif home == "array":
            draw(st.sampled_from(arrays)).elements.append(draw(violation(role, names, defs, in_pack=False)))
        else:
            draw(st.sampled_from(packs)).elements.append(draw(violation(role, names, defs, in_pack=True)))
    groups = [(direct, False), *[(a.elements, False) for a in arrays], *[(p.elements, True) for p in packs]]
    for group, in_pack in groups:
        for _ in range(draw(st.integers(0, 3))):
            group.append(draw(plain_override(names, used, free_roles, in_pack)))
        order = draw(st.permutations(range(len(group))))
        group[:] = [group[i] for i in order]
    for array in arrays:
        array.comment_lines = draw(st.lists(st.integers(0, max(len(array.elements), 0)), max_size=2))
    items = direct + [a for a in arrays if a.elements] + [p for p in packs if p.elements]
    order = draw(st.permutations(range(len(items))))
    items = [items[i] for i in order]
    if not items:
        items = [Item("override", "trainer.total_epochs=1")]
    return items


def _plant(script: Script, item: Item, line: int, where: str = "line") -> None:
    if item.planted is None:
        return
    rule, key, how, must_fix = item.planted
    script.planted.append(Planted(rule, key, line, f"{how} in {where}", must_fix))


@st.composite
def write_array(draw: st.DrawFn, script: Script, array: Item, name: str) -> None:
    if len(array.elements) <= 3 and draw(st.integers(0, 4)) == 0:  # all on one line
        line = script.add(f"{name}=({' '.join(e.text for e in array.elements)})")
        for element in array.elements:
            _plant(script, element, line, "one-line array")
        return
    indent = draw(st.sampled_from(["    ", "\t", "  "]))
    stray = draw(st.booleans())
    script.add(f"{name}=(")
    for i, element in enumerate(array.elements):
        if i in array.comment_lines:
            script.add(f"{indent}# {draw(st.sampled_from(['memory', 'parallelism', 'use_mbridge=False here']))}")
        trailing = draw(st.sampled_from([" \\"] * stray + ["", "", "  # note", "   "]))
        if draw(st.integers(0, 5)) == 0:
            script.add("")
        line = script.add(f"{indent}{element.text}{trailing}")
        _plant(script, element, line, "array")
    if len(array.elements) in array.comment_lines:
        script.add(f"{indent}# end")
    script.add(")")


@st.composite
def write_pack(draw: st.DrawFn, script: Script, pack: Item, name: str) -> None:
    quote = draw(st.sampled_from(['"', '"', "'"]))
    elements = [e.text.replace("'", "") if quote == "'" else e.text for e in pack.elements]
    if quote == '"' and len(elements) > 1 and draw(st.booleans()):
        # spanning lines with a backslash inside the quotes
        indent = draw(st.sampled_from(["    ", "\t", ""]))
        for i, (text, element) in enumerate(zip(elements, pack.elements)):
            first, last = i == 0, i == len(elements) - 1
            line = script.add(f"{name}={quote}{text}{CONT}" if first else f"{indent}{text}{quote if last else CONT}")
            _plant(script, element, line, "pack")
        return
    line = script.add(f"{name}={quote}{' '.join(elements)}{quote}")
    for element in pack.elements:
        _plant(script, element, line, "pack")


@st.composite
def write_launch(draw: st.DrawFn, script: Script, names: Names) -> None:
    names.bool_vars = []
    defs: list[str] = []
    items = draw(launch_items(names, defs))
    for d in defs:
        script.add(d)
    if draw(st.booleans()):
        script.add(draw(st.sampled_from(UNRELATED)))
    words: list[tuple[str, Item | None]] = []
    for item in items:
        if item.kind == "override":
            words.append((item.text, item))
        elif item.kind == "array":
            name = names.new("ACTOR_ARGS_")
            draw(write_array(script, item, name))
            words.append((draw(st.sampled_from([f'"${{{name}[@]}}"', f'"${{{name}[@]}}"', f"${{{name}[@]}}"])), None))
        else:
            name = names.new("ENGINE_CONFIG_")
            draw(write_pack(script, item, name))
            words.append((draw(st.sampled_from([f"${name}", f"${{{name}}}"])), None))
    indent = draw(st.sampled_from(["    ", "    ", "\t", "  "]))
    tail = draw(st.sampled_from(TAILS))
    launcher = draw(st.sampled_from(LAUNCHERS))
    inline = draw(st.integers(0, 4)) == 0  # the first override on the launcher's line
    if not inline:
        script.add(f"{launcher} \\")
    for i, (word, item) in enumerate(words):
        last = i == len(words) - 1
        lead = f"{launcher} " if inline and i == 0 else indent
        line = script.add(f"{lead}{word}{tail if last else CONT}")
        if item is not None:
            _plant(script, item, line)


@st.composite
def heredoc(draw: st.DrawFn, script: Script) -> None:
    dash = draw(st.booleans())
    script.add(f"cat > /tmp/notes.txt <<{'-' if dash else ''}EOF")
    body = "\t" if dash else ""
    script.add(f"{body}actor_rollout_ref.actor.megatron.use_mbridge=False")
    script.add(f"{body}critic.megatron.use_mbridge=False \\")
    script.add(f"{body}trainer.total_epochs=$EPOCHS")
    script.add(f"{body}EOF" if not dash else "EOF")


@st.composite
def scripts(draw: st.DrawFn) -> Script:
    script = Script(crlf=draw(st.booleans()), final_newline=draw(st.booleans()))
    names = Names()
    if draw(st.booleans()):
        script.add("#!/usr/bin/env bash")
    for _ in range(draw(st.integers(0, 2))):
        script.add(draw(st.sampled_from(UNRELATED)))
    for n in range(draw(st.integers(1, 2))):
        if n:
            script.add(draw(st.sampled_from(["", "echo second run", "# megatron"])))
        wrapper = draw(st.sampled_from([None, None, *sorted(WRAPPERS)]))
        if wrapper is not None:
            opening, closing = WRAPPERS[wrapper]
            for text in opening:
                script.add(text)
            start = len(script.lines)
        draw(write_launch(script, names))
        if wrapper is not None:
            pad = draw(st.sampled_from(["", "    ", "\t"]))
            script.lines[start:] = [pad + text if text else text for text in script.lines[start:]]
            for text in closing:
                script.add(text)
        if draw(st.integers(0, 3)) == 0:
            draw(heredoc(script))
    for _ in range(draw(st.integers(0, 2))):
        script.add(draw(st.sampled_from(UNRELATED)))
    return script


# ---------------------------------------------------------------- the checks


def _fixable_edits(findings: list[Finding]) -> list[Edit]:
    """Collecting the edits is plumbing; the independent part is the remainder check below."""
    return unique_edits(findings)


def _remainder(data: bytes, spans: list[tuple[int, int]]) -> list[bytes]:
    """The bytes between the given spans (sorted, disjoint), in order."""
    out, pos = [], 0
    for start, end in spans:
        assert start >= pos, f"overlapping edits at byte {start}"
        out.append(data[pos:start])
        pos = end
    out.append(data[pos:])
    return out


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def check_outside_unchanged(before: bytes, after: bytes, findings: list[Finding]) -> None:
    edits = sorted(enumerate(_fixable_edits(findings)), key=lambda t: (t[1].span.start, t[1].span.end, t[0]))
    before_spans = [(e.span.start, e.span.end) for _, e in edits]
    after_spans = []
    shift = 0
    for _, e in edits:
        start = e.span.start + shift
        new = len(e.text.encode())
        after_spans.append((start, start + new))
        assert after[start : start + new] == e.text.encode(), f"edit text not at its place: {e}"
        shift += new - (e.span.end - e.span.start)
    assert len(after) == len(before) + shift
    assert _remainder(before, before_spans) == _remainder(after, after_spans), "bytes outside the edits changed"
    # and each replacement stays next to what its finding names
    for f in findings:
        if f.status is not Status.FIXABLE or f.rule in ENSURE_RULES:
            continue
        allowed = {f.line - 1, f.line, f.line + 1}
        if f.fix_site is not None:
            allowed.add(f.fix_site[1])
        for e in f.edits:
            first, last = _line_of(before, e.span.start), _line_of(before, max(e.span.start, e.span.end - 1))
            assert first in allowed and last in allowed, f"edit {e} strays from the finding at line {f.line}"


def check_script(script: Script, rule_set: str) -> None:
    data = script.render()
    rules = rules_for(rule_set)
    note(data.decode())
    result: FileResult = check_file("run.sh", data, rules)
    for f in result.findings:
        note(f"{f.rule} {f.status.value} line {f.line}: {f.key} {f.message}")
    active = {r.id for r in rules}

    # every planted violation is found at the right line
    for p in script.planted:
        if p.rule not in active:
            continue
        hits = [f for f in result.findings if f.rule == p.rule and f.key == p.key and f.line == p.line]
        assert hits, f"{p.rule}: {p.key} planted at line {p.line} ({p.how}) not found"
        for f in hits:
            if p.must_fix:
                assert f.status is Status.FIXABLE, f"{p.rule}: {p.key} at line {p.line} ({p.how}): {f.message}"
            elif f.status is Status.MANUAL:
                assert f.message, "a manual finding must give a reason"
    # and nothing else is reported by a match rule
    planted = {(p.rule, p.key, p.line) for p in script.planted}
    for f in result.findings:
        if f.rule in ENSURE_RULES:
            continue
        assert (f.rule, f.key, f.line) in planted, f"unexpected finding {f.rule} {f.key} at line {f.line}: {f.message}"

    if result.change is None:
        assert not _fixable_edits(result.findings), "fixable findings but no change"
        return
    before, after = result.change.before, result.change.after
    assert before == data
    assert count_errors(after) <= count_errors(before)
    check_outside_unchanged(before, after, result.findings)
    if script.crlf:
        assert after.count(b"\n") == after.count(b"\r\n"), "CRLF file got LF line endings"
    else:
        assert b"\r" not in after
    assert after.endswith(b"\n") == before.endswith(b"\n"), "final newline changed"
    again = check_file("run.sh", after, rules)
    assert again.change is None, "a second run changes the output again"
    assert not [f for f in again.findings if f.status is Status.FIXABLE]


SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=DERANDOMIZE,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                           HealthCheck.data_too_large],
)


@SETTINGS
@given(script=scripts())
def test_generated_scripts_hold_every_property(script: Script) -> None:
    for rule_set in sorted(RULE_SETS):
        note(f"rule set {rule_set}")
        check_script(script, rule_set)


@pytest.mark.parametrize("rule_set", sorted(RULE_SETS))
def test_every_rule_set_loads(rule_set: str) -> None:
    assert {r.id for r in rules_for(rule_set)} >= {MBRIDGE}
