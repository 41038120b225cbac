"""The plain-override fast path reads every text it accepts exactly as Hydra's own parser does."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.hydra.grammar import LEADING_DASH, HydraSyntaxError, Parsed, _fast, _parse_override, parse_override

PIECES = ["a", "b", "e", "E", "x", "_", "-", "+", ".", "/", "0", "1", "9", "00", "10", "1_0", "_1", "inf", "Inf",
          "nan", "NaN", "true", "False", "TRUE", "null", "Null", "none", "%", "*", "@", "?", "|", "e5", "e-3",
          "1e", ".5", "5.", "1.0", "-1", "+2", "=", "~", "$", "\\", " ", ":", ",", "'", "[", "{", "(", "é", "2e+7",
          "]", '"', "  ", "\t", "[]", "['", "']", ",[", "\"x\"", "'y z'"]
KEYS = ["a", "a.b", "a_b.c_d", "a-b.c", "x.0", "_x", "a.b.c", "A1.b2", "a..b", "a/b", "a@b", "1a", "$a", "a.$b", ""]


def same(fast: Parsed, hydra: Parsed) -> bool:
    head = (fast.prefix, fast.key, fast.package, fast.has_value, type(fast.value))
    if head != (hydra.prefix, hydra.key, hydra.package, hydra.has_value, type(hydra.value)):
        return False
    if isinstance(fast.value, float) and math.isnan(fast.value):
        return math.isnan(hydra.value)
    return bool(fast.value == hydra.value)


def check(text: str) -> None:
    fast = _fast(text)
    if fast is None:
        return
    try:
        hydra = _parse_override(text)
    except HydraSyntaxError as exc:
        raise AssertionError(f"{text!r}: fast path read {fast}, Hydra refuses it: {exc}") from None
    assert same(fast, hydra), (text, fast, hydra)


@settings(max_examples=3000, deadline=None)
@given(st.sampled_from(["", "+", "++", "~"]), st.sampled_from(KEYS), st.sampled_from(["=", "", "=="]),
       st.lists(st.sampled_from(PIECES), max_size=5))
def test_fast_path_agrees_with_hydra(prefix: str, key: str, equal: str, value: list[str]) -> None:
    check(prefix + key + equal + "".join(value))


ELEMENTS = ["x:  ", "  :", ": ", "1", "-2", "0.9", "1e3", "true", "null", "a", "a b", "x:y", "a/b.c", "'q'",
            '"q r"', "''", " 1 ", "", "[1]", "'a,b'", "$x", "a\\b", "{a:1}", "1,", "'", "inf", "1_0", "-"]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(ELEMENTS), max_size=4), st.sampled_from([",", ", ", " ,", " , "]),
       st.sampled_from(["", " "]))
def test_fast_lists_agree_with_hydra(elements: list[str], comma: str, pad: str) -> None:
    check(f"a.b=[{pad}{comma.join(elements)}{pad}]")


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PIECES + KEYS), max_size=5))
def test_a_leading_dash_is_refused_as_hydra_refuses_it(rest: list[str]) -> None:
    text = "-" + "".join(rest)
    with pytest.raises(HydraSyntaxError) as hydra:
        _parse_override(text)
    with pytest.raises(HydraSyntaxError) as fast:
        parse_override(text)
    assert str(fast.value) == str(hydra.value) == LEADING_DASH


def test_generated_texts_reach_the_fast_path() -> None:
    import random

    rng = random.Random(3)
    texts = [rng.choice(["", "+", "~"]) + rng.choice(KEYS) + "="
             + "".join(rng.choices(PIECES[:40], k=rng.randint(1, 4))) for _ in range(3000)]
    accepted = [t for t in texts if _fast(t) is not None]
    assert len(accepted) > 1000
    for text in accepted:
        check(text)


def test_fast_path_on_known_shapes() -> None:
    for value in ["False", "false", "True", "1e-5", "1e5", "1E+5", "0.5", ".5", "5.", "-1", "+1", "1_000", "010",
                  "0x10", "1.0.0", "inf", "-inf", "+nan", "Infinity", "nan_x", "null", "NULL", "nullx",
                  "$HOME/x", "a/b.json", "Qwen/Qwen2.5-7B", "vllm", "a-b", "-", "/", "1-2", "1e5x", "0_1",
                  "1__0", "1_", "_1", "a|b", "%x", "3.14e-2_0", "1.5_5"]:
        for prefix in ["", "+", "++", "~"]:
            check(f"{prefix}actor_rollout_ref.actor.x={value}")
    for text in ["~a.b", "a.b", "+a.b", "a.b=", "a=b=c", "a.b= 1"]:
        check(text)
    assert _fast("actor.use_mbridge=False") == Parsed("", "actor.use_mbridge", None, False, True)
    assert _fast("data.path=$HOME/x") is None  # interpolation-like text: Hydra's parser decides
    for text in ['trainer.logger=["console","wandb"]', "optim.betas=[0.9,0.95]", "a=", 'a="none"', "a=[]",
                 "p=uv -v run --frozen --extra vllm", "s=['model', 'extra']", "c=expandable_segments:True"]:
        assert _fast(text) is not None, text
        check(text)


def test_format_value_writes_mappings_hydra_reads_back() -> None:
    from bot.hydra.grammar import format_value

    values = [[{"requirements": "docs/requirements.txt"}], {"a": [1, {"b": 2}], "c": None, "d": "x y"},
              {"name": "gsm8k", "config": {}}, {"true": 1}, {"1a": 2}, {"x-y": [True, 0.5]}]
    for value in values:
        assert parse_override(f"k={format_value(value)}").value == value or isinstance(
            parse_override(f"k={format_value(value)}").value, str), value
    assert format_value([{"requirements": "docs/requirements.txt"}]) == "[{requirements:docs/requirements.txt}]"


def test_a_float_is_written_as_people_write_it_and_read_back_the_same() -> None:
    """`1e-5`, not Python's `1e-05`, on the command line and in YAML (where OmegaConf reads it as a float)."""
    from omegaconf import OmegaConf

    from bot.hydra.grammar import format_value
    from bot.lang.yaml.format import yaml_value

    for value, text in ((1e-5, "1e-5"), (1e-7, "1e-7"), (-2.5e-10, "-2.5e-10"), (1e20, "1e+20"), (0.001, "0.001")):
        assert format_value(value) == text and yaml_value(value, None, "title") == text
        assert parse_override(f"k={text}").value == value
        assert OmegaConf.create(f"k: {text}\n").k == value
