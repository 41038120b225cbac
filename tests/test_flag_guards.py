"""New config flags an upstream change put in front of code that ran before (bot.upstream.flag_guards): the
migration turns them on where launches leave them unset, so what ran still runs; a new flag in front of new code
is no migration."""

from __future__ import annotations

from bot.upstream.flag_guards import guarded_blocks, guarded_flags
from bot.upstream.value_renames import Hunk

OLD = ["        rows = self.rows", "        rows = [r for r in rows if len(r) <= self.limit]",
       "        self.rows = rows"]
GUARDED = ["        if self.drop_long:", *("    " + line for line in OLD)]


def test_old_code_moved_under_a_new_flag_off_by_default_is_turned_on() -> None:
    hunk = Hunk("pkg/data.py", list(OLD), list(GUARDED))
    assert guarded_blocks(hunk) == [("drop_long", False)]
    (flag,) = guarded_flags([hunk], {"data.drop_long": False, "data.other": 3})
    assert (flag.key, flag.keep) == ("data.drop_long", True)
    assert guarded_flags([hunk], {"data.drop_long": True}) == []  # on by default: launches run it still


def test_a_negated_guard_keeps_the_flag_off() -> None:
    hunk = Hunk("pkg/data.py", list(OLD), ["        if not self.keep_long:", *("    " + line for line in OLD)])
    (flag,) = guarded_flags([hunk], {"data.keep_long": True})
    assert (flag.key, flag.keep) == ("data.keep_long", False)


def test_a_new_flag_in_front_of_new_code_is_no_migration() -> None:
    hunk = Hunk("pkg/data.py", ["        pass"],
                ["        if self.drop_long:", "            rows = self.rows", "            self.rows = rows[:10]"])
    assert guarded_blocks(hunk) == []
    assert guarded_flags([hunk], {"data.drop_long": False}) == []
