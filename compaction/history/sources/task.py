"""The task: the first request whole (the harness's boilerplate elided), then later requests."""

from __future__ import annotations

from compaction.events import EventKind, is_follow_up_request
from compaction.history.facts import MIN_FACT_TOKENS, Fact, clean_task, task_text
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source


@fact_source(Section.GOAL)
def task_facts(ctx: FactContext) -> list[Fact]:
    """The task, the current request and (at most target/MIN_FACT_TOKENS of) the requests in between:
    memory is bounded by what a summary can hold, not by the requests read (a session of 500,000
    requests would otherwise build 500,000 facts of which a few hundred can be shown)."""
    requests = [e for e in ctx.events if e.kind is EventKind.REQUEST and e.text.strip()]
    facts: list[Fact] = []
    if not requests:
        return facts
    task = requests[0]
    facts.append(Fact(Section.GOAL, task_text(task.text), [task.round], score=100, essential=True, task=True))
    # Slash commands (`/exit`, `/add f`, `/run x`) drive the tool, they are not requests.
    later = [r for r in requests[1:] if is_follow_up_request(r.text)]
    # Interactive sessions: every later request matters, the latest most (the current goal).
    room = None if ctx.target_tokens is None else ctx.target_tokens // MIN_FACT_TOKENS
    first = 0 if room is None else max(0, len(later) - room)
    for i, req in enumerate(later[first:], first):
        latest = i == len(later) - 1
        text = clean_task(req.text)
        if latest:
            facts.append(Fact(Section.GOAL, "Current request: " + text, [req.round], score=90, essential=True,
                              short="Current request: " + text[:160]))
        else:  # history: the completed actions carry what was done about it
            facts.append(Fact(Section.GOAL, "Then asked: " + (text if len(text) <= 160 else text[:159] + "…"),
                              [req.round], score=10 + i * 0.01, priority=2.5,
                              full_text="Then asked: " + text if len(text) > 160 else None))
    return facts
