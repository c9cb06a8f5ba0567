"""Key decisions and constraints: the agent's stated choices, the task's and the user's rules."""

from __future__ import annotations

from compaction.events import EventKind
from compaction.history.facts import WS_RE, Fact
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source


@fact_source(Section.DECISIONS)
def decision_facts(ctx: FactContext) -> list[Fact]:
    facts: list[Fact] = []
    seen: set[str] = set()
    for e in ctx.events:
        if e.kind not in (EventKind.DECISION, EventKind.CONSTRAINT):
            continue
        text = WS_RE.sub(" ", e.text.strip()).lstrip("-*• ").strip()
        key = text.lower()[:120]
        if key in seen or len(text) < 15 or text.endswith(":"):
            continue
        seen.add(key)
        score = 30 if e.kind is EventKind.DECISION else 35
        if e.kind is EventKind.CONSTRAINT and e.round == 1:
            score = 55  # the task's own rules
        if len(text) > 300:
            text = text[:297] + "…"
        facts.append(Fact(Section.DECISIONS, text, [e.round], score=score + min(e.round, 500) / 1000))
    return facts
