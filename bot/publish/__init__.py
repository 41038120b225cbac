"""Publishing: turn a scan into follow-up pull requests (git + GitHub)."""
