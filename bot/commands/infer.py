"""`bot infer`: propose rules from the validation code a change adds, and the migration its config edits call for."""

from __future__ import annotations

import argparse
from io import StringIO
from pathlib import Path
from typing import Any

from bot.commands.output import EXIT_OK, commit_in, git_repository, load_rules, local_repository, rule_options


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    infer = commands.add_parser("infer", help="propose rules from the validation code and the config a change edits")
    infer.add_argument("--repo", required=True, help="a local repository path")
    infer.add_argument("--before", required=True)
    infer.add_argument("--after", required=True)
    infer.add_argument("--output", type=Path,
                       help="write each proposed rule into this directory as <id>.yaml, with a fixture under <id>/ "
                            "(check them with `bot rules test --no-bundled --rules DIR --tests DIR`)")
    rule_options(infer)


def main(args: argparse.Namespace) -> int:
    root = local_repository(Path(args.repo), args.repo)  # first: before anything of a third party is imported
    git_repository(root)
    commit_in(root, args.before, "--before")
    commit_in(root, args.after, "--after")
    from ruamel.yaml import YAML
    from ruamel.yaml.scalarstring import LiteralScalarString

    from bot.upstream.infer import infer

    inference = infer(root, args.before, args.after, load_rules(args))
    yaml = YAML()
    yaml.default_flow_style = False
    yaml.width = 4096
    for rule_id in sorted(set(inference.covered)):
        print(f"# already covered by {rule_id}")
    for item in inference.not_understood:
        print(f"# {item.describe()}")
    if inference.unchanged or inference.loosened:
        print(f"# no rule from {inference.unchanged} check(s) that moved or stayed the same and "
              f"{inference.loosened} that were loosened")
    proposed = [(proposal.rule, proposal.confidence) for proposal in inference.proposals]
    proposed += migration_proposals(root, args.before, args.after)
    for found, confidence in proposed:  # ids are unique in one inference (bot.upstream.infer)
        rule = {**found, "enabled": confidence == "high"}
        if "\n" in str(rule.get("description", "")):
            rule["description"] = LiteralScalarString(str(rule["description"]).rstrip("\n") + "\n")
        buffer = StringIO()
        yaml.dump(rule, buffer)
        text = buffer.getvalue()
        print(f"# confidence: {confidence}\n{text}---")
        if args.output is not None:
            write_rule(args.output, rule, text)
    return EXIT_OK


def migration_proposals(root: Path, before: str, after: str) -> list[tuple[dict[str, Any], str]]:
    """The migrations the change calls for: its config edits' (bot.upstream.config_migration, read over the
    repository's own launches) and its moved entry points' (bot.upstream.entry_migration); for each, its
    high-confidence steps as one rule, and the others as a rule of low confidence."""
    from bot.upstream.change import read_change
    from bot.upstream.config_migration import read_migration
    from bot.upstream.entry_migration import entry_migration
    from bot.upstream.migration_rule import HIGH, LOW

    change = read_change(root, before, after)
    upstream = f"#{change.pull_number}" if change.pull_number is not None else change.after[:12]
    found: list[tuple[dict[str, Any] | None, str]] = []
    if any(path.endswith((".yaml", ".yml")) for path in change.paths):
        migration = read_migration(root, root, change.before, change.after, change.paths, upstream)
        for key in migration.disagreeing:
            print(f"# the change's config: apps read `{key}` differently; left to a person")
        found += [(migration.rule, HIGH), (migration.suggested, LOW)]
    if any(path.endswith(".py") for path in change.paths):
        moved, suggested = entry_migration(root, change.before, change.after, upstream)
        found += [(moved, HIGH), (suggested, LOW)]
    return [(rule, confidence) for rule, confidence in found if rule is not None]


def write_rule(directory: Path, rule: dict[str, Any], text: str) -> None:
    """`<id>.yaml` and its fixture under `<id>/`, checked as `bot rules test` checks it; says which."""
    from bot.engine.fixtures import collect_cases, run_case
    from bot.rules.loader import parse_rule
    from bot.upstream.fixture import fixture_for

    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{rule['id']}.yaml"
    path.write_text(text, encoding="utf-8")
    if "migration" in rule:
        print(f"# wrote {path} (a migration read from the config: no fixture is written for it)")
        return
    fixture = fixture_for(rule)
    if fixture is None:
        print(f"# wrote {path} (no fixture: the rule has no shape a launch can break)")
        return
    cases = directory / str(rule["id"])
    cases.mkdir(exist_ok=True)
    for name, body in fixture.files().items():
        (cases / name).write_text(body, encoding="utf-8")
    loaded = parse_rule(rule, path)
    problems = [problem for case in collect_cases(directory, [loaded.id])
                for problem in run_case(case, {loaded.id: loaded}).problems]
    verdict = "the rule passes it" if not problems else "the rule does NOT pass it: " + "; ".join(problems)
    print(f"# wrote {path} and its fixture {cases}/: {verdict}")
