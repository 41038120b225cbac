"""The follow-up bot: finds launch scripts that break a new upstream rule and fixes them."""

__version__ = "0.1.0"
