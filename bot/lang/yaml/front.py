"""The YAML config front end: one group of settings a document, keys mapped to Hydra paths."""

from __future__ import annotations

from dataclasses import dataclass

from bot.ir import SWEEP_PARAMS, Plan
from bot.lang.front import UNREADABLE, Reading, SourceUnreadable, Unit


@dataclass
class YamlFront:
    path: str
    packages: dict[str, str] | None = None  # repository path -> Hydra package, from the defaults lists

    def read(self, data: bytes) -> Reading:
        from bot.lang.yaml.config import YamlProblem, config_documents, package_prefix, yaml_groups

        try:
            roots = config_documents(data)
        except YamlProblem as exc:
            raise SourceUnreadable(str(exc)) from None
        try:
            groups = yaml_groups(data, package_prefix(data, self.path, self.packages), roots)
        except RecursionError:  # self-nested beyond what the walk follows
            groups = []
        return Reading([Unit(groups, _realise)])

    def errors(self, data: bytes) -> int:
        from bot.lang.yaml.config import yaml_errors

        return UNREADABLE if yaml_errors(data) else 0

    def problem(self, before: bytes, after: bytes) -> str | None:
        return None


def _realise(plans: list[Plan]) -> None:
    """A config's plans as edits: a sweep's params are rewritten as overrides, the rest as YAML."""
    from bot.lang.yaml.edits import realise
    from bot.lang.yaml.sweeper import realise_sweeps

    realise([p for p in plans if p.group.role != SWEEP_PARAMS])
    realise_sweeps([p for p in plans if p.group.role == SWEEP_PARAMS])
