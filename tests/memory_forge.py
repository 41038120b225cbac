"""A forge held in memory, behind bot.publish.forge.Forge: publishing decisions tested without HTTP.

Pull requests, comments and labels live in dicts; the commits of a pull request are read from the
real bare repository its branch was pushed to, with logins looked up by e-mail (as GitHub does).
`lose_answer` makes the next call of a method take effect and then fail, as when a reply is lost.
The loopback GitHub (tests/fake_github.py) stays for the adapter's own tests.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field, replace
from pathlib import Path

from bot.publish.forge import CommentInfo, ForgeError, PullInfo


@dataclass
class MemoryForge:
    bare: Path  # the remote the branches are pushed to
    base: str = "main"
    logins: dict[str, str] = field(default_factory=dict)  # e-mail -> login
    login: str = "followup-bot"  # who the forge says is calling
    pull_requests: dict[int, PullInfo] = field(default_factory=dict)
    notes: dict[int, list[CommentInfo]] = field(default_factory=dict)
    lose_answer: set[str] = field(default_factory=set)
    calls: list[str] = field(default_factory=list)  # every request, by method name
    _next: int = 1

    @property
    def requests(self) -> int:
        return len(self.calls)

    @property
    def writes(self) -> list[str]:
        return [c for c in self.calls if c not in ("pulls", "comments", "commit_logins", "account")]

    def _call(self, name: str) -> None:
        self.calls.append(name)

    def _answer(self, name: str) -> None:
        if name in self.lose_answer:
            self.lose_answer.discard(name)
            raise ForgeError(f"{name}: 502 Bad Gateway (the change was made)", 502)

    # ---- the Forge protocol ----------------------------------------------------------
    def account(self) -> str:
        if "account" not in self.calls:  # asked once, as the GitHub adapter asks
            self._call("account")
        return self.login

    def pulls(self, branch: str) -> list[PullInfo]:
        self._call("pulls")
        found = [p for p in self.pull_requests.values() if p.head == branch]
        return sorted(found, key=lambda p: -p.number)  # newest first, as the adapter asks GitHub

    def create_pull(self, branch: str, base: str, title: str, body: str, draft: bool) -> PullInfo:
        self._call("create_pull")
        if any(p.head == branch and p.state == "open" for p in self.pull_requests.values()):
            raise ForgeError(f"422: a pull request for {branch} already exists", 422)
        number, self._next = self._next, self._next + 1
        pull = PullInfo(number, "open", False, title, body, branch, f"memory://pull/{number}", author=self.login)
        self.pull_requests[number] = pull
        self._answer("create_pull")
        return pull

    def update_pull(self, number: int, title: str, body: str) -> None:
        self._call("update_pull")
        self.pull_requests[number] = replace(self.pull_requests[number], title=title, body=body)
        self._answer("update_pull")

    def close_pull(self, number: int) -> None:
        self._call("close_pull")
        self.pull_requests[number] = replace(self.pull_requests[number], state="closed")
        self._answer("close_pull")

    def add_labels(self, number: int, labels: list[str]) -> None:
        self._call("add_labels")
        pull = self.pull_requests[number]
        merged = pull.labels + tuple(label for label in labels if label not in pull.labels)
        self.pull_requests[number] = replace(pull, labels=merged)
        self._answer("add_labels")

    def comments(self, number: int) -> list[CommentInfo]:
        self._call("comments")
        return list(self.notes.get(number, []))

    def comment(self, number: int, body: str) -> None:
        self._call("comment")
        thread = self.notes.setdefault(number, [])
        thread.append(CommentInfo(1000 * number + len(thread), body, self.login))
        self._answer("comment")

    def edit_comment(self, comment_id: int, body: str) -> None:
        self._call("edit_comment")
        thread = self.notes[comment_id // 1000]
        thread[:] = [replace(c, body=body) if c.id == comment_id else c for c in thread]
        self._answer("edit_comment")

    def delete_comment(self, comment_id: int) -> None:
        self._call("delete_comment")
        thread = self.notes.get(comment_id // 1000, [])
        thread[:] = [c for c in thread if c.id != comment_id]
        self._answer("delete_comment")

    def commit_logins(self, number: int) -> dict[str, str]:
        self._call("commit_logins")
        head = self.pull_requests[number].head
        log = subprocess.run(["git", "--git-dir", str(self.bare), "log", "--format=%H %ae %an",
                              f"{self.base}..{head}"], capture_output=True, text=True, check=False).stdout
        out = {}
        for line in log.splitlines():
            sha, email, name = line.split(" ", 2)
            out[sha] = self.logins.get(email.lower(), name)
        return out

    # ---- what people do on the forge -------------------------------------------------
    def close_by_hand(self, number: int) -> None:
        self.pull_requests[number] = replace(self.pull_requests[number], state="closed")

    def merge_by_hand(self, number: int) -> None:
        self.pull_requests[number] = replace(self.pull_requests[number], state="closed", merged=True)

    def open_by_hand(self, branch: str, title: str, body: str, author: str = "alice") -> PullInfo:
        number, self._next = self._next, self._next + 1
        pull = PullInfo(number, "open", False, title, body, branch, f"memory://pull/{number}", author=author)
        self.pull_requests[number] = pull
        return pull

    def comment_by_hand(self, number: int, body: str, user: str = "alice") -> None:
        thread = self.notes.setdefault(number, [])
        thread.append(CommentInfo(1000 * number + len(thread), body, user))
