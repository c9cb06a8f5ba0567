"""The fact sources, one module per fact kind (see registry.py). Importing this package registers
them all; a new kind is a new module listed here and a `Section` member."""

from compaction.history.sources import (  # noqa: F401 - imported for their registration
    completed,
    decisions,
    markers,
    modified,
    next_steps,
    problems,
    task,
)
from compaction.history.sources.registry import FactContext, FactSource, fact_source, gather, sources

__all__ = ["FactContext", "FactSource", "fact_source", "gather", "sources"]
