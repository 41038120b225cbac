"""Launches and overrides found by the real tree-sitter-bash parser, with spans and origins."""

from __future__ import annotations

from bot.lang.shell.launches import Launch
from bot.lang.shell.parse import analyse


def launches(src: str) -> list[Launch]:
    return analyse(src.encode()).launches


def keys(launch: Launch) -> list[str]:
    return [f"{o.prefix}{o.key}" for o in launch.overrides]


def test_launchers_and_entry_points() -> None:
    script = """\
python3 -m verl.trainer.main_ppo a=1
python -u -m verl.trainer.main_ppo b=1
torchrun --nnodes 2 --nproc_per_node=8 --standalone -m verl.trainer.sft_trainer c=1
ray job submit --address=http://x:8265 --runtime-env=r.yaml -- python3 -m verl.trainer.main_ppo d=1
python3 verl/trainer/main_ppo.py e=1
nohup env CUDA_VISIBLE_DEVICES=0 python3 -m verl.trainer.main_ppo f=1 > log 2>&1 &
$PYTHON -m verl.trainer.main_ppo g=1
python3 -m torch.distributed.run --nproc_per_node 4 -m verl.trainer.main_ppo h=1
echo python3 -m verl.trainer.main_ppo nope=1
python3 -c 'print(1)' nope=2
"""
    found = launches(script)
    assert [(launch.entry, launch.entry_kind) for launch in found] == [
        ("verl.trainer.main_ppo", "module"),
        ("verl.trainer.main_ppo", "module"),
        ("verl.trainer.sft_trainer", "module"),
        ("verl.trainer.main_ppo", "module"),
        ("verl/trainer/main_ppo.py", "script"),
        ("verl.trainer.main_ppo", "module"),
        ("verl.trainer.main_ppo", "module"),
        ("verl.trainer.main_ppo", "module"),
    ]
    assert [keys(launch) for launch in found] == [["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g"], ["h"]]
    assert found[4].module == "verl.trainer.main_ppo"
    assert found[3].launcher == "ray job submit"


def test_runners_of_containers_clusters_and_trainers_reach_the_entry_point() -> None:
    script = """\
composer train.py trainer.epochs=1
composer -n 8 train.py a=2
horovodrun -np 4 -H localhost:4 python train.py a=3
singularity exec --nv img.sif python3 -m lab.train a=4
apptainer exec img.sif torchrun --nproc_per_node 2 lab/train.py a=5
docker run --rm -v $PWD:/w img python3 lab/train.py a=6
python -m composer.cli.launcher -n 8 train.py a=7
python -m composer.cli.launcher -n 8 python3 -m lab.train a=8
uv run pytest tests/test_train.py -o log_cli=true
srun pytest tests/test_train.py
uv run --with pytest python -m lab.train a=9
srun -J git python -m lab.train a=10
docker run -v ~/.cache/pip:/root/.cache/pip img python -m lab.train a=11
poetry run mypy lab/train.py
uv run --frozen pytest tests/test_train.py
uv run -- pytest tests/test_train.py
conda create -n lab python=3.10 -y
docker build -f lab/train.py .
"""
    found = launches(script)
    assert [(launch.launcher, launch.entry, keys(launch)) for launch in found] == [
        ("composer", "train.py", ["trainer.epochs"]),
        ("composer", "train.py", ["a"]),
        ("horovodrun", "train.py", ["a"]),
        ("singularity", "lab.train", ["a"]),
        ("apptainer", "lab/train.py", ["a"]),
        ("docker", "lab/train.py", ["a"]),
        ("python -m composer.cli.launcher", "train.py", ["a"]),
        ("python -m composer.cli.launcher", "lab.train", ["a"]),
        ("uv", "lab.train", ["a"]),
        ("srun", "lab.train", ["a"]),
        ("docker", "lab.train", ["a"]),
    ]  # pytest and mypy take `.py` words and launch nothing; conda and docker launch only through `run`


def test_hydra_flags_are_not_overrides() -> None:
    (launch,) = launches(
        "python3 -m m --config-path=cfg --config-name ppo_megatron_trainer -cd extra a.b=1 --multirun c=2\n"
    )
    assert launch.config_path == "cfg" and launch.config_name == "ppo_megatron_trainer"
    assert launch.config_dir == "extra"
    assert keys(launch) == ["a.b", "c"]


