"""One requirement line (pip's requirements, a project dependency, a `pip install` in a README) read for
the upstream's distribution: which version, range, commit or ref it fixes."""

from __future__ import annotations

import re

NAME = re.compile(r"^(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*(?P<rest>.*)$")
COMMIT = re.compile(r"^[0-9a-f]{7,40}$")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
VERSION = re.compile(r"^v?\d+(?:\.\d+)*(?:[.-]?(?:a|b|rc|post|dev)\d*)*(?:\+[\w.]+)?$")
VCS = re.compile(r"^(?:-e\s+)?(?:git\+)?(?P<url>(?:https?|ssh|git|file)://\S+?|git@\S+?)(?:@(?P<ref>[^\s#@/]+))?"
                 r"(?:#(?P<fragment>\S*))?$")
INSTALL = re.compile(r"^\s*(?:[$>]\s*)?(?:uv\s+)?pip3?\s+install\s+(?:-\S+\s+)*")


def normal(name: str) -> str:
    """A distribution's name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def value_kind(token: str, bare: bool = False) -> str:
    """What a ref or a bare value fixes: a date, a commit, a version (a bare one: a tag in a URL is a ref)."""
    if DATE.match(token):
        return "date"
    if COMMIT.match(token):
        return "commit"
    return "version" if bare and VERSION.match(token) else "ref"


def requirement_pin(line: str, distribution: str, packages: tuple[str, ...] = ()) -> tuple[str, str] | None:
    """(what, value) when the line requires the distribution, else None."""
    text = INSTALL.sub("", re.split(r"\s+#", line.strip().strip("`'\""), maxsplit=1)[0]).strip().strip("`'\"")
    text = text.split(";", 1)[0].strip()
    if not text or text.startswith(("#", "--")):
        return None
    wanted = {normal(distribution), *(normal(p) for p in packages)}
    vcs = VCS.match(text)
    if vcs is not None:  # a bare URL: its egg, or the repository's own name
        egg = re.search(r"egg=([\w.-]+)", vcs["fragment"] or "")
        named = egg[1] if egg else vcs["url"].rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
        return _from_url(text[vcs.start("url"):]) if normal(named) in wanted else None
    match = NAME.match(text)
    if match is None or normal(match["name"]) not in wanted:
        return None
    rest = match["rest"].strip()
    if rest and not re.match(r"^(?:@|[<>=!~]=?)", rest):
        return None  # prose that starts with the name ("verl is ..."), not a requirement
    if rest.startswith("@"):
        return _from_url(rest[1:].strip())
    if not rest:
        return "any", ""
    spec = rest.replace(" ", "")
    exact = re.fullmatch(r"===?([^,<>=!~*]+)", spec)
    return ("version", exact[1]) if exact else ("range", spec)


def _from_url(url: str) -> tuple[str, str]:
    url = url.split("#", 1)[0].removeprefix("git+")
    ref = re.search(r"\.git@([^\s@/]+)$|://[^@\s]+?@([^\s@/]+)$|^git@[^@\s]+@([^\s@/]+)$", url)
    if ref is None:
        return "any", ""
    token = next(group for group in ref.groups() if group)
    return value_kind(token), token
