"""A rule pack (issue 43, item 4): the migrations inferred over a range of an upstream's history, kept as files so
that an upgrade runs them instead of inferring them again (`bot pack build`, `bot upgrade --pack DIR`).

`DIR/pack.yaml` says which upstream the pack is of, the range it was read over, the bot's version, when it was
built, and one entry per rule: its file, the upstream commit it applies from and why it was inferred. Each rule is
one file under `DIR/rules/<commit>/`, the rule as inferred (with `upstream:`), headed by comments naming its commit. The
files are written in a fixed order and form, so building the same range again gives the same bytes.

A pack is only ever loaded through `--pack`: it is never a bundled or default rule, and it is refused for a
downstream whose upstream is another one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.errors import UserError

if TYPE_CHECKING:
    from bot.downstream.model import Upstream
    from bot.rules.model import Rule

FORMAT = 1
INDEX = "pack.yaml"
RULES = "rules"


@dataclass(frozen=True)
class Entry:
    """One rule of the pack: its file (relative to the pack), the commit it applies from and why."""

    file: str
    id: str
    commit: str
    subject: str
    pr: int | None
    reason: str


@dataclass
class Pack:
    directory: Path
    upstream: dict[str, Any]  # name (as the downstream names it), source, packages
    start: dict[str, str]  # {given, commit}
    end: dict[str, str]
    bot: str
    built: str
    keep_old_defaults: bool
    walked: int = 0
    read: int = 0
    entries: list[Entry] = field(default_factory=list)

    def commits(self) -> list[str]:
        """The commits with rules, in the pack's (history) order, each once."""
        return list(dict.fromkeys(e.commit for e in self.entries))

    def rules_at(self, commit: str) -> list[tuple[Rule, str]]:
        """The parsed rules the commit applies, each with its reason, in the pack's order."""
        return [(_parse(self.directory, e), e.reason) for e in self.entries if e.commit == commit]

    def index(self) -> dict[str, Any]:
        return {"format": FORMAT, "upstream": self.upstream,
                "range": {"from": self.start, "to": self.end},
                "bot": self.bot, "built": self.built,
                "policy": {"confidence": "high", "keep_old_defaults": self.keep_old_defaults},
                "walked": self.walked, "read": self.read,
                "rules": [{"file": e.file, "id": e.id, "commit": e.commit, "subject": e.subject,
                           **({"pr": e.pr} if e.pr is not None else {}), "reason": e.reason}
                          for e in self.entries]}


def names_upstream(pack: Pack, upstream: Upstream) -> bool:
    """Whether the pack is of this upstream: the same name, or the same source."""
    mine = {pack.upstream.get("name"), pack.upstream.get("source")}
    return upstream.name in mine or upstream.source in mine


def refuse_other(pack: Pack, upstream: Upstream, setting: str) -> None:
    """A one-line error when the pack is of another upstream than the one `setting` names."""
    if not names_upstream(pack, upstream):
        raise UserError(f"--pack {pack.directory}: the pack is of upstream {pack.upstream.get('name')!r}, but "
                        f"{setting} names {upstream.name!r} (expected a pack built with --upstream {upstream.name})")


def load_pack(directory: Path) -> Pack:
    """The pack in `directory` (its rules are parsed when a step asks for them); a one-line error when it is not
    one."""
    index = directory / INDEX
    if not index.is_file():
        raise UserError(f"--pack {directory}: no {INDEX} (expected a directory `bot pack build` wrote)")
    data = _load_yaml(index)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        said = data.get("format") if isinstance(data, dict) else data
        raise UserError(f"{index}: format: expected {FORMAT}, got {said!r}")
    try:
        upstream, span, policy = data["upstream"], data["range"], data["policy"]
        entries = [Entry(str(r["file"]), str(r["id"]), str(r["commit"]), str(r["subject"]),
                         int(r["pr"]) if r.get("pr") is not None else None, str(r["reason"]))
                   for r in data.get("rules") or []]
        return Pack(directory, dict(upstream), dict(span["from"]), dict(span["to"]), str(data["bot"]),
                    str(data["built"]), bool(policy["keep_old_defaults"]), int(data.get("walked", 0)),
                    int(data.get("read", 0)), entries)
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"{index}: expected upstream, range, bot, built, policy and rules as `bot pack build` "
                        f"writes them ({type(exc).__name__}: {exc})") from None


def _parse(directory: Path, entry: Entry) -> Rule:
    from bot.rules.loader import parse_rule

    path = directory / entry.file
    if not path.is_file():
        raise UserError(f"{directory / INDEX}: rule {entry.id}: its file {entry.file} is missing")
    rule = parse_rule(_load_yaml(path), path)
    if rule.id != entry.id:
        raise UserError(f"{path}: id: expected {entry.id} (as {INDEX} lists it), got {rule.id}")
    return rule


def _load_yaml(path: Path) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        return YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    except (OSError, YAMLError) as exc:
        raise UserError(f"{path}: not readable YAML: {str(exc).splitlines()[0] if str(exc) else exc}") from None


def dump_yaml(data: Any) -> str:
    """`data` as YAML in one fixed form (insertion order, wide lines, multi-line strings as blocks)."""
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.default_flow_style = False
    yaml.width = 4096
    buffer = StringIO()
    yaml.dump(_plain(data), buffer)
    return buffer.getvalue()


def _plain(value: Any) -> Any:
    from ruamel.yaml.scalarstring import LiteralScalarString

    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, str) and "\n" in value:
        return LiteralScalarString(value if value.endswith("\n") else value + "\n")
    return value


def rule_text(rule: dict[str, Any], entry: Entry) -> str:
    """A rule's file: comments naming the commit it applies from and why, then the rule as inferred (with
    `upstream:`, the pull request or commit, when the inference gave none)."""
    head = [f"# from upstream commit {entry.commit}: {_one_line(entry.subject)}",
            f"# {_one_line(entry.reason)}"]
    marked = rule if "upstream" in rule else {**rule, "upstream": f"#{entry.pr}" if entry.pr else entry.commit[:12]}
    return "\n".join(head) + "\n" + dump_yaml(marked)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def write_pack(pack: Pack, rules: dict[str, dict[str, Any]]) -> None:
    """The pack's files: each rule in `rules` (by entry file) written, then the index (last: a pack read while it
    is written names no file that is not there yet)."""
    from bot.safe_write import replace_file

    for entry in pack.entries:
        if entry.file in rules:
            (pack.directory / entry.file).parent.mkdir(parents=True, exist_ok=True)
            replace_file(pack.directory / entry.file, rule_text(rules[entry.file], entry).encode("utf-8"))
    replace_file(pack.directory / INDEX, dump_yaml(pack.index()).encode("utf-8"))