def test_continuations_arrays_and_packed_strings() -> None:
    script = """\
ACTOR=(
    actor_rollout_ref.actor.megatron.use_mbridge=False
    # a comment between elements
    actor_rollout_ref.actor.optim.lr=1e-6 \\
)
PACK="engine.use_mbridge=False \\
  engine.tensor_model_parallel_size=2"
python3 -m verl.trainer.main_ppo \\
    "${ACTOR[@]}" $PACK \\
    +trainer.val_before_train=False \\
    ++x.y='["console","wandb"]' \\
    ~trainer.total_epochs "$@" 2>&1 | tee log.txt
"""
    (launch,) = launches(script)
    assert keys(launch) == [
        "actor_rollout_ref.actor.megatron.use_mbridge",
        "actor_rollout_ref.actor.optim.lr",
        "engine.use_mbridge",
        "engine.tensor_model_parallel_size",
        "+trainer.val_before_train",
        "++x.y",
        "~trainer.total_epochs",
    ]
    by_key = {o.key: o for o in launch.overrides}
    assert by_key["actor_rollout_ref.actor.megatron.use_mbridge"].line == 2
    assert by_key["engine.tensor_model_parallel_size"].line == 7
    assert by_key["engine.use_mbridge"].container() == "scalar PACK (line 6)"
    assert by_key["x.y"].value_text == '["console","wandb"]'
    assert launch.caller_args
    src = script.encode()
    span = by_key["engine.use_mbridge"].key_span
    assert span is not None and src[span.start : span.end] == b"engine.use_mbridge"


def test_quoted_array_is_not_word_split_but_unquoted_pack_is() -> None:
    script = 'A=("x.a=1 x.b=2")\nP="y.a=1 y.b=2"\npython3 -m m "${A[@]}" "$P" $P\n'
    (launch,) = launches(script)
    assert [o.text for o in launch.overrides] == ["x.a=1 x.b=2", "y.a=1 y.b=2", "y.a=1", "y.b=2"]


def test_variable_origins() -> None:
    script = """\
A=False
export B=${B:-False}
: "${C:=False}"
if [ "$X" = 1 ]; then D=False; else D=True; fi
python3 -m m a=$A b=${B} c=$C d=$D e=$1 f="${F:-False}" g=$(echo 1)
"""
    (launch,) = launches(script)
    values = {o.key: [(p.text, p.dynamic is None, p.default_of) for p in o.value_pieces] for o in launch.overrides}
    assert values["a"] == [("False", True, None)]
    assert values["b"] == [("False", True, "B")]
    assert values["c"] == [("False", True, "C")]
    assert values["f"] == [("False", True, "F")]
    assert values["e"][0][1] is False and values["g"][0][1] is False
    assert sorted(o.value_text or "" for o in launch.overrides if o.key == "d") == ["False", "True"]


def test_functions_loops_and_case_branches() -> None:
    script = """\
run() {
    python3 -m verl.trainer.main_ppo a=$1 "$@"
}
for m in 1 2; do
    torchrun -m verl.trainer.main_ppo b=$m
done
case "$BACKEND" in
  megatron) python3 -m verl.trainer.main_ppo c=1 ;;
  *) python3 -m verl.trainer.main_ppo c=2 ;;
esac
"""
    found = launches(script)
    assert [keys(launch) for launch in found] == [["a"], ["b", "b"], ["c"], ["c"]]
    assert found[0].site.in_function == "run"
    assert found[2].branch is not None and "megatron" in found[2].branch


