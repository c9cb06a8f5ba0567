"""Next steps: unfinished todos (the last state of each todo list item) and recently stated plans."""

from __future__ import annotations

from collections import OrderedDict

from compaction.events import Event, EventKind
from compaction.history.facts import WS_RE, Fact
from compaction.history.sections import Section
from compaction.history.sources.registry import FactContext, fact_source

_DONE = {"completed", "done", "complete", "finished"}


@fact_source(Section.NEXT)
def next_step_source(ctx: FactContext) -> list[Fact]:
    return next_step_facts(ctx.events, ctx.n_rounds)


def next_step_facts(events: list[Event], last_round: int) -> list[Fact]:
    todos: OrderedDict[str, Event] = OrderedDict()
    stated: list[Event] = []
    # A todo tool (TodoWrite, update_plan, task_tracking…) sends the whole list each time: only its
    # last list counts, so items dropped from it are not left "pending" forever.
    last_list: dict[str, tuple[int, int]] = {}
    for e in events:
        if e.kind is EventKind.TODO and e.tool:
            last_list[e.tool] = max(last_list.get(e.tool, (0, -1)), (e.round, e.message_index))
    for e in events:
        if e.kind is not EventKind.TODO:
            continue
        if e.status == "next":
            stated.append(e)
        elif e.tool is None or (e.round, e.message_index) == last_list[e.tool]:
            todos[e.text.strip().lower()] = e
    facts: list[Fact] = []
    for e in todos.values():
        status = str(e.status or "pending").lower()
        if status in _DONE:
            continue
        facts.append(Fact(Section.NEXT, f"[{status}] {e.text.strip()}", [e.round], score=70, essential=True))
    recent = [e for e in stated if e.round > last_round - 5]  # older plans were acted on or dropped
    seen: set[str] = set()
    for e in recent[-6:]:
        text = WS_RE.sub(" ", e.text.strip())
        if text.lower() in seen:
            continue
        seen.add(text.lower())
        facts.append(Fact(Section.NEXT, text[:300], [e.round], score=25 + e.round / 10000))
    return facts
