from __future__ import annotations

import pytest

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
    ],
)
def test_key_globs(pattern: str, key: str, expected: bool) -> None:
    assert key_glob(pattern).matches(key) is expected


@pytest.mark.parametrize("bad", ["a..b", "a.{b,c", "a.b}", "a.**x", ".a", "a b", "a.{,b}"])
def test_bad_key_globs_are_rejected(bad: str) -> None:
    with pytest.raises(GlobError):
        key_glob(bad)


def test_leaf_alternatives_feed_the_prefilter() -> None:
    assert key_glob("a.{b,c}.use_mbridge").leaf_alternatives() == ["use_mbridge"]
    assert key_glob("a.{x,y}").leaf_alternatives() == ["x", "y"]
    assert key_glob("a.*").leaf_alternatives() is None


def test_path_globs() -> None:
    assert path_glob("**/*.sh").matches("run.sh")
    assert path_glob("**/*.sh").matches("examples/a/run.sh")
    assert path_glob("*.slurm").matches("tests/x.slurm")
    assert not path_glob("examples/*.sh").matches("examples/a/run.sh")
