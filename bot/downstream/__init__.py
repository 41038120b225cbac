"""A downstream repository and its upstream: the upstream it names in bot.toml or runs from its launches
(`python -m verl.trainer.main_ppo`, `hydra.searchpath=[pkg://verl.trainer.config]`), and where it pins it.

spec (what a bot.toml says, checked as read: below bot.config), model (Upstream, Pin), upstream (a name
resolved to a source), requirement (one requirement line), pins (a reader per kind of pin), detect (which
launches run the upstream, and at which pin).
"""
