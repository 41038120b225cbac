"""The code blocks of Markdown and reStructuredText files, and the prose lines between them.

A block is a fence (```` ```lang ````), an rst code directive (`.. code-block:: lang`) or an rst
literal block (a paragraph ending in `::`); `bare` blocks name no language. Readers of the doc's
shell views (bot.lang.embedded.docs), of its YAML blocks (bot.lang.embedded.doc_yaml) and of its
override literals (bot.lang.embedded.literals) share this scan.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.context import NO_CONSOLES, Consoles
from bot.lang.embedded.docs import (
    DIRECTIVE,
    FENCE,
    HIGHLIGHT,
    LITERAL_END,
    PROMPT_LANGUAGES,
    SHELL_LANGUAGES,
    Shellish,
    _fence_language,
    _indent,
    _is_comment,
    _lines,
    _skip_indented,
    bare_launch,
    blank,
    reveal_block,
)
from bot.lang.embedded.views import ShellView
from bot.model import Span

if TYPE_CHECKING:
    from tree_sitter import Tree

Line = tuple[int, int]  # (start, end before the line break) in the file
YAML_LANGUAGES = {"yaml", "yml"}
_ONE_OVERRIDE = (rb"(?:\+\+|\+|~)?[A-Za-z_][\w\-]*(?:\.[\w\-@/\[\]]+)+="
                 rb"(?:\"[^\"\n]*\"|'[^'\n]*'|\\\$|[^\s\"'`\\();|&<>])*")  # `\$`: a `$` the shell leaves
OVERRIDE_LINE = re.compile(  # one override or several, blank-separated
    rb"[ \t]*" + _ONE_OVERRIDE + rb"(?:[ \t]+" + _ONE_OVERRIDE + rb")*[ \t]*(?:\\[ \t]*)?(?:#.*)?$")


@dataclass
class Block:
    language: str  # lower-case; "" when the block names none
    lines: list[Line]
    bare: bool  # a fence or literal block without a language (an rst `::` block, `.. code::`)
    shell: bool = False  # read as shell by the doc's view


@dataclass
class DocBlocks:
    blocks: list[Block] = field(default_factory=list)
    prose: list[Line] = field(default_factory=list)  # lines of running text (not code, not rst comments)


def overrides_only(data: bytes, lines: list[Line]) -> bool:
    """Every non-blank line an override (`key=value`, `\\` continuations, `# notes`), one at least."""
    body = [data[s:e] for s, e in lines if data[s:e].strip()]
    kinds = [bool(OVERRIDE_LINE.fullmatch(t)) or t.lstrip().startswith(b"#") for t in body]
    return bool(body) and all(kinds) and any(OVERRIDE_LINE.fullmatch(t) for t in body)


def markdown_blocks(data: bytes, consoles: Consoles = NO_CONSOLES) -> DocBlocks:
    """The doc's blocks; `consoles`: the repository's console scripts (a bare block that runs one is shell)."""
    out = DocBlocks()
    lines = _lines(data)
    i = 0
    while i < len(lines):
        match = FENCE.match(data[lines[i][0] : lines[i][1]])
        i += 1
        if match is None:
            out.prose.append(lines[i - 1])
            continue
        fence = match.group(2)
        language = _fence_language(match.group(3).decode("utf-8", "replace"))
        body: list[Line] = []
        while i < len(lines):
            text = data[lines[i][0] : lines[i][1]].strip()
            i += 1
            if text.startswith(fence[:1] * len(fence)) and not text.strip(fence[:1]):
                break
            body.append(lines[i - 1])
        shell = language in SHELL_LANGUAGES or (not language and bare_launch(data, body, consoles))
        out.blocks.append(Block(language, body, not language, shell))
    return out


def rst_blocks(data: bytes, consoles: Consoles = NO_CONSOLES) -> DocBlocks:
    out = DocBlocks()
    lines = _lines(data)
    default_language = ""
    i = 0
    while i < len(lines):
        start, end = lines[i]
        text = data[start:end]
        i += 1
        highlight = HIGHLIGHT.match(text)
        if highlight:
            default_language = highlight.group(1).decode().lower()
            continue
        directive = DIRECTIVE.match(text)
        if directive is None and _is_comment(text):
            i = _skip_indented(data, lines, i, _indent(data, start, end))
            continue
        literal = directive is None and LITERAL_END.search(text)
        if directive is None and (text.lstrip().startswith(b"..") or not literal):
            if not text.lstrip().startswith(b".."):
                out.prose.append((start, end))
            continue
        if literal:
            out.prose.append((start, end))
        base = _indent(data, start, end)
        while directive and i < len(lines) and data[lines[i][0] : lines[i][1]].strip().startswith(b":"):
            i += 1
        body: list[Line] = []
        while i < len(lines):
            s, e = lines[i]
            if data[s:e].strip() and _indent(data, s, e) <= base:
                break
            body.append(lines[i])
            i += 1
        named = directive.group(2).decode().lower() if directive else ""
        language = named or default_language
        shell = language in SHELL_LANGUAGES or (
            not directive and not language and any(Shellish(consoles).match(data, s) for s, _ in body))
        out.blocks.append(Block(language, body, not language, shell))
    return out


def shell_views(data: bytes, doc: DocBlocks, consoles: Consoles = NO_CONSOLES,
                trees: Callable[[bytes], Tree] | None = None) -> list[ShellView]:
    """The doc's shell blocks as one view of the file, everything else blanked, so a variable set in
    one block reaches the launches of the next; [] when it has none.

    A block that does not parse on its own could take the next block's first words along (tree-sitter
    reads a redirection's target across the line break) and hide that block's launch:
    - one without a launch (`CKPT=<your-checkpoint>`) is kept with the least of it blanked that lets it
      parse (its error's bytes, else their lines, else all of it); the errors still count for the view;
    - one with a launch is read in a view of its own, after the blocks before it, whose launches that
      view does not report (the shared view reports them)."""
    from bot.lang.shell.parse import error_spans, parse_tree

    parsed: dict[bytes, Tree] = {}  # a text is parsed once: a block shown twice, two ways of blanking alike

    def parse(text: bytes) -> Tree:
        if trees is not None:  # the front end's: a block the edits leave is not parsed again
            return trees(text)
        if text not in parsed:
            parsed[text] = parse_tree(text)
        return parsed[text]

    view = blank(data)
    found = False
    hidden = 0
    apart: list[ShellView] = []
    names: dict[str, str] = {}
    for block in doc.blocks:
        if not (block.shell and block.lines):
            continue
        found = True
        reveal_block(view, data, block.lines, block.language in PROMPT_LANGUAGES)
        start, end = block.lines[0][0], block.lines[-1][1]
        stand_in_placeholders(view, start, end, names)
        text = bytes(view[start:end])
        root = parse(text).root_node
        if not root.has_error:
            continue
        if _LAUNCH_LIKE.search(text) or _LAUNCHER_VARIABLE.search(text) or consoles.named_in(text):
            alone = bytearray(view[:end]) + blank(data[end:])  # the blocks before it, then it
            apart.append(ShellView(bytes(alone), own=(start, end), names=names))
            view[start:end] = blank(data[start:end])
            continue
        hidden += len(error_spans(root))
        innermost = _innermost_errors(root)
        for masked in (_blank_rest_of_line(text, innermost), _blank_lines(text, innermost),
                       _blank_lines(text, error_spans(root))):
            if not parse(masked).root_node.has_error:
                break
        else:
            masked = bytes(blank(text))
        view[start:end] = masked
    return ([ShellView(bytes(view), hidden_errors=hidden, names=names)] if found else []) + apart


# `<run_id>`, `<path to model>`, `</abs/path>`: what the reader fills in, not a redirection; one word,
# nothing but letters, digits, `_ . - / :` and inner blanks
ELIDED_PLACEHOLDER = re.compile(rb"<(?:\.\.\.|\xe2\x80\xa6)>")
PLACEHOLDER = re.compile(rb"<([A-Za-z/][\w.\-/: ]*[\w.\-/]|[A-Za-z])>")


def stand_in_placeholders(view: bytearray, start: int, end: int, names: dict[str, str]) -> None:
    """A doc's `<placeholder>` outside single quotes becomes a variable of its width that no line assigns, so its
    value is known only at run time and the words after it stay the command's (bash would read `a=<x>`
    then a continued line as two redirections, the next line's first word a file); `names` maps each
    variable back to the doc's text."""
    for match in ELIDED_PLACEHOLDER.finditer(view, start, end):  # `<...>`: the doc's "and the rest", as `...`
        if _quoted_at(view[start : match.start()]) != 0x27:
            view[match.start()] = view[match.end() - 1] = 0x20
    for match in PLACEHOLDER.finditer(view, start, end):
        if _quoted_at(view[start : match.start()]) == 0x27:
            continue  # in single quotes no variable is expanded: `'<x>'` stays the text it is
        width = match.end() - match.start()
        if match.end() < end and (chr(view[match.end()]).isalnum() or view[match.end()] == ord("_")):
            if width < 4:
                continue  # `<x>_rest`: no name of this width ends before `_rest`
            stand_in = b"${" + _stand_in_name(len(names), width - 3) + b"}"
        else:
            stand_in = b"$" + _stand_in_name(len(names), width - 1)
        name = stand_in.strip(b"${}").decode()
        said = match.group().decode("utf-8", "replace")
        names[name] = said if names.get(name, said) == said else "a placeholder"  # a short name shared
        view[match.start() : match.end()] = stand_in


def _stand_in_name(number: int, width: int) -> bytes:
    """A variable name of exactly `width` characters no doc assigns: DOC_<number>_ padded with `_`, or
    `D<number>`, else underscores (a run-time value all the same)."""
    for name in (f"DOC_{number}_", f"D{number}"):
        if len(name) <= width:
            return (name + "_" * (width - len(name))).encode()
    return b"_" * width


def _quoted_at(text: bytes | bytearray) -> int:
    """The quote opened in the text (a block up to a place in it) still open at its end (0: none); a
    comment's quotes open none."""
    quote = 0
    escaped = False
    comment = False
    previous = 0x0A
    for byte in text:
        if comment:
            comment = byte != 0x0A
        elif escaped:
            escaped = False
        elif byte == 0x5C and quote != 0x27:  # a backslash escapes outside single quotes
            escaped = True
        elif quote == 0 and byte == 0x23 and previous in b" \t\n":
            comment = True
        elif quote == 0 and byte in (0x22, 0x27):
            quote = byte
        elif byte == quote:
            quote = 0
        previous = byte
    return quote


def _blank_rest_of_line(text: bytes, spans: list[Span]) -> bytes:
    """The text with each span's line blanked from where the span starts (a placeholder's `<x>`)."""
    out = bytearray(text)
    for span in spans:
        stop = text.find(b"\n", span.start)
        stop = len(text) if stop < 0 else stop
        out[span.start : stop] = blank(text[span.start : stop])
    return bytes(out)


def _innermost_errors(root: Any) -> list[Span]:
    """Error and missing nodes with no error inside them."""
    out: list[Span] = []
    stack = [root]
    while stack:
        node = stack.pop()
        inner = [c for c in node.children if c.has_error or c.is_missing]
        if (node.is_error or node.is_missing) and not any(c.is_error or c.has_error for c in inner):
            out.append(Span(node.start_byte, node.end_byte))
        stack.extend(inner)
    return out


def _blank_lines(text: bytes, spans: list[Span]) -> bytes:
    """The text with every line a span touches blanked (line breaks kept)."""
    out = bytearray(text)
    for span in spans:
        first = text.rfind(b"\n", 0, span.start) + 1
        last = text.find(b"\n", span.end)
        last = len(text) if last < 0 else last
        out[first:last] = blank(text[first:last])
    return bytes(out)


_LAUNCHER_VARIABLE = re.compile(rb"(?m)^[ \t]*\"?\$")  # `"${CMD[@]}" a=1`, `$PY -m m`: a launch, likely
_LAUNCH_LIKE = re.compile(rb"python|torchrun|\bcoverage\b|deepspeed|accelerate|\buv\b|\bsrun\b|\.py\b|\.sh\b|\bbash\b"
                          rb"|\bdora\b")


def markdown_views(data: bytes, consoles: Consoles = NO_CONSOLES,
                   trees: Callable[[bytes], Tree] | None = None) -> list[ShellView]:
    return shell_views(data, markdown_blocks(data, consoles), consoles, trees)


def rst_views(data: bytes, consoles: Consoles = NO_CONSOLES,
              trees: Callable[[bytes], Tree] | None = None) -> list[ShellView]:
    return shell_views(data, rst_blocks(data, consoles), consoles, trees)
