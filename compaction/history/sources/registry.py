"""The fact-source registry: each fact kind is one function `(ctx: FactContext) -> Iterable[Fact]`,
registered with `@fact_source(Section.X)` in its own module of this package.

Why a registry (after OpenHands' condenser registry): the engine iterates the sources without
knowing them, so a new fact kind is one module here plus one `Section` member; nothing else in the
engine changes. Sources are gathered in section order, and in registration order within a section.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from compaction.errors.records import ErrorRecord
from compaction.events import Event, Pairings, results_of_calls
from compaction.history.facts import Fact
from compaction.history.sections import Section
from compaction.history.steering import RolePreset
from compaction.model import Round, ToolCall, ToolResult, Transcript

T = TypeVar("T")


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
    # What several sources derive alike (the files' edit logs, their change records): made once
    # per compaction, on first use. Read-only to the sources that share it.
    _memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    # Each round's call/result pairing by id(round), the round kept beside it: filled by `results_of`, or
    # handed over by the event extraction that paired the same rounds (`extract_events(pairings=…)`).
    pairings: Pairings = field(default_factory=dict, compare=False, repr=False)

    def shared(self, key: Any, make: Callable[[], T]) -> T:
        """`make()`, computed once per compaction under `key` (a tuple naming the work and its inputs)."""
        try:
            return self._memo[key]
        except KeyError:
            value = self._memo[key] = make()
            return value

    def results_of(self, rnd: Round) -> dict[int, ToolResult | None]:
        """`results_of_calls(rnd.messages)`, paired once per compaction for every source that asks."""
        found = self.pairings.get(id(rnd))
        if found is None or found[0] is not rnd:  # the round is kept with its pairing: its id names it
            found = self.pairings[id(rnd)] = (rnd, results_of_calls(rnd.messages))
        return found[1]

    def output_of(self, rnd: Round, call: ToolCall, limit: int) -> str | None:
        """What `call` of round `rnd` printed, when it succeeded with some output of at most `limit`
        characters (a file read, an instruction document); else None."""
        res = self.results_of(rnd).get(id(call))
        if res is None or res.is_error or not res.content or len(res.content) > limit:
            return None
        return res.content


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