def test_a_loop_variable_takes_every_field_of_its_list() -> None:
    """`for x in "${A[@]}"` and `for x in $LIST` run the body once per element, not once per word."""
    script = """\
ENGINES=("vllm" "sglang_old")
for e in "${ENGINES[@]}"; do
    python3 -m verl.trainer.main_ppo rollout.name="${e}"
done
MODES="sync async"
for m in $MODES; do
    python3 -m verl.trainer.main_ppo rollout.mode=$m
done
for q in "one two"; do
    python3 -m verl.trainer.main_ppo q="$q"
done
"""
    found = launches(script)
    assert [sorted(o.value_text or "" for o in launch.overrides) for launch in found] == [
        ["sglang_old", "vllm"], ["async", "sync"], ["one two"]]
    split_elsewhere = launches('IFS=,\nMODES=sync,async\nfor m in $MODES; do\n'
                               '    python3 -m verl.trainer.main_ppo mode="$m"\ndone\n')
    assert [o.field.static for o in split_elsewhere[0].overrides] == [False]  # the script's IFS: not followed


def test_an_array_spread_into_another_keeps_its_elements() -> None:
    """`B=("${A[@]}" x)` and `B=(${A[@]} x)` hold A's elements one by one, as bash has them."""
    script = """\
common=(rollout.n=1 rollout.name=sglang_old)
args=("${common[@]}" trainer.a=1)
python3 -m verl.trainer.main_ppo "${args[@]}"
loose=(${common[@]} trainer.b=2)
python3 -m verl.trainer.main_ppo "${loose[@]}"
"""
    found = launches(script)
    assert [[o.text for o in launch.overrides] for launch in found] == [
        ["rollout.n=1", "rollout.name=sglang_old", "trainer.a=1"],
        ["rollout.n=1", "rollout.name=sglang_old", "trainer.b=2"]]


def test_a_blank_after_the_backslash_cuts_the_launch_short() -> None:
    """`\\ ` is an escaped blank to bash, not a line continuation: the launch ends on that line."""
    script = (
        "python3 -m m a=1 \\  # a comment\n    b=2 \\\n    c=3\n"  # cut at line 1
        "python3 -m m d=1 \\ \r\n    e=2\r\n"  # a trailing blank, CRLF: cut at line 4
        "python3 -m m f=1 \\\n    g=2\n"  # a real continuation
        "python3 -m m h=1 \\ \n\n"  # nothing follows: nothing was cut
        "python3 -m m i=1 \\\t\n# a comment line\n"
        "python3 -m m j=pow\\  # the blank is in the word\n    k=2\n"  # cut at line 12
        "python3 -m m l=1 > log.txt \\ \n    m=2\n"  # after a redirection: cut at line 14
        "python3 -m m n=1 \\\\ \n    o=2\n"  # an escaped backslash, then a blank: the line simply ends
        "python3 -m m p=1 > log_\\ \necho done\n"  # a file's name that ends in a blank: not a continuation
    )
    found = launches(script)
    assert [(keys(launch), launch.cut_short) for launch in found] == [
        (["a"], 1), (["d"], 4), (["f", "g"], None), (["h"], None), (["i"], None), (["j"], 12), (["l"], 14),
        (["n"], None), (["p"], None)]


def test_partly_parsed_file_reports_error_lines() -> None:
    script = 'X=${Y:-$(((A+B)*2)}\npython3 -m m a=1 \\\n    b=2\n\n\npython3 -m m c=3\n'
    result = analyse(script.encode())
    assert result.partly_parsed
    assert 1 in result.error_lines() and 6 not in result.error_lines()
    assert ["c"] in [keys(launch) for launch in result.launches]


def test_known_parser_quirks_are_read_through_a_masked_copy() -> None:
    script = ("N=${N:-$(((A + B) * 2))}\nL=${L:-['npu','cpu']}\n"
              "python3 -m m n=$N l=$L\n")
    result = analyse(script.encode())
    assert not result.partly_parsed
    (launch,) = result.launches
    n, lst = launch.overrides
    assert [p.dynamic for p in n.value_pieces] == ["computed by shell arithmetic"]
    assert "".join(p.text for p in lst.value_pieces) == "[npu,cpu]"  # read from the original bytes


def test_escaped_space_and_crlf() -> None:
    script = "python3 -m m a.b=x\\ y \\\r\n    c.d=1\r\n"
    (launch,) = launches(script)
    assert [o.text for o in launch.overrides] == ["a.b=x y", "c.d=1"]


def test_hydra_flag_table_is_hydras_own() -> None:
    from bot.lang.shell.hydra_flags import HYDRA_FLAGS, parser_flags

    assert parser_flags() == HYDRA_FLAGS


