"""Marked items: every @important/@decision/@warning/@todo line, verbatim, never dropped."""

from __future__ import annotations

from compaction.events import EventKind
from compaction.history.facts import Fact
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source


@fact_source(Section.MARKED)
def marked_facts(ctx: FactContext) -> list[Fact]:
    facts: list[Fact] = []
    seen: set[tuple[str, int]] = set()
    for e in ctx.events:
        if e.kind is EventKind.MARKER and (e.text, e.round) not in seen:
            seen.add((e.text, e.round))
            facts.append(Fact(Section.MARKED, e.text, [e.round], score=1000, essential=True, marker=e.marker))
    return facts
