"""The fact-source registry: each fact kind is one function `(ctx: FactContext) -> Iterable[Fact]`,
registered with `@fact_source(Section.X)` in its own module of this package.

Why a registry (after OpenHands' condenser registry): the engine iterates the sources without
knowing them, so a new fact kind is one module here plus one `Section` member; nothing else in the
engine changes. Sources are gathered in section order, and in registration order within a section.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from compaction.errors.records import ErrorRecord
from compaction.events import Event
from compaction.history.facts import Fact
from compaction.history.sections import Section
from compaction.history.steering import RolePreset
from compaction.model import Transcript


@dataclass(frozen=True, slots=True)
class FactContext:
    """What every source may read; built once per compaction."""

    transcript: Transcript
    events: list[Event]
    records: list[ErrorRecord]  # the error memory's records this role is shown
    preset: RolePreset
    cwd: str | None
    n_rounds: int
    target_tokens: int | None = None  # the document's budget: a source may size its facts to it
    lang: str = "en"  # the document's language (for the fixed phrases a source writes)


class FactSource(Protocol):
    def __call__(self, ctx: FactContext) -> Iterable[Fact]: ...


_SOURCES: dict[Section, list[FactSource]] = {}


def fact_source(section: Section) -> Callable[[FactSource], FactSource]:
    """Register a source of `section`'s facts."""

    def register(source: FactSource) -> FactSource:
        _SOURCES.setdefault(section, []).append(source)
        return source

    return register


def sources() -> list[tuple[Section, FactSource]]:
    return [(section, src) for section in Section for src in _SOURCES.get(section, [])]


def gather(ctx: FactContext) -> list[Fact]:
    """Every registered source's facts, in section order."""
    out: list[Fact] = []
    for _section, source in sources():
        out.extend(source(ctx))
    return out
