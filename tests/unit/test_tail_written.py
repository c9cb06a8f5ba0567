"""A compaction that holds the whole session verbatim and still has room shows what the file tools wrote
(the tail shows such a call as `→ tool path` only): the budget holds the whole session, as issue 14 asks.
A tight budget never pays for it, nor does a tail that holds only the latest rounds, nor what the steering
ignores. A session within its budget comes back unchanged: its messages as they were."""

from __future__ import annotations

from compaction import tokens
from compaction.history import compact
from compaction.history.fill import _widened
from compaction.history.steering import Steering, parse_instructions
from compaction.history.tail import TailRenderer
from compaction.model import Message, Role, ToolResult
from compaction.transcripts._agent_tools import make_call
from tests.unit.synthetic import transcript

BODY = "\n".join(f"def handler_{i}(event):\n    return route(event, weight={i})" for i in range(60))


def _session():
    return transcript([
        Message(0, Role.USER, "Write the event handlers module."),
        Message(0, Role.ASSISTANT, "Writing it.", tool_calls=[make_call("Write", {"file_path": "handlers.py",
                                                                                 "content": BODY}, "w")]),
        Message(0, Role.TOOL, "", tool_results=[ToolResult("File created", "w")]),
        Message(0, Role.ASSISTANT, "Done: 60 handlers in handlers.py."),
        Message(0, Role.USER, "Now rename route to dispatch in the first one."),
        Message(0, Role.ASSISTANT, "", tool_calls=[make_call("Edit", {
            "file_path": "handlers.py", "old_string": "return route(event, weight=0)",
            "new_string": "return dispatch(event, weight=0)"}, "e")]),
        Message(0, Role.TOOL, "", tool_results=[ToolResult("ok", "e")]),
    ])


def test_room_left_after_the_whole_session_shows_what_was_written():
    t = _session()
    tail = TailRenderer(list(t.rounds), True, Steering())
    assert tail.holds_session()
    text, cost = _widened(tail, t.rounds[0].number, 10_000)
    assert text is not None and "def handler_59(event):" in text  # after its `→ Write handlers.py` line
    assert text.index("→ Write handlers.py") < text.index("def handler_0(event):")
    assert "- return route(event, weight=0)\n+ return dispatch(event, weight=0)" in text
    plain = sum(tail.round_costs(None))  # the rounds whole, no room left for the writes: without them
    bare, bare_cost = _widened(tail, t.rounds[0].number, plain)
    assert bare is not None and "def handler_" not in bare and bare_cost == plain < cost


def test_a_tail_of_the_latest_rounds_only_never_shows_them():
    t = _session()
    latest = TailRenderer(list(t.rounds[1:]), True, Steering())
    assert not latest.holds_session()
    text, _ = _widened(latest, t.rounds[1].number, 10_000)
    assert text is not None and "+ return dispatch" not in text


def test_a_session_within_its_budget_comes_back_unchanged():
    t = _session()
    n = tokens.count_messages(t.messages)
    md = compact(t, target_tokens=n * 3).markdown
    assert "returned unchanged" in md and "def handler_59(event):" not in md


def test_a_tight_budget_does_not_pay_for_what_was_written():
    t = _session()
    target = max(200, tokens.count_messages(t.messages) // 5)
    md = compact(t, target_tokens=target).markdown
    assert "def handler_59(event):" not in md and tokens.count(md) <= target


def _long_session(rounds: int = 42):
    msgs = [Message(0, Role.USER, "Write the event handlers module.")]
    msgs += [Message(0, Role.ASSISTANT, "Writing it.", tool_calls=[make_call("Write", {"file_path": "handlers.py",
                                                                                      "content": BODY}, "w")]),
             Message(0, Role.TOOL, "", tool_results=[ToolResult("File created", "w")])]
    for i in range(rounds):
        msgs += [Message(0, Role.USER, f"Step {i}: check the handlers again and report what you see in detail."),
                 Message(0, Role.ASSISTANT, f"Checked step {i}: " + "the handlers route every event. " * 12)]
    return transcript(msgs)


def test_a_long_sessions_tail_never_shows_the_writes():
    """Only a tail that holds every round verbatim shows the writes inside it; a long session shows a file
    it created as it left it among the change records instead (`sources/written.py`), once every other
    fact fits, ahead of older rounds: its opening lines, not the tail's `→ Write` call."""
    t = _long_session()
    md = compact(t, target_tokens=3000).markdown
    tail = md[md.index("## Recent rounds"):]
    assert "def handler_" not in tail and tokens.count(md) <= 3000
    assert "`handlers.py` (120 lines, from its writes and edits)" in md and "def handler_0(event):" in md


def test_what_the_steering_ignores_is_not_shown_among_the_writes():
    msgs = [Message(0, Role.USER, "Write the payroll export."),
            Message(0, Role.ASSISTANT, "Writing it.", tool_calls=[make_call("Write", {
                "file_path": "export.py", "content": "def payroll_export(rows):\n    return rows\n" * 30}, "w")]),
            Message(0, Role.TOOL, "", tool_results=[ToolResult("File created", "w")]),
            Message(0, Role.USER, "Now the summary."), Message(0, Role.ASSISTANT, "Done.")]
    t = transcript(msgs)
    tail = TailRenderer(list(t.rounds), True, parse_instructions("ignore payroll"))
    text, _ = _widened(tail, t.rounds[0].number, 10_000)
    assert text is not None and "return rows" not in text
    shown, _ = _widened(TailRenderer(list(t.rounds), True, Steering()), t.rounds[0].number, 10_000)
    assert shown is not None and "return rows" in shown  # without the instruction it is shown
