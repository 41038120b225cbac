"""Which `#` of a file stand in a real comment, as the file's own languages read it.

A `# followup-bot: ignore[...]` directive silences findings only where it is a comment: tree-sitter-bash's
comment nodes for shell (a script, a doc's shell blocks, a notebook's shell cells, a workflow's steps, a
Makefile's recipes), the YAML scanner for YAML (a config, a workflow, a doc's YAML blocks: a `#` outside
every scalar), Python's tokenizer for Python (a file, a doc's Python blocks, a notebook's code cells).
Text none of these reads (a doc's prose, a block of another language) has no verdict: the caller keeps its
own rule there. A view that does not parse gives no verdict either.
"""

from __future__ import annotations

import bisect
import io
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from bot.context import Consoles

if TYPE_CHECKING:
    from tree_sitter import Tree

    from bot.lang.embedded.blocks import DocBlocks
    from bot.lang.embedded.doc_yaml import BlockText
    from bot.lang.embedded.views import ShellView

    ShellViews = Callable[[bytes, Consoles, Callable[[bytes], Tree] | None], list[ShellView]]

SHELL, YAML, PYTHON = "shell", "yaml", "python"


@dataclass
class CodeView:
    """Code of one language: its text and where each of its bytes stands in the file."""

    language: str
    text: bytes
    host_of: Callable[[int], int] | None  # view offset -> file offset (None: the same offset)
    trees: Callable[[bytes], Any] | None = None  # where a shell text's parse comes from (None: parsed here)
    _at: dict[int, int] | None = None
    _comments: list[tuple[int, int]] | None = None
    _unsure: list[tuple[int, int]] | None = None  # what the parser could not read: no verdict there
    _read: bool = False

    def offset(self, host: int, data: bytes) -> int | None:
        """The view offset of the `#` the file has at `host` (None: the view does not show it)."""
        if self.host_of is None:
            at: int | None = host
        else:
            if self._at is None:
                self._at = {}
                for pos in range(len(self.text)):
                    if self.text[pos] == 0x23:  # `#`
                        self._at.setdefault(self.host_of(pos), pos)
            at = self._at.get(host)
        return at if at is not None and self.text[at : at + 1] == b"#" == data[host : host + 1] else None

    def comment(self, at: int) -> bool | None:
        """Whether the view's byte at `at` is in a comment; None when the view does not parse."""
        if not self._read:
            self._comments, self._unsure = _comment_spans(self.language, self.text, self.trees)
            self._read = True
        if self._comments is None:
            return None
        if _within(self._comments, at):
            return True
        return None if _within(self._unsure or [], at) else False


class ShellTexts(Protocol):
    """A file's shell, as its front end read it (bot.lang.shell.front): its views and each text's parse."""

    def views(self, data: bytes) -> list[ShellView]: ...  # raises ValueError
    def tree(self, text: bytes) -> Any: ...


class Comments:
    """The verdicts for one file: `real(offset)` of a `#` at a byte offset of the file; `views`: the file's code,
    most specific first (bot.lang.comment_views: what its kind's registration says it holds)."""

    def __init__(self, data: bytes, views: list[CodeView]) -> None:
        self.data = data
        self.views = views

    def real(self, offset: int) -> bool | None:
        """True: the `#` at `offset` is a comment; False: code reads it as something else (a quoted argument,
        a string, a YAML scalar); None: no code of the file shows it (a doc's prose)."""
        for view in self.views:
            at = view.offset(offset, self.data)
            if at is not None:
                return view.comment(at)
        return None


def whole_views(language: str, data: bytes, shell: ShellTexts | None = None) -> list[CodeView]:
    """The whole file, code of one language (a script, a config, a Python file)."""
    return [CodeView(language, data, None, shell.tree if shell is not None and language == SHELL else None)]


def shell_family_views(data: bytes, consoles: Consoles, shell: ShellTexts | None, views: ShellViews,
                       more: Callable[[bytes, Consoles], list[CodeView]] | None) -> list[CodeView]:
    """A shell-family file's shell views (the front end's, when given, else `views`), then `more` of its code (a
    workflow's YAML around its steps, a doc's YAML and Python blocks, a notebook's code cells)."""
    trees = shell.tree if shell is not None else None
    try:
        shown = shell.views(data) if shell is not None else views(data, consoles, None)
    except (ValueError, KeyError):
        shown = []
    found = [CodeView(SHELL, view.text, None if view.host_at is None else view.host, trees) for view in shown]
    if more is not None:
        found.extend(more(data, consoles))
    return found


