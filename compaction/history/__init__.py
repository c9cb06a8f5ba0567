"""Conversation compaction: the seed's rules applied under a token budget (see engine.py)."""

from compaction.history.engine import CompactOptions, compact, default_target

__all__ = ["CompactOptions", "compact", "default_target"]
