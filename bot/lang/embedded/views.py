"""Shell embedded in other files, as text the shell analyser reads, with offsets back to the file.

Markdown, reStructuredText and workflow views are the host file with everything that is not
shell blanked out (newlines kept), so every byte offset is the same in the view and the file and
an edit planned on the view applies to the file unchanged. A notebook's cell sources are JSON
strings, so its view maps each decoded character back to the escape it came from, and text an
edit inserts is written back as JSON in the notebook's own layout (one string per line).

Markdown and reStructuredText views are built in bot.lang.embedded.docs, notebook views in
bot.lang.embedded.notebooks, workflow views in bot.lang.embedded.workflow.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from bot.lang.shell.launches import line_column, line_of
from bot.model import Edit, Finding


@dataclass
class ShellView:
    """Shell text to analyse; `host_at[i]` is the file offset of view byte i (None: the same)."""

    text: bytes
    host_at: list[int] | None = None
    encoders: list[tuple[int, int, str | None]] = field(default_factory=list)  # notebook strings, separators
    names: dict[str, str] = field(default_factory=dict)  # placeholder variable -> what the file says
    hidden_errors: int = 0  # parse errors of lines blanked out of the view (bot.lang.embedded.blocks)
    own: tuple[int, int] | None = None  # the bytes whose launches this view reports (None: all of them)
    dollars: bool = False  # the file doubles each `$` the shell reads (a Makefile's recipes): so does an edit
    held: bool = False  # its launches are held in a variable that recipes run with more words (a Makefile's)

    def reports(self, pos: int) -> bool:
        """Whether a launch starting at view byte `pos` is this view's to report (see `own`)."""
        return self.own is None or self.own[0] <= pos < self.own[1]

    def host(self, pos: int) -> int:
        return pos if self.host_at is None else self.host_at[pos]

    def file_line(self, pos: int, host: bytes) -> int:
        """The file's line of view byte `pos`."""
        return line_of(host, self.host(pos))

    def encode(self, host_pos: int, text: str) -> str:
        """Inserted text as it must be written at `host_pos` of the file."""
        if self.dollars:
            text = text.replace("$", "$$")
        for start, end, separator in self.encoders:
            if start <= host_pos <= end:
                line_break = "\\n" if separator is None else "\\n\"," + separator + "\""
                return "".join(line_break if ch == "\n" else json.dumps(ch, ensure_ascii=False)[1:-1]
                               for ch in text)
        return text

    def restore(self, text: str) -> str:
        """`text` with each stand-in name (a doc's `<placeholder>`, a workflow's `${{ expr }}`) as the file says it."""
        for name, original in self.names.items():
            text = text.replace("${" + name + "}", original).replace("$" + name, original).replace(name, original)
        return text

    def to_host(self, finding: Finding, host: bytes, lines_in_message: bool = True) -> Finding:
        """The finding in the file's terms; `lines_in_message`: "line N" in its message are view lines."""
        for name, original in self.names.items():
            if original.startswith("<"):  # a doc's placeholder, not a variable of the caller's environment
                finding.message = finding.message.replace(
                    f"from {name}, which this script never assigns (the caller's environment)",
                    f"{original}, a placeholder the reader fills in")
            elif original.startswith("$"):  # a Makefile's reference, which make expands when it runs
                finding.message = finding.message.replace(
                    f"from {name}, which this script never assigns (the caller's environment)",
                    f"from make's {original}")
            finding.message = finding.message.replace("${" + name + "}", original).replace(name, original)
        if self.host_at is None:
            return finding
        finding.line, finding.column = line_column(host, self.host(self.offset_of(finding.line, finding.column)))
        finding.scope = tuple((self.host_line(first, host), self.host_line(last, host))
                              for first, last in finding.scope)
        finding.edits = [Edit(e.path, type(e.span)(self.host(e.span.start), self.host(e.span.end)),
                              self.encode(self.host(e.span.start), e.text), e.rule) for e in finding.edits]
        if finding.edits:
            finding.fix_site = (finding.path, line_column(host, finding.edits[0].span.start)[0])
        if lines_in_message:
            finding.message = self.host_line_numbers(finding.message, host)
        return finding

    def host_line_numbers(self, text: str, host: bytes) -> str:
        """`text` with its "line N" (lines of this view) as the file's lines."""
        if self.host_at is None:
            return text
        return _LINE_NUMBER.sub(lambda m: m.group(1) + self.host_lines(m.group(2), host), text)

    def offset_of(self, line: int, column: int) -> int:
        start = 0
        for _ in range(line - 1):
            start = self.text.index(b"\n", start) + 1
        end = self.text.find(b"\n", start)
        row = self.text[start : end if end >= 0 else len(self.text)].decode("utf-8", "replace")
        return start + len(row[: column - 1].encode("utf-8"))

    def host_line(self, line: int, host: bytes) -> int:
        return line_of(host, self.host(self.offset_of(line, 1)))

    def host_lines(self, numbers: str, host: bytes) -> str:
        if any(int(n) > self.text.count(b"\n") + 1 for n in numbers.split(", ")):
            return numbers
        return ", ".join(str(self.host_line(int(n), host)) for n in numbers.split(", "))


_LINE_NUMBER = re.compile(r"(\blines? )(\d+(?:, \d+)*)")
