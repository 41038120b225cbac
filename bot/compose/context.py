"""What composing reads of a scan besides its repository (bot.context): the composer and the ConfigStore.

The engine's scan context (bot.engine.context.EngineContext) is one, with the listing and the rules
besides; compose-check and the compose judge know it only as this.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.context import ScanContext
from bot.hydra.compose import Composer
from bot.hydra.stores import StoredConfigs


@dataclass(frozen=True, kw_only=True)
class ComposeContext(ScanContext):
    """The scan context with the composer, which composes the launches' configs (and owns Hydra's process
    state while it does: one per scan, so bases composed for one file serve the next), and the configs the
    repository registers in Hydra's ConfigStore (read when first asked)."""

    composer: Composer
    stored: StoredConfigs
