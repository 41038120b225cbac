"""The YAML config front end: one group of settings a document, keys mapped to Hydra paths."""

from __future__ import annotations

from dataclasses import dataclass

from bot.lang.front import UNREADABLE, Reading, SourceUnreadable, Unit


@dataclass
class YamlFront:
    path: str
    packages: dict[str, str] | None = None  # repository path -> Hydra package, from the defaults lists

    def read(self, data: bytes) -> Reading:
        from bot.lang.yaml.config import read_groups, yaml_problem
        from bot.lang.yaml.edits import realise

        problem = yaml_problem(data)
        if problem is not None:
            raise SourceUnreadable(problem)
        return Reading([Unit(read_groups(self.path, data, self.packages), realise)])

    def errors(self, data: bytes) -> int:
        from bot.lang.yaml.config import yaml_errors

        return UNREADABLE if yaml_errors(data) else 0

    def problem(self, before: bytes, after: bytes) -> str | None:
        return None
