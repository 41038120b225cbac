from __future__ import annotations

import itertools
import pickle
import re
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.rules.globs import GlobError, key_glob, path_glob


@pytest.mark.parametrize(
    ("pattern", "key", "expected"),
    [
        ("**.megatron.use_mbridge", "actor_rollout_ref.actor.megatron.use_mbridge", True),
        ("**.megatron.use_mbridge", "megatron.use_mbridge", True),
        ("**.megatron.use_mbridge", "actor_rollout_ref.actor.megatron.vanilla_mbridge", False),
        ("**.megatron.use_mbridge", "actor_rollout_ref.actor.mindspeed.use_mbridge", False),
        ("actor_rollout_ref.{actor,ref}.megatron.use_mbridge", "actor_rollout_ref.ref.megatron.use_mbridge", True),
        ("actor_rollout_ref.{actor,ref}.megatron.use_mbridge", "actor_rollout_ref.critic.megatron.use_mbridge", False),
        ("*.megatron.use_mbridge", "critic.megatron.use_mbridge", True),
        ("*.megatron.use_mbridge", "a.critic.megatron.use_mbridge", False),
        ("**.mindspeed.**", "actor_rollout_ref.actor.mindspeed.use_mbridge", True),
        ("a.**", "a.b.c", True),
        ("a.**", "ab.c", False),
        ("a.use_*", "a.use_mbridge", True),
        ("a.{b.c,d}", "a.b.c", True),
        ("a.{b.{c,d*},e}", "a.b.dx", True),  # nested braces, a star inside
        ("a.{b.{c,d*},e}", "a.b.e", False),
        ("a.{**,x}", "a.b.c", True),  # `**` alone in an alternative spans separators
        ("A.b", "a.b", False),  # case-sensitive
        ("a.b[0]", "a.b[0]", True),  # brackets are literal: no character classes
        ("a.b[0]", "a.b0", False),
        ("a.?", "a.b", True),
        ("a.?", "a.bc", False),
    ],
)
def test_key_globs(pattern: str, key: str, expected: bool) -> None:
    assert key_glob(pattern).matches(key) is expected


@pytest.mark.parametrize("bad", ["a..b", "a.{b,c", "a.b}", "a.**x", ".a", "a b", "a.{,b}", "a.{b,}", "a.{}",
                                 "a.{b,{c,}}", "a.{b**,c}", "a.{{b,c}", "{" * 101 + "a" + "}" * 101])
def test_bad_key_globs_are_rejected(bad: str) -> None:
    with pytest.raises(GlobError) as caught:
        key_glob(bad)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("bad", "expected"), [
    ("a.{b,c", "unclosed '{' in 'a.{b,c'"),
    ("a.b}", "unbalanced '}' in 'a.b}'"),
    ("a.{,b}", "empty alternative in 'a.{,b}'"),
    ("a.{b**,c}", "'**' must be a whole segment in 'a.{b**,c}'"),  # names the whole glob, not 'b**'
])
def test_glob_errors_name_the_glob_and_what_was_expected(bad: str, expected: str) -> None:
    with pytest.raises(GlobError, match=re.escape(expected)):
        key_glob(bad)


def test_leaf_alternatives_feed_the_prefilter() -> None:
    assert key_glob("a.{b,c}.use_mbridge").leaf_alternatives() == ["use_mbridge"]
    assert key_glob("a.{x,y}").leaf_alternatives() == ["x", "y"]
    assert key_glob("a.{x,{y,z}w}").leaf_alternatives() == ["x", "yw", "zw"]
    assert key_glob("a.*").leaf_alternatives() is None


def test_path_globs() -> None:
    assert path_glob("**/*.sh").matches("run.sh")
    assert path_glob("**/*.sh").matches("examples/a/run.sh")
    assert path_glob("*.slurm").matches("tests/x.slurm")
    assert not path_glob("examples/*.sh").matches("examples/a/run.sh")
    assert path_glob("examples/**").matches("examples/a/run.sh")
    assert path_glob("examples/**").matches("examples")
    assert not path_glob("**").matches("a\nb")  # as the regex `.*` did


