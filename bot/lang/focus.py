"""Which parts of a file can hold anything for the rules, told by their bytes before any parse.

A text is worth reading when it holds one of the enabled rules' literal tokens. Shell without them
can still matter in one way only: it runs a repository script whose overrides read a value from the
environment, and hands that value over (`USE_X=False bash run_x.sh`). The callee then holds the rule's
key (a rule key is literal text in the override that sets it, or in the value the callee assigns).
The shell runs a repository script only through a word ending in `.sh`, resolved against the
repository root or the caller's directory (bot.lang.shell.calls.resolve). So such a caller is read
unless every such word it writes is a plain path to a listed script that holds no token: a word
built from an expansion, quoted in a way this scan does not follow, or naming a script the listing
lacks (an ignored or generated one) gets it read. Everything else is quiet without a parse.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from bot.lang.kinds import SHELL_FAMILY

# `.sh` ending a word, its letters possibly quoted or escaped one by one (`."sh"`, `.s\h`)
_DOT_SH = re.compile(rb"\.[\"'\\]*s[\"'\\]*h[\"']*(?![\w.\-])")
_WORD_START = frozenset(b" \t\r\n;|&<>(`=")
_EXPANDED = frozenset(b"$`}){*?[")  # expansions, globs: the name is made at run time
_QUOTES = b"\"'\\"


@dataclass(frozen=True)
class Scripts:
    """The listed `.sh` scripts, and those of them that hold a token (or could not be read)."""

    listed: frozenset[str]
    hot: frozenset[str]


@dataclass(frozen=True)
class Focus:
    """The rules' literal tokens, and the listed scripts (None: not known yet)."""

    tokens: tuple[bytes, ...]
    scripts: Scripts | None = None

    def holds(self, text: bytes) -> bool:
        """Whether the text holds a token: a callee's overrides can matter only then."""
        return any(token in text for token in self.tokens)

    def wanted(self, text: bytes, path: str) -> bool:
        """Whether shell text of the file `path` holds a token or may run a script that does (any
        script while they are not known)."""
        if self.holds(text):
            return True
        if not may_call(text):
            return False
        return self.scripts is None or may_run_hot(text, path, self.scripts)


def may_call(data: bytes) -> bool:
    """Whether shell text can run a repository script at all (the test that needs other files)."""
    return _DOT_SH.search(data) is not None


def may_call_script(kind: str, data: bytes) -> bool:
    """Whether a file of `kind` can run a repository script."""
    return kind in SHELL_FAMILY and may_call(data)


def may_run_hot(data: bytes, caller: str, scripts: Scripts) -> bool:
    """Whether shell text of the file `caller` may run a script that holds a token, or one it cannot tell."""
    for match in _DOT_SH.finditer(data):
        start = match.start()
        while start > 0 and data[start - 1] not in _WORD_START:
            start -= 1
        word = data[start : match.end()]
        if any(byte in _EXPANDED for byte in word):
            return True
        if any(word.count(bytes([quote])) % 2 for quote in b"\"'"):
            return True  # a quote opened before a blank: the word began earlier than this scan sees
        written = word.translate(None, _QUOTES).decode("utf-8", "surrogateescape")
        if written.startswith(("/", "~")):
            continue  # a machine's path, never a repository script (resolve() takes none)
        beside = posixpath.join(posixpath.dirname(caller), written)
        candidates = {posixpath.normpath(written), posixpath.normpath(beside)}
        if candidates & scripts.hot or not candidates & scripts.listed:
            return True
    return False


__all__ = ["Focus", "Scripts", "may_call", "may_call_script", "may_run_hot"]
