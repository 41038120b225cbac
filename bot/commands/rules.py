"""`bot rules list` and `bot rules test`: the rules that would run, and their fixtures."""

from __future__ import annotations

import argparse
from pathlib import Path

from bot.commands.output import EXIT_FINDINGS, EXIT_OK, load_rules, rule_options
from bot.errors import UserError


def add_parser(commands: argparse._SubParsersAction, parser_class: type[argparse.ArgumentParser]) -> None:  # type: ignore[type-arg]
    rules = commands.add_parser("rules", help="list or test rules")
    rule_commands = rules.add_subparsers(dest="rules_command", required=True, parser_class=parser_class)
    listing = rule_commands.add_parser("list", help="list the rules that would run")
    rule_options(listing)
    testing = rule_commands.add_parser("test", help="run rule fixtures: <tests>/<rule-id>/<case>.before.sh ...")
    rule_options(testing)
    testing.add_argument("--tests", type=Path, action="append", default=[],
                         help="a directory of rule fixtures (default: tests/rules)")


def main(args: argparse.Namespace) -> int:
    return list_rules(args) if args.rules_command == "list" else test_rules(args)


def list_rules(args: argparse.Namespace) -> int:
    for rule in load_rules(args):
        state = "enabled" if rule.enabled else "optional"
        print(f"{rule.id:32} {state:9} {rule.severity:8} {rule.title}")
    return EXIT_OK


def test_rules(args: argparse.Namespace) -> int:
    from bot.engine.fixtures import collect_cases, run_case

    rules = {r.id: r for r in load_rules(args)}
    dirs = args.tests or [Path("tests/rules")]
    cases = []
    for directory in dirs:
        if not directory.is_dir():
            raise UserError(f"--tests {directory}: no such directory; expected <dir>/<rule-id>/<case>.before.sh")
        cases.extend(collect_cases(directory, rules))  # the fixtures of the rules loaded, no others
    if not cases:
        raise UserError(f"no rule fixtures found under {', '.join(map(str, dirs))}")
    failed = 0
    for case in cases:
        result = run_case(case, rules)
        if result.ok:
            print(f"ok    {case.label}")
            continue
        failed += 1
        print(f"FAIL  {case.label}")
        for problem in result.problems:
            print("      " + problem.replace("\n", "\n      "))
    print(f"{len(cases) - failed} passed, {failed} failed")
    return EXIT_FINDINGS if failed else EXIT_OK
