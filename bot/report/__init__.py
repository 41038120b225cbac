"""Report formats; each lives in its own module and is imported only when asked for."""

from __future__ import annotations

from importlib import import_module

from bot.model import Report

FORMATS = ("text", "markdown", "json", "sarif", "diff", "github")
_MODULES = {"json": "json_report"}


def render(fmt: str, report: Report, *, color: bool = False) -> str:
    """The report in format `fmt`; `color` matters only for text (the caller decides TTY / NO_COLOR)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if fmt == "text":
        from bot.report import text

        return text.render(report, color=color)
    module = import_module(f"bot.report.{_MODULES.get(fmt, fmt)}")
    out: str = module.render(report)
    return out
