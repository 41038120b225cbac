"""Which parts of a file can hold anything for the rules, told by their bytes (and, for shell that
looks settled, tree-sitter's tree) before any analysis.

A text is worth reading when it holds one of the enabled rules' literal tokens, not settled. A token
written `TOKEN=LITERAL` is settled when the rules say that value is fine for every key it can end
(`Settle`, from bot.rules.settled) and the literal is the whole value of its shell word
(bot.lang.shell.word_ends): after a migration most occurrences read so, and shell holding only such
occurrences can be no finding. Only shell text settles; other kinds are read when they mention a token.

Shell without an unsettled token can still matter in one way only: it runs a repository script whose
overrides read a value from the environment, and hands that value over (`USE_X=False bash run_x.sh`).
The callee then holds the rule's key (a rule key is literal text in the override that sets it, or in
the value the callee assigns), and the caller writes the variable's name (the analysis takes a caller's
values only from assignments it writes). The shell runs a repository script only through a word ending
in `.sh`, resolved against the repository root or the caller's directory (bot.lang.shell.calls.resolve).
So such a caller is read when such a word may name a script that holds an unsettled token: a plain path
to one, or to a file on disk the listing lacks (an ignored or generated one), a glob matching one on
disk, a word built from an expansion, or one quoted in a way this scan does not follow; and, told the
whole file, when it names a variable that script hands to a key with a token. Everything else is quiet
without a parse.
"""
from __future__ import annotations

import glob
import os
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

from bot.lang.kinds import SHELL, SHELL_FAMILY

Trees = Callable[[bytes], Any]  # shell text -> its tree-sitter tree (a front end's: bot.lang.shell.front)

# `.sh` ending a word, its letters possibly quoted or escaped one by one (`."sh"`, `.s\h`)
_DOT_SH = re.compile(rb"\.[\"'\\]*s[\"'\\]*h[\"']*(?![\w.\-])")
_WORD_START = frozenset(b" \t\r\n;|&<>(`=")
_EXPANDED = frozenset(b"$`}){*?[")  # expansions, globs: the name is made at run time
_QUOTES = b"\"'\\"
_GLOB = frozenset(b"*?[")
GLOB = "\0glob"  # in `looked`: the answer rests on what a glob matched on disk
# what may follow a literal value so that the word ends with it: a blank or operator, a line continuation
# before a blank, or a quote closing the string followed by one of those (or the end of the text)
_WORD_END = rb"(?:[ \t\n;|&)]|\\\n[ \t]|\Z)"
_LITERAL = rb"=([A-Za-z0-9_.\-]+)(?=[\"']?" + _WORD_END + rb")"


class Settle(Protocol):
    """Which `TOKEN=LITERAL` texts no enabled rule can report (bot.rules.settled.SettledLiterals)."""

    tokens: frozenset[bytes]

    def settled(self, token: bytes, literal: str) -> bool: ...


@dataclass(frozen=True)
class Scripts:
    """The listed `.sh` scripts, and those of them that hold a token (or could not be read).

    `root`: the repository's directory, where a script the listing lacks (an ignored one) is looked
    for; None: any such script may exist.
    """

    listed: frozenset[str]
    hot: frozenset[str]
    root: str | None = None
    inputs: Mapping[str, frozenset[str]] = field(default_factory=dict, hash=False, compare=False)

    def feeds(self, path: str, caller: bytes | None = None) -> bool:
        """Whether the listed script holds a token and (for the `caller` text) reads a variable the caller
        names: the shell analysis takes a caller's values only from assignments it writes."""
        if path not in self.hot:
            return False
        told = self.inputs.get(path)
        return caller is None or told is None or any(name.encode() in caller for name in told)

    def on_disk(self, path: str) -> bool:
        """Whether a repository path the listing lacks may be a script (an ignored one, say)."""
        return self.root is None or os.path.isfile(os.path.join(self.root, *path.split("/")))

    def matches(self, pattern: str) -> list[str]:
        """The repository paths a glob matches (in its directory on disk, as the shell expands it)."""
        assert self.root is not None
        if pattern.startswith("../") or pattern == "..":
            return []
        found = glob.glob(pattern, root_dir=self.root)
        return [posixpath.normpath(path.replace(os.sep, "/")) for path in found]


@dataclass(frozen=True)
class Calls:
    """The scripts a caller's `.sh` words may name, told before which scripts hold a token is known."""

    named: frozenset[str] = frozenset()  # listed scripts it may run
    unknown: bool = False  # it may run a script no listing tells: a name made at run time, an unlisted file
    looked: tuple[str, ...] = ()  # what the answer rests on besides the listing (see may_run_hot)

    def run_hot(self, scripts: Scripts, caller: bytes | None = None) -> bool:
        """Whether one of them may hold a token (and, told the `caller`'s whole text, be handed a value)."""
        return self.unknown or any(scripts.feeds(path, caller) for path in self.named)


