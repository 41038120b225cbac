"""Config values an upstream change renamed (`clip` -> `mask`), read from its own lines (nothing imported).

A value rename X -> Y of a config key K is read from what the change says in two languages:

- its Python: a line comparing K to X became one comparing it to Y (`mode == "clip"` -> `mode == "mask"`), a list
  of accepted values had X replaced by Y, or a new deprecation message names X and then Y ("`tracking` is
  deprecated, use `wandb`"); K is the attribute (or name) compared, matched to the end of a config key;
- its YAML: K's default became Y where it was X (a list's element too), or a comment that belongs to K (on its
  line or just above it) or names it had X replaced by Y.

The Python comparison or list is the check that reads the value: the step is verified when the code that reads K
accepts Y after the change. It is of high confidence when the YAML (or a deprecation message) agrees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

LITERAL = re.compile(r"""(['"])([\w.\-]+)\1""")
COMPARED = re.compile(r"""([A-Za-z_][\w.]*(?:\[['"][\w]+['"]\])*)\s*(?:==|!=)\s*(['"])([\w.\-]+)\2""")
QUOTED_WORD = re.compile(r"""[`'"]([\w.\-]+)[`'"]""")
DEPRECATED = re.compile(r"deprecat", re.IGNORECASE)
YAML_KEY = re.compile(r"^(\s*)([A-Za-z_][\w-]*)\s*:(.*)$")
WORD = re.compile(r"[\w.\-]+")


@dataclass
class ValueRename:
    key: str  # a config key, or a glob (`**.rollout.name`)
    old: Any
    new: Any
    in_list: bool = False  # the key holds a list: the element is renamed
    sources: list[str] = field(default_factory=list)
    verified: bool = False  # the Python that reads the key accepts the new value after the change


@dataclass
class Hunk:
    path: str
    removed: list[str]
    added: list[str]
    after_text: str = ""
    context: list[str] = field(default_factory=list)  # the unchanged lines the patch shows around them


def swapped(removed: str, added: str) -> tuple[str, str] | None:
    """(X, Y) when the two lines are the same but for one word X -> Y."""
    old_words, new_words = WORD.findall(removed), WORD.findall(added)
    if len(old_words) != len(new_words) or WORD.sub("", removed) != WORD.sub("", added):
        return None
    pairs = {(a, b) for a, b in zip(old_words, new_words, strict=True) if a != b}
    if len(pairs) != 1:
        return None
    old, new = pairs.pop()
    return (old, new) if not old.isdigit() and not new.isdigit() else None


def _pairs(hunk: Hunk) -> list[tuple[str, str, str, str]]:
    """(removed line, added line, X, Y) for the line pairs of a hunk that differ in one word."""
    out = []
    used: set[int] = set()
    for removed in hunk.removed:
        for index, added in enumerate(hunk.added):
            if index in used:
                continue
            pair = swapped(removed, added)
            if pair is not None:
                used.add(index)
                out.append((removed, added, *pair))
                break
    return out


def _subject(chain: str) -> str:
    """`self.config.rollout.name` -> `rollout.name`; `mode` -> `mode`; `cfg["a"]["b"]` -> `a.b`."""
    parts = [p for p in re.split(r"""\.|\[['"]|['"]\]""", chain) if p and p not in ("self", "config", "cfg")]
    return ".".join(parts[-2:]) if len(parts) >= 2 else (parts[0] if parts else "")


@dataclass
class InCode:
    subjects: set[str] = field(default_factory=set)  # what the Python compares to the values (`rollout.name`)
    kinds: set[str] = field(default_factory=set)  # compare | list | deprecation


def python_renames(hunks: list[Hunk]) -> dict[tuple[str, str], InCode]:
    """(X, Y) -> what the change's Python says of them: the subjects it compares to them, and how."""
    out: dict[tuple[str, str], InCode] = {}
    for hunk in hunks:
        for removed, added, old, new in _pairs(hunk):
            before, after = COMPARED.search(removed), COMPARED.search(added)
            if before and after and before.group(3) == old and after.group(3) == new and \
                    before.group(1) == after.group(1):
                found = out.setdefault((old, new), InCode())
                found.subjects.add(_subject(before.group(1)))
                found.kinds.add("compare")
            elif re.search(rf"""['"]{re.escape(old)}['"]""", removed) and ("[" in removed or "(" in removed):
                out.setdefault((old, new), InCode()).kinds.add("list")  # a list or tuple of accepted values
        for line in hunk.added:
            if DEPRECATED.search(line):
                words = QUOTED_WORD.findall(line)
                if len(words) >= 2 and words[0] != words[1]:
                    out.setdefault((words[0], words[1]), InCode()).kinds.add("deprecation")
    for hunk in hunks:  # the comparisons the values get in the lines the change adds
        for line in hunk.added:
            match = COMPARED.search(line)
            if match:
                for (old, new), found in out.items():
                    if match.group(3) in (old, new):
                        found.subjects.add(_subject(match.group(1)))
    return out


def _attached_key(after_text: str, comment: str) -> str | None:
    """The dotted key (within its file) a comment line belongs to: its own line's key, or the next key below."""
    lines = after_text.splitlines()
    stack: list[tuple[int, str]] = []
    pending = False
    for line in lines:
        match = YAML_KEY.match(line)
        if line.strip() == comment.strip() and not match:
            pending = True
            continue
        if match:
            indent = len(match.group(1))
            while stack and stack[-1][0] >= indent:
                stack.pop()
            stack.append((indent, match.group(2)))
            if pending or line.rstrip() == comment.rstrip():
                return ".".join(name for _, name in stack)
        if line.strip() and not line.strip().startswith("#"):
            pending = False
    return None


def yaml_renames(hunks: list[Hunk]) -> dict[tuple[str, str], set[str]]:
    """(X, Y) -> the keys (within their file) whose comment or default the change's YAML changed X -> Y, or a key
    a changed comment names."""
    out: dict[tuple[str, str], set[str]] = {}
    for hunk in hunks:
        for _removed, added, old, new in _pairs(hunk):
            if "#" not in added and YAML_KEY.match(added) is None:
                continue
            key = _attached_key(hunk.after_text, added)
            comment = added.split("#", 1)[1] if "#" in added else ""
            found = out.setdefault((old, new), set())
            if key:
                found.add(key)
            found.update(w for w in WORD.findall(comment) if "." in w and not w[0].isdigit())
    return out


def _ends(key: str, suffix: str) -> bool:
    return bool(suffix) and (key == suffix or key.endswith("." + suffix))


def value_renames(python: list[Hunk], yaml: list[Hunk], before: dict[str, Any], after: dict[str, Any]
                  ) -> list[ValueRename]:
    """The value renames the change's Python says, for the keys of the apps' composed configs (`before`, `after`:
    dotted key -> default) it compares or its YAML names; each with the sources that agree."""
    in_yaml = yaml_renames(yaml)
    out: list[ValueRename] = []
    for (old, new), code in sorted(python_renames(python).items()):
        named = in_yaml.get((old, new), set())
        keys = {k for k in before if any(_ends(k, s) for s in code.subjects | named)}
        for key in sorted(keys):
            default, now = before[key], after.get(key)
            in_list = isinstance(default, list)
            sources = []
            if "deprecation" in code.kinds:
                sources.append(f"the change's Python calls `{old}` deprecated in favour of `{new}`")
            if any(_ends(key, n) for n in named):
                sources.append("the change's YAML says so beside the key")
            if (default == old and now == new) or (in_list and old in default and isinstance(now, list)
                                                   and new in now and old not in now):
                sources.append("the key's default changed with it")
            compared = "compare" in code.kinds and any(_ends(key, s) for s in code.subjects)
            verified = compared or bool(code.kinds & {"list", "deprecation"})
            out.append(ValueRename(key, old, new, in_list, sources, verified=verified))
    return out
