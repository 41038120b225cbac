"""Config shown in docs: the YAML blocks of Markdown and reStructuredText, read as config excerpts.

Each block is taken out of the doc (its common indentation removed), read by the YAML config
reader and written by its writer; the edits are mapped back into the doc, the block's indentation
added to every line they write. A block may show part of a config (it starts at `optim:`): its
settings are excerpts, matched by the rule key's last segments (bot.rules.suffix). A block that is
not valid YAML is skipped and counted as a region the reading could not parse.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.ir import DEFAULTS_LIST, EXCERPT, HYDRA_NODE, IN_LIST, SWEEP_PARAMS, ErrorRegion, Plan
from bot.lang.embedded.blocks import YAML_LANGUAGES, Block, Line
from bot.lang.front import Unit
from bot.lang.shell.launches import line_column
from bot.model import Finding, Span

ELISIONS = (b"...", "\u2026".encode())  # a line a doc writes for the config's other keys


@dataclass
class BlockText:
    """A block's lines without their common indentation, and where each line stands in the doc."""

    data: bytes
    text: bytes
    starts: list[int]  # offset of each line in `text`
    hosts: list[int]  # offset in the doc of the same character
    heads: list[int]  # offset in the doc where each line begins (its indentation included)
    indent: bytes
    eol: bytes
    end: int  # the doc offset just past the block's last line break

    def host(self, pos: int, whole_line: bool) -> int:
        if pos >= len(self.text):
            return self.end
        i = max(n for n, s in enumerate(self.starts) if s <= pos)
        if whole_line and pos == self.starts[i]:
            return self.heads[i]
        return self.hosts[i] + pos - self.starts[i]

    def edit(self, span: Span, text: str) -> tuple[Span, str]:
        """A block edit as a doc edit: whole lines keep the indentation; new lines get it."""
        column0 = span.start in self.starts and (span.end in self.starts or span.end >= len(self.text))
        whole = column0 and (text == "" or text.endswith("\n"))
        parts = text.split("\n")
        indent = self.indent.decode("utf-8")
        lines = [indent + p if p and (n > 0 or whole) else p for n, p in enumerate(parts)]
        new = self.eol.decode().join(lines)
        return Span(self.host(span.start, whole), self.host(span.end, whole)), new

    def first_line(self) -> int:
        return line_column(self.data, self.heads[0])[0]


def block_text(data: bytes, block: Block) -> BlockText | None:
    lines = block.lines
    while lines and not data[lines[-1][0] : lines[-1][1]].strip():
        lines = lines[:-1]
    while lines and not data[lines[0][0] : lines[0][1]].strip():
        lines = lines[1:]
    if not lines:
        return None
    filled = [data[s:e] for s, e in lines if data[s:e].strip()]
    width = min(len(t) - len(t.lstrip(b" \t")) for t in filled)
    indent = filled[0][:width]
    if any(not t.startswith(indent) for t in filled):
        return None  # mixed tabs and spaces: no common indentation to take away
    last_end = lines[-1][1]
    eol = b"\r\n" if data[last_end : last_end + 2] == b"\r\n" else b"\n"
    end = min(len(data), last_end + len(eol) if data[last_end : last_end + 1] in (b"\r", b"\n") else last_end)
    text, starts, hosts = bytearray(), [], []
    for start, stop in lines:
        cut = min(width, stop - start)
        starts.append(len(text))
        hosts.append(start + cut)
        body = data[start + cut : stop]
        if body.strip() in ELISIONS:  # "and the rest": blank for the YAML reader, kept in the doc
            body = b" " * len(body)
        text += body + b"\n"
    return BlockText(data, bytes(text), starts, hosts, [s for s, _ in lines], indent, eol, end)


def yaml_units(data: bytes, blocks: list[Block]) -> tuple[list[Unit], list[ErrorRegion]]:
    """One unit a YAML block that reads as config; a region for each that does not."""
    from bot.lang.yaml.config import yaml_groups

    units, regions = [], []
    for block in blocks:
        if block.language not in YAML_LANGUAGES:
            continue
        shown = block_text(data, block)
        if shown is None:
            continue
        try:
            if b"\t" in shown.indent:
                raise ValueError("tab indentation")
            groups = yaml_groups(shown.text, "")
        except Exception:  # ruamel raises more than YAMLError on broken input (as yaml_problem says)
            regions.append(ErrorRegion(shown.text, near_launch=False))
            continue
        # Hydra's own settings shown: not the config's
        groups = [g for g in groups if g.role not in (HYDRA_NODE, SWEEP_PARAMS, DEFAULTS_LIST, IN_LIST)]
        for group in groups:
            group.role, group.label = EXCERPT, "config shown in the doc"
            for setting in group.settings:
                setting.excerpt = True
                setting.parts_read = False  # a doc's lists are followed whole (their keys may be excerpts)
        if groups:
            units.append(Unit(groups, _Realise(shown), _ToHost(shown)))
    return units, regions


def yaml_errors(data: bytes, blocks: list[Block]) -> int:
    """How many YAML blocks do not read as YAML."""
    from bot.lang.yaml.config import yaml_problem

    shown = [block_text(data, b) for b in blocks if b.language in YAML_LANGUAGES]
    return sum(1 for t in shown if t is not None and (b"\t" in t.indent or yaml_problem(t.text) is not None))


@dataclass
class _Realise:
    shown: BlockText

    def __call__(self, plans: list[Plan]) -> None:
        from bot.lang.yaml.edits import realise

        realise(plans)
        for plan in plans:
            plan.edits = [self.shown.edit(span, text) for span, text in plan.edits]


@dataclass
class _ToHost:
    shown: BlockText

    def __call__(self, finding: Finding) -> Finding:
        first = self.shown.first_line() - 1
        finding.column += len(self.shown.indent)
        finding.line += first
        finding.scope = tuple((a + first, b + first) for a, b in finding.scope)
        if finding.fix_site is not None:
            finding.fix_site = (finding.fix_site[0], finding.fix_site[1] + first)
        return finding


def emptied_block(before: bytes, old: list[Block], after: bytes, new: list[Block]) -> str | None:
    """Why the edited doc cannot be trusted: a YAML block's mapping that held keys is empty after the edits."""
    from bot.lang.yaml.emptied import emptied

    for was, now in zip(old, new):
        if was.language not in YAML_LANGUAGES:
            continue
        shown, edited = block_text(before, was), block_text(after, now)
        if shown is not None and edited is not None and shown.text != edited.text:
            problem = emptied(shown.text, edited.text)
            if problem is not None:
                return f"{problem} (the YAML block at line {shown.first_line()})"
    return None


__all__ = ["Line", "emptied_block", "yaml_errors", "yaml_units"]
