"""List elements edited in place in a shell word: `"['console','tracking']"`, `[console,tracking]`, ...

The edits are planned on the value as Hydra reads it (bot.hydra.list_values.list_edits) and mapped back to
the bytes each character came from, in the word's own quoting: a new element is written in the
quoting of the characters it replaces; a removed element takes its shell quotes with it when they
hold nothing else.
"""

from __future__ import annotations

from bot.hydra.list_values import TextEdits, apply_text_edits, list_edits
from bot.ir import SetItems
from bot.lang.shell.edits import quote_for
from bot.lang.shell.text import ANSI, Definition, Field, Via, source_span
from bot.model import Span

Edits = list[tuple[Span, str]]


def field_edits(src: bytes, item: Field, offset: int, edits: TextEdits) -> Edits | str:
    """Byte edits for edits of the field's text from `offset` on; a reason when one cannot be written."""
    out: Edits = []
    head = item.chars(offset, offset + 1)
    for start, end, new in edits:
        i, j = offset + start, offset + end
        pieces = item.chars(i, j)
        if not pieces or any(not p.static for p in pieces):
            return "the list is partly known only at run time"
        if head and any(p.via != head[0].via for p in pieces):
            return "the element comes from a variable of its own: a person must change it"
        if new:
            span = source_span(pieces)
            text = quote_for(pieces[0].ctx, new) if span is not None else None
            if span is None or text is None:
                return "the element is spread over several quoted parts"
            out.append((span, text))
            continue
        span = deleted_span(src, item, i, j)
        if span is None:
            return "the element cannot be removed without touching the quoting around it"
        out.append((span, ""))
    return out


def deleted_span(src: bytes, item: Field, i: int, j: int) -> Span | None:
    """The bytes that hold characters [i, j) of the field, with the quotes of strings wholly inside them."""
    pieces = item.chars(i, j)
    if any(p.via != pieces[0].via or p.ctx == ANSI or not p.starts for p in pieces):
        return None
    covered = [(p.starts[k], p.ends[k]) for p in pieces for k in range(len(p.text))]
    pos = 0
    inside: dict[int, bool] = {}
    closing: dict[int, int] = {}
    for piece in item.pieces:
        a, b = pos, pos + len(piece.text)
        pos = b
        if piece.quote < 0 or not piece.text:
            continue
        inside[piece.quote] = inside.get(piece.quote, True) and i <= a and b <= j
        closing[piece.quote] = max(closing.get(piece.quote, 0), piece.ends[-1] if piece.starts else 0)
    for quote in {p.quote for p in pieces if p.quote >= 0}:
        if inside.get(quote):
            close = closing[quote]
            if src[close : close + 1] != src[quote : quote + 1]:
                return None
            covered += [(quote, quote + 1), (close, close + 1)]
    covered.sort()
    start, end = covered[0]
    for a, b in covered[1:]:
        if a > end:
            return None  # bytes in between that are not part of what goes
        end = max(end, b)
    return Span(start, end)


def item_site(src: bytes, action: SetItems) -> tuple[Edits, Via | None, list[Definition], str] | str:
    """(byte edits of the elements, the `$VAR` use the value came through or None for a literal, the
    definitions edited, the whole new value text for writing at the use instead); a reason when not writable."""
    edits: Edits = []
    definitions: list[Definition] = []
    uses: set[Span] = set()
    text = ""
    for setting in action.variants:
        override, info = setting.handle
        if info.state != "static" or info.text is None or override.value_start is None:
            return "the list is known only at run time"
        planned = list_edits(info.text, action.items, set(action.drop))
        if planned is None:
            return "the list is written in a form the bot does not edit element by element"
        text = text or apply_text_edits(info.text, planned)
        found = field_edits(src, override.field, override.value_start, planned)
        if isinstance(found, str):
            return found
        edits += [e for e in found if e not in edits]
        if info.extra:
            uses.add(info.extra[0].use)
            if len(info.extra) == 1:
                definitions.append(info.extra[0].definition)
    if not uses:
        return edits, None, [], text
    if len(uses) > 1 or len(definitions) != len(action.variants):
        return "the list is built from several parts"
    _, first = action.variants[0].handle
    return edits, first.extra[0], definitions, text
