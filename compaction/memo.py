"""Per-text memos: what one compaction asks of the same text more than once (a command line read by
the events and again by the error memory, a request counted then shortened at several sizes).

Why one registry: a memo outlives the compaction that filled it, so a second compaction of the same
session starts warm. That is a gain for a user, but a benchmark that times "a compaction" must
start cold, and it can only if it can empty every memo: `forget_all` does (the token counts too,
which `tokens` registers with `on_forget`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_MEMOS: list[Any] = []
_FORGETTERS: list[Callable[[], None]] = []  # memos kept another way (the token counts)


def per_text(maxsize: int) -> Callable[[F], F]:
    """`functools.lru_cache(maxsize)`, registered so that `forget_all` empties it. Only for pure
    functions of their (hashable) arguments whose results are never mutated."""

    def wrap(fn: F) -> F:
        cached = lru_cache(maxsize=maxsize)(fn)
        _MEMOS.append(cached)
        return cached  # type: ignore[return-value]

    return wrap


def on_forget(forget: Callable[[], None]) -> None:
    """Register how to empty a memo that is not a `per_text` cache (`tokens`' counts)."""
    _FORGETTERS.append(forget)


def forget_all() -> None:
    """Empty every registered memo (benchmarks time each run as a first run)."""
    for cached in _MEMOS:
        cached.cache_clear()
    for forget in _FORGETTERS:
        forget()
