"""Where an added override goes: after the launch's override nearest by key, once for every launch
that reads the place, in the neighbours' style (a continuation line, an array element, a word of the
same packed string)."""

from __future__ import annotations

from collections.abc import Collection

from bot.lang.keys import shared_segments
from bot.lang.shell.edits import insertion_after_token, insertion_after_word, quote_for, word_node
from bot.lang.shell.inline import words_root
from bot.lang.shell.launches import Launch, Override
from bot.lang.shell.parse import ShellScript
from bot.lang.shell.text import Field, source_span
from bot.model import Span


def anchors(script: ShellScript, launch: Launch, key: str, added: str, near: str, needs: dict[int, dict[str, str]],
            placed: Collection[tuple[int, str]]) -> list[tuple[Override, list[Launch]]]:
    """Overrides the text `added` (of `key`) may follow (none that a launch needing other text or none,
    having it placed or cut short reads, nor one in a variable other commands read), with the other
    launches reading each; best first: longest key prefix shared with `near`, most launches one edit
    serves, last."""
    scored = []
    readers: dict[object, list[Launch]] = {}  # each override's place, with the other launches reading it
    for other in script.launches:
        if other is not launch:
            for place in {o.key_span for o in other.overrides}:
                readers.setdefault(place, []).append(other)
    uses = {id(one): _uses(one) for one in script.launches}
    for index, override in enumerate(launch.overrides):
        if override.key_span is None or (not override.field.static and override.key_chain):
            continue  # a word of the command is a place whatever its value; a variable's text, only a literal
        sharers = readers.get(override.key_span, [])
        if any(needs.get(id(other), {}).get(key) != added or (id(other), key) in placed or other.cut_short is not None
               for other in sharers) or not _read_only_by(override, [uses[id(one)] for one in [launch, *sharers]]):
            continue
        scored.append((shared_segments(override.key, near), len(sharers), index, override, sharers))
    scored.sort(key=lambda t: (-t[0], -t[1], -t[2]))
    return [(override, sharers) for _, _, _, override, sharers in scored]


def _uses(launch: Launch) -> set[object]:
    """The uses of variables the launch's overrides come through."""
    return {via.use for other in launch.overrides for via in other.key_chain}


def _read_only_by(override: Override, readers: list[set[object]]) -> bool:
    """Whether every variable the override comes through is used by these launches' words alone (`readers`: the
    uses of each launch's words, _uses; an array that is also printed, or hashed into a run's name, is no place
    for a new element)."""
    return all(any(use in uses for uses in readers) for via in override.key_chain for use in via.definition.uses)


def insertion(script: ShellScript, anchor: Override, hydra_text: str) -> tuple[Span, str] | None:
    """The edit that adds `hydra_text` after the anchor, in its quoting; None where it cannot be written."""
    assert anchor.key_span is not None
    if not anchor.key_chain or anchor.key_chain[-1].definition.kind == "array":
        node = word_node(words_root(script, anchor.key_span), anchor.key_span)
        if node is None:
            return None
        text = quote_for("b", hydra_text)
        return None if text is None else insertion_after_word(script.src, node, text)
    span = source_span(anchor.field.pieces)
    if span is None or anchor.field.pieces[0].ctx not in ("d", "s"):
        return None  # a word in an unquoted assignment: a second word would end the assignment
    text = quote_for(anchor.field.pieces[0].ctx, hydra_text)
    return None if text is None else insertion_after_token(script.src, span, text)


def entry_insertion(script: ShellScript, launch: Launch, hydra_text: str) -> tuple[Span, str] | None:
    """The edit that adds `hydra_text` right after the entry point, for a launch that writes no override and
    passes nothing after its entry but its caller's arguments (before them, so that theirs still win). With
    any other word there (Hydra's `--config-name x`, `-m`), where an override may go is not known: None."""
    field = launch.entry_field
    if field is None or not field.static or launch.overrides or not all(_callers(item) for item in launch.argv):
        return None
    span = source_span(field.chars(0, len(field.text)))
    node = word_node(words_root(script, span), span) if span is not None else None
    if node is None:
        return None
    text = quote_for("b", hydra_text)
    return None if text is None else insertion_after_word(script.src, node, text)


def _callers(item: Field) -> bool:
    """Whether the word is the caller's arguments (`"$@"`, `$*`)."""
    return not item.static and bool(item.pieces) and "caller" in (item.pieces[0].dynamic or "")

