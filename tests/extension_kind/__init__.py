"""A source kind added from outside the bot: `.overrides` files, one Hydra override per line.

This package plus one registry line (see tests/test_extending.py) is all a new kind takes; the
one evaluator, the engine's verify, the reports and the cache need no change.
"""
