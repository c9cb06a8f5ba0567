"""The memory bound of sec-faults (issue 15) on main's typed fact pipeline: `extract_events(max_requests=…)`
keeps the task and only the last follow-up requests, in their places, after the Windows path
respelling; the goal source takes the same bound from `FactContext.target_tokens`."""

from __future__ import annotations

from compaction.events import EventKind, extract_events
from compaction.history.facts import MIN_FACT_TOKENS
from compaction.history.sections import Section
from compaction.history.sources import FactContext, gather
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, Transcript, group_rounds


def _session(n_requests: int) -> Transcript:
    msgs = [Message(0, Role.USER, "Fix the parser in src\\app\\parse.py please"),
            Message(1, Role.ASSISTANT, "Editing.", [ToolCall("Edit", {"file_path": "src\\app\\parse.py"}, "c1",
                                                            ToolKind.EDIT, path="src\\app\\parse.py")])]
    for i in range(n_requests):
        msgs += [Message(len(msgs), Role.USER, f"follow-up request number {i}"),
                 Message(len(msgs) + 1, Role.ASSISTANT, "ok",
                         [ToolCall("Edit", {"file_path": "src/app/parse.py"}, f"e{i}", ToolKind.EDIT,
                                   path="src/app/parse.py")])]
    return Transcript("s.json", "test", msgs, group_rounds(msgs))


def test_max_requests_keeps_the_task_and_the_last_follow_ups_in_place() -> None:
    t = _session(40)
    full = extract_events(t)
    bounded = extract_events(t, max_requests=3)
    requests = [e.text for e in bounded if e.kind is EventKind.REQUEST]
    assert requests == ["Fix the parser in src\\app\\parse.py please", "follow-up request number 37",
                        "follow-up request number 38", "follow-up request number 39"]
    kept = {id(e) for e in bounded}
    dropped = [e for e in full if e.kind is EventKind.REQUEST and e.text not in requests]
    assert len(dropped) == 37 and not kept & {id(e) for e in dropped}
    # every other event is there, in the same order, and the request sits where it was
    assert [(e.kind, e.round, e.path) for e in bounded] == [
        (e.kind, e.round, e.path) for e in full if e.kind is not EventKind.REQUEST or e.text in requests]
    # the path respelling still unifies `src\app\parse.py` and `src/app/parse.py` (typed `path` field)
    assert {e.path for e in bounded if e.kind is EventKind.EDIT} == {e.path for e in full if e.kind is EventKind.EDIT}
    assert len({e.path for e in bounded if e.kind is EventKind.EDIT}) == 1


def test_the_goal_source_holds_no_more_requests_than_the_room() -> None:
    t = _session(40)
    events = extract_events(t)
    ctx = FactContext(transcript=t, events=events, records=[], preset=role_preset("developer"), cwd=None,
                      n_rounds=len(t.rounds), target_tokens=5 * MIN_FACT_TOKENS)
    goal = [f for f in gather(ctx) if f.section is Section.GOAL]
    assert [f.text for f in goal] == ["Fix the parser in src\\app\\parse.py please",
                                      *[f"Then asked: follow-up request number {i}" for i in range(35, 39)],
                                      "Current request: follow-up request number 39"]
    unbounded = FactContext(transcript=t, events=events, records=[], preset=role_preset("developer"), cwd=None,
                            n_rounds=len(t.rounds))
    assert len([f for f in gather(unbounded) if f.section is Section.GOAL]) == 41
