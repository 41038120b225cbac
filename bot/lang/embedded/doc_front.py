"""What a doc or a script holds beside its launches: config in YAML blocks, commented-out overrides,
override literals in prose and blocks of bare override lines.

The shell family's front end reads the launches; these readers add their own units to its reading
(docs/dev/replay-format.md: "Config shown in docs", "Fences without a language", "Commented-out overrides
and literals in prose").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.context import NO_CONSOLES, Consoles
from bot.lang.embedded.blocks import DocBlocks, Line, markdown_blocks, overrides_only
from bot.lang.embedded.doc_python import PYTHON_LANGUAGES
from bot.lang.focus import Focus, Trees
from bot.lang.front import UNREADABLE, FrontEnd, Reading, Unit

COMMENTED = re.compile(  # a comment line with an override, or a commented launch with one
    rb"^[ \t]*#[^\n]*(?:[\w\]]\.[\w.\[\]\-]+="
    rb"|(?:python[\d.]*|torchrun|deepspeed|accelerate|srun)\s.*\s[A-Za-z_][\w\-]*=)", re.MULTILINE)


def _lines(data: bytes) -> list[Line]:
    from bot.lang.embedded.docs import _lines as lines

    return lines(data)


def comment_starts(data: bytes, trees: Trees | None = None) -> set[int]:
    """Where tree-sitter-bash sees the script's comments begin; `trees`: where its parse comes from."""
    from bot.lang.shell.nodes import descendants
    from bot.lang.shell.parse import parse_tree

    tree = trees(data) if trees is not None else parse_tree(data)
    return {node.start_byte for node in descendants(tree.root_node, {"comment"})}


@dataclass
class _Readers:
    """A front end (`inner`: a shell-family or YAML one) with readers of overrides written as text beside it."""

    inner: FrontEnd
    consoles: Consoles = NO_CONSOLES  # the repository's console scripts: a doc's bare block that runs one is shell

    @property
    def focus(self) -> Focus | None:
        """The shell front end's focus (bot.lang.focus): its views and callees; these readers read all."""
        return getattr(self.inner, "focus", None)

    @focus.setter
    def focus(self, focus: Focus | None) -> None:
        if hasattr(self.inner, "focus"):
            self.inner.focus = focus

    def read(self, data: bytes) -> Reading:
        return self.inner.read(data)

    def errors(self, data: bytes) -> int:
        return self.inner.errors(data)

    def problem(self, before: bytes, after: bytes) -> str | None:
        return self.inner.problem(before, after)


class ScriptTexts(_Readers):
    """A script, with its commented-out overrides."""

    def read(self, data: bytes) -> Reading:
        from bot.lang.embedded import literals

        reading = self.inner.read(data)
        if COMMENTED.search(data):
            starts = comment_starts(data, getattr(self.inner, "tree", None))  # the script's own parse
            groups = literals.literal_groups(data, literals.comment_literals(data, _lines(data), starts), [], [])
            if groups:
                reading.units.append(Unit(groups, literals.realise))
        return reading


class ConfigComments(_Readers):
    """A YAML config, with the overrides of its comment lines."""

    def read(self, data: bytes) -> Reading:
        reading = self.inner.read(data)
        if COMMENTED.search(data):
            from bot.lang.embedded.yaml_comments import comment_units

            reading.units.extend(comment_units(data))
        return reading


class NotebookTexts(_Readers):
    """A notebook: its markdown cells' blocks and text, and its Python code cells."""

    def read(self, data: bytes) -> Reading:
        from bot.lang.embedded.nb_markdown import notebook_units
        from bot.lang.embedded.nb_python import python_cell_units

        reading = self.inner.read(data)
        units, regions = notebook_units(data, self.consoles)
        reading.units.extend(units)
        reading.units.extend(python_cell_units(data, self.consoles))
        reading.partly_parsed = reading.partly_parsed or bool(regions)
        reading.regions.extend(regions)
        return reading

    def errors(self, data: bytes) -> int:
        from bot.lang.embedded.nb_markdown import notebook_yaml_errors

        errors = self.inner.errors(data)
        return errors if errors >= UNREADABLE else errors + notebook_yaml_errors(data, self.consoles)


@dataclass
class DocTexts(_Readers):
    """A doc (Markdown or reStructuredText): its YAML and Python blocks, commented-out overrides in its shell
    blocks, override literals in its prose and blocks of bare override lines."""

    blocks_of: Callable[[bytes, Consoles], DocBlocks] = markdown_blocks
    rst: bool = False  # reStructuredText's prose (its literals are written ``a=1``)

    def blocks(self, data: bytes) -> DocBlocks:
        return self.blocks_of(data, self.consoles)

    def read(self, data: bytes) -> Reading:
        from bot.lang.embedded import literals
        from bot.lang.embedded.doc_yaml import yaml_units

        reading = self.inner.read(data)
        doc = self.blocks(data)
        units, regions = yaml_units(data, doc.blocks)
        reading.units.extend(units)
        if any(block.language in PYTHON_LANGUAGES for block in doc.blocks):
            from bot.lang.embedded.doc_python import python_block_units

            reading.units.extend(python_block_units(data, doc.blocks, self.consoles))
        if regions:
            reading.partly_parsed = True
            reading.regions.extend(regions)
        comments = [run for block in doc.blocks if block.shell
                    for run in literals.comment_literals(data, block.lines)]
        prose = literals.prose_literals(data, doc.prose, rst=self.rst)
        bare = [literals.bare_literals(data, block.lines) for block in doc.blocks  # also a `bash` block of
                if (block.bare or block.shell) and overrides_only(data, block.lines)]  # them: bash runs none
        groups = literals.literal_groups(data, comments, prose, bare)
        if groups:
            reading.units.append(Unit(groups, literals.realise))
        return reading

    def errors(self, data: bytes) -> int:
        from bot.lang.embedded.doc_yaml import yaml_errors

        return self.inner.errors(data) + yaml_errors(data, self.blocks(data).blocks)

    def problem(self, before: bytes, after: bytes) -> str | None:
        problem = self.inner.problem(before, after)
        if problem is not None:
            return problem
        old, new = self.blocks(before).blocks, self.blocks(after).blocks
        if [(b.language, b.shell) for b in old] != [(b.language, b.shell) for b in new]:
            return "the edit changed the doc's code blocks"
        if [overrides_only(before, b.lines) for b in old] != [overrides_only(after, b.lines) for b in new]:
            return "the edit changed which blocks hold overrides"
        from bot.lang.embedded.doc_yaml import emptied_block

        return emptied_block(before, old, after, new)
