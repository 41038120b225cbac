"""The IR's actions are a closed union of frozen dataclasses: every writer names each one, and what is not
one is refused loudly (before, an unknown string kind was silently skipped by the Python writer)."""

from __future__ import annotations

import dataclasses
import json
import typing

import pytest

from bot.ir import Action, Plan, Role, Setting, SettingGroup, State, assert_never, changes
from bot.lang.python import writer as python_writer
from bot.model import Finding, Status


class NotAnAction:
    """Stands for an action a writer was never taught."""


def _plan(actions: list[object]) -> Plan:
    setting = Setting("a.b", "", "1", 1, State.STATIC, 1, 1)
    group = SettingGroup([setting], 1, 1, handle=(None, []))
    finding = Finding("r", "f.py", 1, 1, "a.b", "1", Status.FIXABLE, "m")
    return Plan(finding, group, actions)  # type: ignore[arg-type]


def test_the_union_is_of_frozen_dataclasses() -> None:
    members = typing.get_args(Action)
    assert {m.__name__ for m in members} == {"SetValue", "SetItems", "RenameKey", "SetPrefix", "RemoveKey",
                                              "InsertKey", "MoveEntry", "SetBranchValue"}
    assert all(dataclasses.is_dataclass(m) and typing.cast(typing.Any, m).__dataclass_params__.frozen for m in members)


def test_assert_never_raises() -> None:
    with pytest.raises(AssertionError, match="unhandled case"):
        assert_never(NotAnAction())  # type: ignore[arg-type]


def test_changes_refuses_a_foreign_action() -> None:
    with pytest.raises(AssertionError, match="unhandled case"):
        changes([NotAnAction()])  # type: ignore[list-item]


def test_the_python_writer_refuses_an_unknown_action_instead_of_skipping_it() -> None:
    with pytest.raises(AssertionError, match="unhandled case"):
        python_writer.realise(b"", [_plan([NotAnAction()])])


@pytest.mark.parametrize("member", [*Role, *State])
def test_roles_and_states_are_written_as_their_words(member: Role | State) -> None:
    """Enums, yet every text and JSON output stays what the strings wrote."""
    assert str(member) == f"{member}" == member.value == member
    assert json.dumps({"x": member}) == json.dumps({"x": member.value})
    assert f"{member:>14}" == f"{member.value:>14}"
