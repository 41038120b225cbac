"""Two of Hydra's steps done at less cost while the bot composes, with the same result (bot.hydra.source).

- Working out a defaults list, Hydra makes an OmegaConf config of every group choice known so far for each
  config of the tree, to resolve the interpolations of that config's defaults (`${model_engine}_actor`); it
  is made and dropped for every config, almost none of which has one (44% of working out verl's list).
  Here it is made only for a config whose defaults hold an interpolation.
- Hydra reads its own configs (`pkg://hydra.conf`: the `hydra` node's options) from its package and parses
  their YAML on every composition; here each is parsed once per process and each load gets a copy of its own
  (OmegaConf's pickling round trip, as bot.hydra.source does for the repository's configs).

Both are installed for the composition under way and taken back after (`quicker_steps`). A Hydra without
these internals composes as it would anyway.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

_read: dict[tuple[str, str], bytes] = {}  # what Hydra's own configs load as, pickled, by (package, config path)


@contextmanager
def quicker_steps() -> Iterator[None]:
    """The two steps installed while the block runs."""
    try:
        from hydra._internal import defaults_list
        from hydra._internal.sources_registry import SourcesRegistry
    except ImportError:  # another Hydra: its own steps
        yield
        return
    made = getattr(defaults_list, "_create_interpolation_map", None)
    registry = SourcesRegistry.instance()
    package_source = registry.types.get("pkg")
    if made is None or package_source is None:
        yield
        return
    defaults_list._create_interpolation_map = _when_interpolated(made)
    registry.types["pkg"] = _package_source(package_source)
    try:
        yield
    finally:
        defaults_list._create_interpolation_map = made
        registry.types["pkg"] = package_source


def _when_interpolated(made: Any) -> Any:
    def interpolation_map(overrides: Any, defaults: list[Any], self_added: bool) -> Any:
        if not any(d.is_interpolation() for d in defaults):
            return None  # read only to resolve an interpolation of these defaults: there is none
        return made(overrides, defaults, self_added)

    return interpolation_map


@lru_cache(maxsize=4)
def _package_source(base: Any) -> type:
    """Hydra's package config source, each config read once per process (a copy handed out each time)."""

    def load_config(self: Any, config_path: str) -> Any:
        ident = (self.path, config_path)
        blob = _read.get(ident)
        if blob is None:
            blob = _read[ident] = pickle.dumps(base.load_config(self, config_path))
        return pickle.loads(blob)

    return type(base.__name__, (base,), {"load_config": load_config})