# --- adversarial globs: each took seconds to forever with the regex translation ---------------------------


@contextmanager
def _within(seconds: float) -> Iterator[None]:
    """A generous bound, not a benchmark: the old regexes ran for minutes on these."""
    if not hasattr(signal, "setitimer"):
        pytest.skip("needs SIGALRM")

    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"took longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


STARS = "*a" * 11 + "*b"
DEEP = ".".join(["**"] * 12)
BRACES = "{a,b}" * 26
OVERLAP = "{*a,a*}" * 26 + "b"  # every group can take any number of a's


@pytest.mark.parametrize(("make", "pattern", "text", "expected"), [
    pytest.param(key_glob, STARS, "a" * 300, False, id="stars"),
    pytest.param(key_glob, STARS, "a" * 300 + "b", True, id="stars-match"),
    pytest.param(key_glob, "x." + STARS, "x." + "a" * 300, False, id="stars-second-segment"),
    pytest.param(key_glob, DEEP + ".x", ".".join(["a"] * 40), False, id="many-double-stars"),
    pytest.param(key_glob, DEEP + ".x", ".".join(["a"] * 40) + ".x", True, id="many-double-stars-match"),
    pytest.param(path_glob, "/".join(["**"] * 12) + "/x", "/".join(["a"] * 40), False, id="many-double-stars-path"),
    pytest.param(key_glob, BRACES, "ab" * 100, False, id="braces"),
    pytest.param(key_glob, BRACES, "ab" * 13, True, id="braces-match"),
    pytest.param(key_glob, "**." + BRACES, ".".join(["ab" * 13] * 7) + "c", False, id="braces-after-double-star"),
    pytest.param(key_glob, OVERLAP, "a" * 200, False, id="overlapping-braces"),
    pytest.param(key_glob, OVERLAP, "a" * 200 + "b", True, id="overlapping-braces-match"),
    pytest.param(key_glob, DEEP + "." + STARS + ".{a*,*a}", ".".join(["a"] * 20 + ["a" * 200, "b"]), False,
                 id="all-at-once"),
])
def test_adversarial_globs_match_in_time(make: Callable[[str], Any], pattern: str, text: str, expected: bool) -> None:
    with _within(2.0):
        assert make(pattern).matches(text) is expected


def test_many_brace_groups_are_never_expanded() -> None:
    glob = key_glob("x." + BRACES)
    with _within(2.0):  # 2**26 leaves: the prefilter gives up instead of listing them
        assert glob.leaf_alternatives() is None
        assert glob.literal_fragments() == []
        assert not glob.matches("x." + "ab" * 100)


def test_a_compiled_glob_pickles_without_its_caches() -> None:
    glob = key_glob("**.megatron.use_*")
    assert glob.matches("a.megatron.use_x")
    copy = pickle.loads(pickle.dumps(glob))
    assert copy == glob and copy.matches("a.megatron.use_x") and not copy.matches("a.megatron.usex")


# --- the old regex translation, kept as the oracle the matcher must agree with ------------------------------


def _old_split_top(pattern: str, sep: str) -> list[str]:
    parts, current, depth = [], "", 0
    for ch in pattern:
        depth += (ch == "{") - (ch == "}")
        if ch == sep and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return [*parts, current]