@dataclass(frozen=True)
class Focus:
    """The rules' literal tokens, and the listed scripts (None: not known yet).

    `listing`: the listed scripts before which of them hold a token is known (its `hot` is empty), so
    that a caller's `.sh` words can be told (script_calls) while the scripts are being read.
    """

    tokens: tuple[bytes, ...]
    scripts: Scripts | None = None
    settle: Settle | None = None
    listing: Scripts | None = None
    looked: list[str] = field(default_factory=list, compare=False, hash=False)  # see may_run_hot

    def holds(self, text: bytes, kind: str = SHELL, trees: Trees | None = None) -> bool:
        """Whether the text, of the `kind`, holds a token that is not settled: only then can it matter.

        Only shell text settles: there a settled occurrence must also end its shell word in a parse
        without errors, nested no deeper than the analysis follows (bot.lang.shell.word_ends). Other
        kinds hold any mention: in Python a key can be spelt with escapes, and a file that does not
        parse is reported. `trees`: where the text's parse comes from (its front end's: parsed once).
        """
        spans: list[tuple[int, int]] = []
        for token in self.tokens:
            found = self._settled(token, text) if kind == SHELL else (None if token in text else [])
            if found is None:
                return True
            spans += found
        if not spans:
            return False
        from bot.lang.shell.word_ends import end_words

        return not end_words(text, spans, trees(text) if trees is not None else None)

    def mentions(self, text: bytes) -> bool:
        """Whether the text holds a token, settled or not."""
        return any(token in text for token in self.tokens)

    def _settled(self, token: bytes, text: bytes) -> list[tuple[int, int]] | None:
        """The spans of the token's occurrences, each through its literal value, if all read as settled."""
        at = text.find(token)
        if at < 0:
            return []
        if self.settle is None or token not in self.settle.tokens:
            return None
        pattern = _settled_form(token)
        spans = []
        while at >= 0:
            match = pattern.match(text, at)
            if match is None or not self.settle.settled(token, match.group(1).decode("ascii")):
                return None
            spans.append((at, match.end()))
            at = text.find(token, at + 1)
        return spans

    def wanted(self, text: bytes, path: str, trees: Trees | None = None) -> bool:
        """Whether shell text of the file `path` holds a token or may run a script that does (any
        script while they are not known)."""
        if self.holds(text, SHELL, trees):
            return True
        if not may_call(text):
            return False
        return self.scripts is None or may_run_hot(text, path, self.scripts, looked=self.looked)


@lru_cache(maxsize=64)
def _settled_form(token: bytes) -> re.Pattern[bytes]:
    return re.compile(re.escape(token) + _LITERAL)


def may_call(data: bytes) -> bool:
    """Whether shell text can run a repository script at all (the test that needs other files)."""
    return _DOT_SH.search(data) is not None


def may_call_script(kind: str, data: bytes) -> bool:
    """Whether a file of `kind` can run a repository script."""
    return kind in SHELL_FAMILY and may_call(data)


def may_run_hot(data: bytes, caller: str, scripts: Scripts, whole: bool = False,
                looked: list[str] | None = None) -> bool:
    """Whether shell text of the file `caller` may run a script that holds a token, or one it cannot tell.

    `whole`: the text is the caller's whole file (every value it can hand over is written in it), so a
    script it runs matters only when the caller names a variable the script reads. `looked` collects
    what the answer rests on besides the listed scripts: each path looked for on disk, and GLOB when a
    glob was expanded there (the answer then rests on every file the glob could match).
    """
    calls = script_calls(data, caller, scripts)
    if looked is not None:
        looked.extend(calls.looked)
    return calls.run_hot(scripts, data if whole else None)


def script_calls(data: bytes, caller: str, scripts: Scripts) -> Calls:
    """The scripts the shell text of the file `caller` may run, of `scripts.listed` (its `hot` is not read)."""
    named: set[str] = set()
    looked: list[str] = []
    for match in _DOT_SH.finditer(data):
        start = match.start()
        while start > 0 and data[start - 1] not in _WORD_START:
            start -= 1
        word = data[start : match.end()]
        if any(word.count(bytes([quote])) % 2 for quote in b"\"'"):
            return Calls(unknown=True, looked=tuple(looked))  # a quote opened before a blank: the word began earlier
        run_time = {byte for byte in word if byte in _EXPANDED}
        if ord("[") in run_time and b"]" not in word[word.index(b"[") :]:
            run_time.discard(ord("["))  # `[` without its `]` is a letter (a doc's `[run.sh](...)`)
        written = word.translate(None, _QUOTES).decode("utf-8", "surrogateescape")
        if run_time - _GLOB:
            # a name made at run time (`$DIR/train.sh`): it may name any script, an ignored one too
            return Calls(unknown=True, looked=tuple(looked))
        if posixpath.basename(written) == ".sh":
            if _stripped_suffix(data, start):
                continue
            return Calls(unknown=True, looked=tuple(looked))  # a bare suffix (`EXT=.sh`): names are made with it
        if written.startswith(("/", "~")):
            continue  # a machine's path, never a repository script (resolve() takes none)
        beside = posixpath.join(posixpath.dirname(caller), written)
        paths = {posixpath.normpath(written), posixpath.normpath(beside)}
        if run_time:  # a glob: the scripts it matches where the shell looks
            if scripts.root is None:
                return Calls(unknown=True, looked=tuple(looked))
            paths = {hit for path in paths for hit in scripts.matches(path)} or paths
            looked.append(GLOB)
        for path in paths:
            if path in scripts.listed:
                named.add(path)
            elif not (path.startswith("../") or path == ".."):
                looked.append(path)
                if scripts.on_disk(path):
                    return Calls(unknown=True, looked=tuple(looked))
    return Calls(frozenset(named), False, tuple(looked))


def _stripped_suffix(data: bytes, start: int) -> bool:
    """Whether the word at `start` is the suffix `basename` strips (`$(basename "$0" .sh)`): it names nothing."""
    before = data[data.rfind(b"\n", 0, start) + 1 : start]
    return re.match(rb"\s*basename\s", re.split(rb"[;|&(`]", before)[-1]) is not None


__all__ = ["Calls", "Focus", "Scripts", "Settle", "may_call", "may_call_script", "may_run_hot", "script_calls"]