def test_a_value_set_by_a_command_shows_as_its_variable() -> None:
    script = analyse(b"read -r MODE < mode.txt\npython3 -m app run.mode=$MODE\n")
    (launch,) = script.launches
    (override,) = launch.overrides
    assert override.text == "run.mode=${MODE}"  # not the `read` command's own text
    pieces = override.value_pieces
    assert pieces and pieces[0].dynamic == "set by `read`"


def test_a_script_run_by_bash_c_is_read_in_place() -> None:
    src = (b'LR=1e-6\nsrun singularity exec img bash -c "\n  cd /w \\\n  && python3 -m app \\\n'
           b'    optim.lr=$LR \\\n    trainer.nodes=$((N * 2))\n"\n'
           b"bash -lc 'X=3; python3 train.py a.b=$X c=$LR'\n")
    script = analyse(src)
    first, second = script.launches
    assert first.entry == "app" and [o.text for o in first.overrides] == ["optim.lr=1e-6", "trainer.nodes=$((N * 2))"]
    lr = first.overrides[0]
    assert src[lr.key_span.start : lr.key_span.end] == b"optim.lr"  # the file's own offsets
    assert second.entry == "train.py"
    by_key = {o.key: o for o in second.overrides}
    assert by_key["a.b"].text == "a.b=3"  # the inner shell's own variable
    assert by_key["c"].value_pieces[0].dynamic  # single quotes: LR was not exported, the inner shell lacks it
    assert not script.errors


def test_a_bash_c_string_the_inner_shell_reads_otherwise_than_written_is_not_read() -> None:
    unread = [
        b'sh -c "python3 -m app a.b=\\"x\\""\n',  # an escaped quote
        b'bash -c "python3 -m app a.b=$(date)"\n',  # the outer shell runs the substitution
        b'USE=false; srun bash -c "USE=true; python3 -m app use=$USE"\n',  # the outer USE is the one read
        b'bash -c "for s in 1 2; do python3 -m app seed=$s; done"\n',  # $s is the outer (empty) s
        b'A=(x=1 y=2); bash -c "python3 -m app ${A[@]}"\n',  # split by the outer shell: y=2 is $0
        b"V=1; bash -c \"python3 -m app 'v=$V'\"\n",  # the outer shell expands $V inside the single quotes
        b'echo sh -c "python3 -m app a=1" >> job.txt\n',  # printed, not run
        b'ssh node bash -c "python3 -m app a=1"\n',  # joined into one line by ssh: the quotes are lost
    ]
    for src in unread:
        script = analyse(src)
        assert not script.launches and not script.errors, src


def test_an_edit_inside_a_bash_c_string_may_not_hold_what_the_outer_shell_reads() -> None:
    from bot.lang.shell.inline import inline_quoting_line
    from bot.model import Span

    src = b"bash -c 'python3 -m app a=1'\nbash -c \"python3 -m app b=2\"\n"
    script = analyse(src)
    single, double = src.index(b"a=1") + 2, src.index(b"b=2") + 2
    assert inline_quoting_line(script, [(Span(single, single + 1), "[x, y]")]) is None
    assert inline_quoting_line(script, [(Span(single, single + 1), "'[x, y]'")]) == 1  # closes the string
    assert inline_quoting_line(script, [(Span(double, double + 1), "'[x, y]'")]) is None
    assert inline_quoting_line(script, [(Span(double, double + 1), '"x"')]) == 2
    assert inline_quoting_line(script, [(Span(double, double + 1), "${HOME}")]) == 2  # expanded outside
    assert inline_quoting_line(script, [(Span(double, double + 1), "3 \\\n  c=4")]) is None  # a continuation


def test_a_bash_c_string_that_hands_a_variable_on_under_its_own_name_is_read() -> None:
    src = b'T=8\nsrun bash -c "T=$T OMP=$T python3 -m app threads=$((T * 2)) n=$T"\n'
    script = analyse(src)
    assert [o.text for o in script.launches[0].overrides][-1] == "n=8"


