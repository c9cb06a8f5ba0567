"""The fact sources, one module per fact kind (see registry.py). Importing this package imports
every module in it, which registers its sources: a new kind is a new module here (and a `Section`
member when it needs a section of its own), nothing else."""

from __future__ import annotations

import importlib
import pkgutil

from compaction.history.sources.registry import FactContext, FactSource, fact_source, gather, sources

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module != "registry":
        importlib.import_module(f"{__name__}.{_module}")

__all__ = ["FactContext", "FactSource", "fact_source", "gather", "sources"]
