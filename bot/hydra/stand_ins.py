"""Options of Hydra's own groups that a plugin provides where the app runs (`override hydra/job_logging:
colorlog`, `hydra/launcher: submitit_slurm`), stood in for by an empty config while composing here, so
the rest of the config is still checked.

Likewise a repository's schema registered under a name it computes when it runs (`cs.store(group="task",
name=f"{task}_config", node=schema)` in a loop over a registry its package fills at import: bot.hydra.stores),
named by a defaults entry (`- vmas_balance_config`): an empty, open node stands in for it, so the option's own
YAML keys make up the node. Its fields and their types are not checked; a launch setting a key at or under it is
not judged (bot.compose.launches)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.hydra.app import HydraApp

MAX_STAND_INS = 8
_HYDRA_OPTION = re.compile(r"^hydra/[A-Za-z0-9_\-/]+/[A-Za-z0-9_\-.]+$")  # an option of one of Hydra's own groups


def stand_in(failure: Any, app: HydraApp, added: list[str]) -> str | None:
    """For a compose that failed on a missing option of one of Hydra's own groups: an empty config in the
    option's place, in Hydra's config store (searched after every config dir); the option made, or None.
    Not for a name close to an option Hydra or the repository gives: that is a misspelling."""
    from hydra.core.config_store import ConfigStore
    from hydra.errors import MissingConfigException

    missing = getattr(failure, "missing_cfg_file", None) if isinstance(failure, MissingConfigException) else None
    if not missing or not _HYDRA_OPTION.match(missing) or missing in added:
        return None
    group, _, name = missing.rpartition("/")
    if difflib.get_close_matches(name, _options(group, app), n=1, cutoff=0.75):
        return None  # a misspelt option of the group (`disable` for Hydra's `disabled`): Hydra's error stands
    ConfigStore.instance().store(name=name, node={}, group=group)
    added.append(missing)
    return str(missing)


def schema_stand_in(failure: Any, computed: Callable[[str], str | None], added: list[str]) -> str | None:
    """For a compose that failed on a missing config the repository may register under a name it computes
    (`computed` says where, or None): an empty, open node in its place in Hydra's config store; the config made
    (`group/name`), or None."""
    from hydra.core.config_store import ConfigStore
    from hydra.errors import MissingConfigException

    missing = getattr(failure, "missing_cfg_file", None) if isinstance(failure, MissingConfigException) else None
    if not missing or missing in added or computed(missing) is None:
        return None
    group, _, name = missing.rpartition("/")
    ConfigStore.instance().store(name=name, node={}, group=group)
    added.append(missing)
    return str(missing)


def _options(group: str, app: HydraApp) -> list[str]:
    """The options of a Hydra group that Hydra itself and the repository's config dirs (its own files:
    bot.confined) give."""
    import hydra

    from bot import confined

    own = Path(hydra.__file__).parent / "conf" / group
    names = [p.stem for p in own.glob("*.yaml")] if own.is_dir() else []
    root = str(app.root)
    for directory in (*(() if app.config_dir is None else (str(app.config_dir),)), *app.search_path):
        names += [n[: -len(".yaml")] for n, is_dir in confined.entries(root, Path(directory) / group)
                  if not is_dir and n.endswith(".yaml")]
    return names


def withdraw(stand_ins: list[str]) -> None:
    """Take the stand-ins back out of Hydra's config store."""
    from hydra.core.config_store import ConfigStore

    for missing in stand_ins:
        group, _, name = missing.rpartition("/")
        node: Any = ConfigStore.instance().repo
        for part in group.split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        if isinstance(node, dict):
            node.pop(f"{name}.yaml", None)