def test_a_single_quoted_bash_c_string_reads_what_the_inner_shell_inherits() -> None:
    def value(src: bytes) -> str:
        (launch,) = analyse(src).launches
        (override,) = launch.overrides
        return "run time" if override.value_pieces[0].dynamic else override.text

    assert value(b"export A=1\nbash -c 'python3 -m app a=$A'\n") == "a=1"
    assert value(b"A=1\nexport A\nbash -c 'python3 -m app a=$A'\n") == "a=1"
    assert value(b"A=1\nbash -c 'python3 -m app a=$A'\n") == "run time"  # not exported: empty inside
    assert value(b"A=2 bash -c 'python3 -m app a=$A'\n") == "a=2"  # set for the command itself
    assert value(b"set -a\nA=3\nbash -c 'python3 -m app a=$A'\n") == "a=3"
    assert value(b"export A=1\ndocker run img bash -c 'python3 -m app a=${A:-4}'\n") == "a=4"  # no env passed
    assert value(b"export A=1\nbash -c \"python3 -m app a=$A\"\n") == "a=1"  # expanded by the script itself
    assert value(b"export A=1\nexport -n A\nbash -c 'python3 -m app a=$A'\n") == "run time"
    assert value(b"export A=1\nunset A\nA=2\nbash -c 'python3 -m app a=$A'\n") == "run time"
    assert value(b"A=1\n( export A )\nbash -c 'python3 -m app a=$A'\n") == "run time"  # the subshell's
    assert value(b"A=1\nif [ -n \"$X\" ]; then export A; fi\nbash -c 'python3 -m app a=$A'\n") == "run time"
    assert value(b"export A=1\nsudo bash -c 'python3 -m app a=$A'\n") == "run time"  # sudo resets it
    assert value(b"export A=1\nenv A=2 bash -c 'python3 -m app a=$A'\n") == "run time"  # not followed
    assert value(b"V=5\nA=$V bash -c 'python3 -m app a=$A'\n") == "a=5"  # the script expands $V
    assert not analyse(b"timeout 60 ssh node bash -c 'python3 -m app a=1'\n").launches  # one line to ssh
    assert not analyse(b"srun echo bash -c 'python3 -m app a=1'\n").launches
    assert analyse(b"kubectl exec pod -- bash -c 'python3 -m app a=1'\n").launches


def test_words_after_a_redirections_file_are_arguments() -> None:
    """bash takes one word as a redirection's file and passes the words after it to the command;
    tree-sitter hangs them on the redirection."""
    script = analyse(b"python3 t.py > run.log a.b=1 2>&1 c.d=2\npython3 u.py e.f=3 >> out.txt\n"
                     b"python3 v.py g.h=4 < <(cat in) i.j=5\n")
    assert [[o.text for o in launch.overrides] for launch in script.launches] == [
        ["a.b=1", "c.d=2"], ["e.f=3"], ["g.h=4", "i.j=5"]]


def test_a_comment_line_cuts_a_launch_only_where_an_indented_override_or_option_follows() -> None:
    script = """\
python3 -m lab.train \\
    a=1 \\
    # b=2
    c=3
for x in 1 2; do
    python3 -m lab.train \\
        d=1 \\
        # e=2
    python3 -m lab.eval \\
        f=1
done
python3 -m lab.train \\
    g=1 \\
    # heading
    --flag x
"""
    found = launches(script)
    assert [(launch.line, launch.cut_short) for launch in found] == [(1, 3), (6, None), (9, None), (12, 14)]


def test_a_line_without_its_backslash_cuts_a_launch_where_a_deeper_option_or_dotted_override_follows() -> None:
    script = """\
python3 -m lab.train a=1
    --multirun b.c=1,2 \\
    d.e=3
python3 -m lab.train a=1  # a note
    +f=1
python3 -m lab.train a=1
    LOG=1
python3 -m lab.train a=1
python3 -m lab.eval --flag
  if true; then
  python3 -m lab.train a=1
  fi
"""
    found = launches(script)
    assert [(launch.line, launch.cut_short, launch.cut_by) for launch in found] == [
        (1, 1, "line end"), (4, 4, "line end"), (6, None, "blank"), (8, None, "blank"), (9, None, "blank"),
        (11, None, "blank")]
    assert [o.key for o in found[0].stranded] == ["b.c", "d.e"]
