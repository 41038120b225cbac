"""A launch's entry point rewritten where it is written: the moved module prefix, in the word's own
form (`-m a.b.c`, `-ma.b.c`, `./a/b/c.py`) and quoting, or in the one assignment of the variable it
comes through."""

from __future__ import annotations

from bot.ir import MoveEntry, moved_entry
from bot.lang.shell.edits import quote_for
from bot.lang.shell.launches import Launch
from bot.lang.shell.parse import ShellScript
from bot.lang.shell.text import source_span
from bot.model import Span


def entry_edit(script: ShellScript, launch: Launch, action: MoveEntry) -> tuple[list[tuple[Span, str]], str | None]:
    """The edit that makes the launch run the moved module, or why it cannot be written safely."""
    found = _edit(script, launch, action)
    return ([], found) if isinstance(found, str) else ([found], None)


def _edit(script: ShellScript, launch: Launch, action: MoveEntry) -> tuple[Span, str] | str:
    item, entry = launch.entry_field, launch.entry
    old, new = action.old, action.new
    where = moved_entry(entry, launch.entry_kind, old, new) if item is not None and entry is not None else None
    if where is None or item is None or entry is None:
        return "the entry point is not written as one word"
    start, end, text = where
    offset = len(item.text) - len(entry)
    pieces = item.chars(offset + start, offset + end)
    span = source_span(pieces)
    if span is None:
        return "the entry point is not written in one place"
    for via in pieces[0].via:
        name = via.definition.name
        if via.definition.kind not in ("scalar", "array") or len(via.definition.values) != 1 or sum(
                d.name == name for d in script.definitions) != 1:
            return f"it comes from {name}, which is assigned more than once"
    written = quote_for(pieces[0].ctx, text)
    if written is None:
        return f"cannot write {text} safely in this quoting"
    config = launch.config_path or ""
    if old.replace(".", "/") in config and (config.startswith(("/", "$")) or launch.config_path_dir is not None):
        return f"its --config-path {config} names the old directory: a person must point it at the new one"
    return span, written
