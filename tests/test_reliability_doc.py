"""docs/reliability.md names the test that holds each promise: every test and test file it names exists."""

from __future__ import annotations

import re

from tests.conftest import ROOT

DOC = (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")


def test_every_test_the_reliability_page_names_exists() -> None:
    files = {path.stem for path in (ROOT / "tests").glob("*.py")}
    defined = {name for path in (ROOT / "tests").glob("*.py")
               for name in re.findall(r"^def (test_\w+)", path.read_text(encoding="utf-8"), re.M)}
    missing = []
    for name, star, suffix in re.findall(r"\b(test_\w+)(\*?)(\.py)?", DOC):
        known = files if suffix else defined
        if not (name in known or (star and any(d.startswith(name) for d in known | files))):
            missing.append(name)
    assert not missing
    for path in re.findall(r"`(tests/[\w/.-]+)(?![\w/.*-])", DOC):  # a file, or a rule fixture's case
        where = ROOT / path.split("::")[0]
        assert where.exists() or any(where.parent.glob(where.name + ".*")), path
