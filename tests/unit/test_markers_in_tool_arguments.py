"""A planted marker survives wherever the model saw it, tool-call arguments included (issue 13 item 4)."""

from __future__ import annotations

from compaction.events import EventKind, extract_events
from compaction.history import compact
from compaction.model import Message, Role, ToolCall, ToolResult, Transcript, group_rounds


def _session() -> Transcript:
    todo = ToolCall(name="TodoWrite", id="t1", kind="todo",
                    arguments={"todos": [{"content": "@todo: rotate the staging keys before Friday", "status": "pending"}]})
    write = ToolCall(name="some_new_writer", id="w1", path="notes.md",
                     arguments={"file": "notes.md", "body": "# Notes\n@decision: ports default to 8000\n"})
    messages = [Message(0, Role.USER, "Set up the service."),
                Message(1, Role.ASSISTANT, "Planning.", tool_calls=[todo, write]),
                Message(2, Role.TOOL, tool_results=[ToolResult(call_id="t1", content="ok"),
                                                    ToolResult(call_id="w1", content="written")])]
    for i in range(3, 40, 2):
        messages += [Message(i, Role.USER, f"Step {i}: keep going with the service setup."),
                     Message(i + 1, Role.ASSISTANT, f"Done with step {i}. " + "details " * 40)]
    t = Transcript(path="s.jsonl", format="test", messages=messages)
    t.rounds = group_rounds(messages)
    return t


def test_markers_in_tool_call_arguments_become_marker_events():
    markers = [e for e in extract_events(_session()) if e.kind is EventKind.MARKER]
    assert {(e.marker, e.text) for e in markers} >= {
        ("todo", "@todo: rotate the staging keys before Friday"), ("decision", "@decision: ports default to 8000")}


def test_markers_in_tool_call_arguments_survive_a_tight_compaction():
    md = compact(_session(), target_tokens=300).markdown
    assert "rotate the staging keys" in md and "ports default to 8000" in md