def notebook_cell_views(data: bytes) -> list[CodeView]:
    """A notebook's Python code cells (cell magics and shell lines left out)."""
    from bot.lang.embedded.nb_cells import cell_views

    return [CodeView(PYTHON, view.text, view.host)
            for view in cell_views(data, "code", lambda lines: not lines[0].startswith("%%"),
                                   lambda line: line.lstrip().startswith(("!", "%")))]


def doc_block_views(data: bytes, blocks: DocBlocks) -> list[CodeView]:
    """A doc's YAML and Python blocks."""
    from bot.lang.embedded.blocks import YAML_LANGUAGES
    from bot.lang.embedded.doc_python import PYTHON_LANGUAGES
    from bot.lang.embedded.doc_yaml import block_text

    views = []
    for block in blocks.blocks:
        if block.language in YAML_LANGUAGES or block.language in PYTHON_LANGUAGES:
            shown = block_text(data, block)
            if shown is not None:
                language = YAML if block.language in YAML_LANGUAGES else PYTHON
                views.append(CodeView(language, shown.text, partial(_block_host, shown)))
    return views


def _within(spans: list[tuple[int, int]], at: int) -> bool:
    i = bisect.bisect_right(spans, (at, 1 << 62)) - 1
    return i >= 0 and spans[i][0] <= at < spans[i][1]


def _shell_spans(text: bytes, trees: Callable[[bytes], Any] | None = None
                 ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """tree-sitter-bash's comments, and the whole lines of its parse errors (a comment there may be no node
    of its own: no verdict)."""
    from bot.lang.shell.nodes import descendants
    from bot.lang.shell.parse import error_spans, parse_tree

    root = (trees(text) if trees is not None else parse_tree(text)).root_node
    comments = sorted((n.start_byte, n.end_byte) for n in descendants(root, {"comment"}))
    unsure = []
    for span in error_spans(root):
        start = text.rfind(b"\n", 0, span.start) + 1
        end = text.find(b"\n", max(span.start, span.end - 1))
        unsure.append((start, len(text) if end < 0 else end + 1))
    return comments, sorted(unsure)


def _block_host(shown: BlockText, at: int) -> int:
    return shown.host(at, False)


def _comment_spans(language: str, text: bytes, trees: Callable[[bytes], Any] | None = None
                   ) -> tuple[list[tuple[int, int]] | None, list[tuple[int, int]]]:
    """The comments of the view as sorted byte spans (None when its reader refuses it), and the parts its
    reader could not read."""
    try:
        if language == SHELL:
            return _shell_spans(text, trees)
        return (_python_comments(text) if language == PYTHON else _yaml_comments(text)), []
    except (ValueError, SyntaxError, RecursionError, UnicodeDecodeError):
        return None, []


def _python_comments(text: bytes) -> list[tuple[int, int]] | None:
    import tokenize

    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    spans = []
    try:
        for token in tokenize.tokenize(io.BytesIO(text).readline):
            if token.type == tokenize.COMMENT:
                (row, col), (_, end) = token.start, token.end
                line = text[starts[row - 1] : starts[row]] if row <= len(starts) - 1 else b""
                head = len(line.decode("utf-8", "replace")[:col].encode("utf-8"))
                tail = len(line.decode("utf-8", "replace")[:end].encode("utf-8"))
                spans.append((starts[row - 1] + head, starts[row - 1] + tail))
    except tokenize.TokenError:
        return None
    return spans


def _yaml_comments(text: bytes) -> list[tuple[int, int]] | None:
    """A YAML comment is a `#` at a line's start or after a blank that no scalar holds, to the line's end."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    decoded = text.decode("utf-8")
    scalars: list[tuple[int, int]] = []
    try:
        for token in YAML(typ="rt").scan(decoded):
            if type(token).__name__ == "ScalarToken":
                scalars.append((token.start_mark.index, token.end_mark.index))
    except YAMLError:
        return None
    scalars.sort()
    spans = []
    counted = byte = 0  # the byte offset of character `counted`, carried forward (the text is read once)
    index = decoded.find("#")
    while index >= 0:
        i = bisect.bisect_right(scalars, (index, 1 << 62)) - 1
        inside = i >= 0 and scalars[i][0] <= index < scalars[i][1]
        if inside or not (index == 0 or decoded[index - 1] in " \t\n\r"):
            index = decoded.find("#", index + 1)
            continue
        end = decoded.find("\n", index)
        end = len(decoded) if end < 0 else end
        byte += len(decoded[counted:index].encode("utf-8"))
        length = len(decoded[index:end].encode("utf-8"))
        spans.append((byte, byte + length))
        counted, byte = end, byte + length
        index = decoded.find("#", end)
    return spans
