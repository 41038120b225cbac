"""`bot infer`: propose rules from the validation code a change adds."""

from __future__ import annotations

import argparse
from io import StringIO
from pathlib import Path

from bot.commands.output import EXIT_OK, load_rules, rule_options
from bot.errors import UserError


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    infer = commands.add_parser("infer", help="propose rules from validation code a change adds")
    infer.add_argument("--repo", required=True, help="a local repository path")
    infer.add_argument("--before", required=True)
    infer.add_argument("--after", required=True)
    infer.add_argument("--output", type=Path, help="write the proposed rule files into this directory")
    rule_options(infer)


def main(args: argparse.Namespace) -> int:
    from ruamel.yaml import YAML

    from bot.upstream.infer import infer

    root = Path(args.repo)
    if not root.is_dir():
        raise UserError(f"--repo {args.repo}: expected a local repository directory")
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
    for proposal in inference.proposals:
        buffer = StringIO()
        yaml.dump({**proposal.rule, "enabled": proposal.confidence == "high"}, buffer)
        text = buffer.getvalue()
        print(f"# confidence: {proposal.confidence}\n{text}---")
        if args.output is not None:
            args.output.mkdir(parents=True, exist_ok=True)
            (args.output / f"{proposal.rule['id']}.yaml").write_text(text, encoding="utf-8")
    return EXIT_OK
