"""Conversation compaction: the seed's rules applied under a token budget (see engine.py)."""

from compaction.history.engine import compact, default_target

__all__ = ["compact", "default_target"]
