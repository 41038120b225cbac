from __future__ import annotations

import pytest

from bot.hydra.grammar import HydraSyntaxError, bool_style, format_value, parse_override, values_equal


@pytest.mark.parametrize("text", ["k=False", "k=false", "k='False'", 'k="false"', "k=FALSE"])
def test_false_in_every_spelling_compares_alike(text: str) -> None:
    assert values_equal(False, parse_override(text).value)
    assert not values_equal(True, parse_override(text).value)


def test_hydra_reads_prefixes_lists_and_interpolations() -> None:
    assert parse_override("+a.b=1e-6").prefix == "+"
    assert parse_override("++a.b=1").prefix == "++"
    deleted = parse_override("~a.b")
    assert deleted.prefix == "~" and not deleted.has_value
    assert parse_override("k=[a,b]").value == ["a", "b"]
    assert parse_override("k='[\"console\",\"wandb\"]'").value == '["console","wandb"]'
    assert parse_override("k=${oc.env:HOME}").value == "${oc.env:HOME}"
    assert parse_override("k=null").value is None


def test_numbers_compare_by_value() -> None:
    assert values_equal(1, parse_override("k=1.0").value)
    assert values_equal(0.000001, parse_override("k=1e-6").value)
    assert not values_equal(1, parse_override("k=True").value)


def test_syntax_errors_are_reported() -> None:
    with pytest.raises(HydraSyntaxError):
        parse_override("k=[a,b")


def test_values_are_written_in_the_files_style() -> None:
    assert format_value(True, bool_style("false")) == "true"
    assert format_value(True, bool_style("False")) == "True"
    assert format_value(True, bool_style("0")) == "True"
    assert format_value("uniform") == "uniform"
    assert format_value("a b") == "'a b'"
    assert format_value("true") == "'true'"
    for value in (True, None, 3, 0.5, "uniform", "a b", "it's"):
        assert parse_override("k=" + format_value(value)).value == value