def _old_translate(pattern: str, sep: str) -> str:
    esc_sep = re.escape(sep)
    one_segment = f"[^{esc_sep}]*"
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if pattern.startswith("**", i):
            at_start = i == 0 or pattern[i - 1] in (sep, "{", ",")
            after = i + 2
            at_end = after == n or pattern[after] in (sep, "}", ",")
            if not (at_start and at_end):
                raise GlobError(f"'**' must be a whole segment in {pattern!r}")
            if after < n and pattern[after] == sep:
                out.append(f"(?:{one_segment}{esc_sep})*")
                i = after + 1
            elif out and out[-1] == esc_sep:
                out[-1] = f"(?:{esc_sep}{one_segment})*"
                i = after
            else:
                out.append(".*")
                i = after
            continue
        if ch == "*":
            out.append(one_segment)
        elif ch == "?":
            out.append(f"[^{esc_sep}]")
        elif ch == "{":
            depth = 0
            for j in range(i, n):
                depth += (pattern[j] == "{") - (pattern[j] == "}")
                if depth == 0:
                    break
            alts = _old_split_top(pattern[i + 1 : j], ",")
            if any(alt == "" for alt in alts):
                raise GlobError(f"empty alternative in {pattern!r}")
            out.append("(?:" + "|".join(_old_translate(alt, sep) for alt in alts) + ")")
            i = j + 1
            continue
        else:
            out.append(esc_sep if ch == sep else re.escape(ch))
        i += 1
    return "".join(out)


def _old_compile(pattern: str, sep: str) -> re.Pattern[str]:
    if sep == "/" and "/" not in pattern.rstrip("/") and not pattern.startswith("**"):
        pattern = "**/" + pattern
    depth = 0
    for ch in pattern:
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            raise GlobError("unbalanced")
    if depth:
        raise GlobError("unclosed")
    if sep == "." and (any(not (re.match(r"[A-Za-z0-9_\-@/$\[\]]", ch) or ch in "*?{},.") for ch in pattern)
                       or ".." in pattern or pattern.startswith(".") or pattern.endswith(".")):
        raise GlobError("bad key glob")
    return re.compile(_old_translate(pattern, sep))


def _old_leaves(last: str) -> list[str] | None:
    start = last.find("{")
    if start < 0:
        return None if "*" in last or "?" in last else [last]
    depth = 0
    for end in range(start, len(last)):
        depth += (last[end] == "{") - (last[end] == "}")
        if depth == 0:
            break
    out: list[str] = []
    for alt in _old_split_top(last[start + 1 : end], ","):
        more = _old_leaves(last[:start] + alt + last[end + 1 :])
        if more is None:
            return None
        out.extend(more)
    return out


def _globs(sep: str) -> st.SearchStrategy[str]:
    """Small globs: well-formed trees of segments, `**`, stars and braces, and raw token soup."""
    leaf = st.sampled_from(["a", "b", "ab", "*", "?", "**", "a*", "*b", "?a", ",", f"a{sep}**", f"**{sep}b"])

    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        parts = st.lists(inner, min_size=1, max_size=3)
        return st.one_of(parts.map(sep.join), parts.map("".join), parts.map(lambda alts: "{" + ",".join(alts) + "}"))

    soup = st.lists(st.sampled_from(["a", "*", "**", "?", "{", "}", ",", sep]), min_size=1, max_size=9).map("".join)
    return st.one_of(st.recursive(leaf, grow, max_leaves=8), soup)


def _short_keys(sep: str) -> list[str]:
    return ["".join(p) for n in range(5) for p in itertools.product(["a", "b", sep], repeat=n)]


@pytest.mark.parametrize(("sep", "make"), [(".", key_glob), ("/", path_glob)])
def test_the_matcher_agrees_with_the_old_regex_translation(sep: str, make: Callable[[str], Any]) -> None:
    short = _short_keys(sep)

    @settings(max_examples=1000, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(_globs(sep), st.lists(st.text("ab,./?*\n", max_size=8), max_size=8))
    def agree(pattern: str, extra: list[str]) -> None:
        try:
            oracle = _old_compile(pattern, sep)
        except GlobError:
            with pytest.raises(GlobError):
                make(pattern)
            return
        glob = make(pattern)
        for text in [*short, *extra]:
            assert glob.matches(text) is (oracle.fullmatch(text) is not None), (pattern, text, oracle.pattern)
        assert glob.leaf_alternatives() == _old_leaves(_old_split_top(glob.pattern, sep)[-1])

    agree()
