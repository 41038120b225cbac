"""The fields the rule format allows in each section (read from bot.rules.schema), and typed checks of field values
(`file: field: expected ...`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bot.errors import UserError
from bot.rules.globs import Glob, GlobError, key_glob, path_glob
from bot.rules.model import PREFIXES
from bot.rules.schema import fields_of

KEY_PATH = re.compile(r"^[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)*$")
# the fields each section allows, as the schema declares them (bot.rules.schema: the format's one source)
TOP_FIELDS = fields_of()
RELATION_FIELDS = fields_of("relation")
TRIGGER_FIELDS = fields_of("trigger")
WHEN_FIELDS = fields_of("when")
MATCH_FIELDS = fields_of("match")
FIX_FIELDS = fields_of("fix")
ENSURE_FIELDS = fields_of("ensure")
MIGRATION_FIELDS = fields_of("migration")
STEP_FIELDS = fields_of("migration", "steps")


class FieldChecker:
    """Field access with errors that say `file: field: expected ...`; `within`: the section the fields are in
    (a migration's step: `migration.steps[2]`)."""

    def __init__(self, path: Path, within: str = "") -> None:
        self.path = path
        self.within = within

    def inside(self, section: str) -> FieldChecker:
        """A checker of the fields of `section` (their errors name it)."""
        return FieldChecker(self.path, f"{self.within}.{section}" if self.within else section)

    def fail(self, where: str, expected: str) -> UserError:
        place = ".".join(p for p in (self.within, where) if p)
        return UserError(f"{self.path}: {place}: {expected}")

    def mapping(self, value: Any, where: str, allowed: set[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"expected a mapping, got {kind(value)}")
        for key in value:
            if not isinstance(key, str) or key not in allowed:
                raise self.fail(
                    f"{where}.{key}" if where else str(key),
                    f"unknown field; expected one of {', '.join(sorted(allowed))}",
                )
        return value

    def string(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(where, f"expected a non-empty string, got {kind(value)}")
        return value

    def boolean(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, f"expected true or false, got {kind(value)}")
        return value

    def strings(self, value: Any, where: str) -> list[str]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value:
            raise self.fail(where, f"expected a list of strings, got {kind(value)}")
        for i, item in enumerate(value):
            self.string(item, f"{where}[{i}]")
        return list(value)

    def modules(self, value: Any, where: str) -> tuple[str, ...]:
        """Dotted module names (`pkg.sub.module`)."""
        names = self.strings(value, where)
        for i, name in enumerate(names):
            if not all(part.isidentifier() for part in name.split(".")):
                raise self.fail(f"{where}[{i}]", f"expected a dotted module name, got {name!r}")
        return tuple(names)

    def key_globs(self, value: Any, where: str) -> tuple[Glob, ...]:
        out = []
        for i, pattern in enumerate(self.strings(value, where)):
            try:
                out.append(key_glob(pattern))
            except GlobError as exc:
                raise self.fail(f"{where}[{i}]", f"expected a key glob: {exc}") from None
        return tuple(out)

    def path_globs(self, value: Any, where: str) -> tuple[Glob, ...]:
        out = []
        for i, pattern in enumerate(self.strings(value, where)):
            try:
                out.append(path_glob(pattern))
            except GlobError as exc:
                raise self.fail(f"{where}[{i}]", f"expected a path glob: {exc}") from None
        return tuple(out)

    def scalar(self, value: Any, where: str) -> Any:
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, list) and all(
            v is None or isinstance(v, (bool, int, float, str)) for v in value
        ):
            return tuple(value)
        raise self.fail(where, f"expected a scalar value (bool, number, string, null), got {kind(value)}")

    def values(self, value: Any, where: str) -> tuple[Any, ...]:
        if not isinstance(value, list) or not value:
            raise self.fail(where, f"expected a non-empty list of values, got {kind(value)}")
        return tuple(self.scalar(v, f"{where}[{i}]") for i, v in enumerate(value))

    def prefix(self, value: Any, where: str) -> str:
        if value not in PREFIXES:
            raise self.fail(where, f"expected one of \"\", \"+\", \"++\", \"~\", got {value!r}")
        return str(value)


def kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value!r}" if value.strip() else "an empty string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__
