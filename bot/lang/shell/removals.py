"""Removals of neighbouring words of one command, planned together so that they never overlap."""

from __future__ import annotations

from bot.ir import Plan, RemoveKey
from bot.lang.shell.edits import remove_word_before, word_node
from bot.lang.shell.inline import words_root
from bot.lang.shell.launches import Override
from bot.lang.shell.parse import ShellScript


def join_removals(script: ShellScript, plans: list[Plan]) -> None:
    """Words removed one after the other at a command's end: each takes the continuation before it
    instead of its whole line, since the last one must take the `\\` ending the line before it."""
    removed = sorted(((p.edits[0][0], p) for p in plans if len(p.edits) == 1 and p.edits[0][1] == ""),
                     key=lambda pair: pair[0].start)
    for index in range(len(removed) - 2, -1, -1):
        (span, plan), (after, _) = removed[index], removed[index + 1]
        if not span.start < after.start < span.end:
            continue
        first = plan.actions[0]
        override: Override | None = first.setting.handle[0] if isinstance(first, RemoveKey) else None
        key = override.key_span if override is not None else None
        node = word_node(words_root(script, key), key) if key is not None else None
        joined = remove_word_before(script.src, node) if node is not None else None
        if joined is not None and joined.end <= after.start:
            plan.edits = [(joined, "")]
            removed[index] = (joined, plan)
