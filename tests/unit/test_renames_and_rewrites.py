"""A file moved with `mv` keeps its history under its new name, and a file written whole again says what
the rewrite changed (not only "created" twice)."""

from __future__ import annotations

import pytest

from compaction.events import Event, EventKind, extract_events
from compaction.history import compact
from compaction.history.sources import filelog
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

V1 = "def describe(path, model):\n    text = run(model, path)\n    return text\n"
V2 = "def describe(path, model):\n    text = run(model, path)\n    return f\"### {model}'s take:\\n\\n{text}\"\n"


def _session(move: str = "mv describer2.py describer.py", before: tuple[str, ...] = ()) -> Transcript:
    """Write describer2.py, rewrite it, then move it with `move` (after the commands `before`)."""
    msgs: list[Message] = []

    def call(name: str, args: dict, kind: ToolKind, result: str, **kw) -> None:
        cid = f"c{len(msgs)}"
        msgs.append(Message(len(msgs), Role.ASSISTANT, f"Calling {name}.",
                            tool_calls=[ToolCall(name, args, cid, kind, **kw)]))
        msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(result, cid, name)]))

    msgs.append(Message(0, Role.USER, "Write describer2.py with a describe function, then make it the describer."))
    listing = "\n".join(f"{i:>5}  line {i} of the old describer, unchanged" for i in range(600))
    call("read_file", {"path": "describer_old.py"}, ToolKind.READ, listing, path="describer_old.py")
    call("write_to_file", {"path": "describer2.py", "content": V1}, ToolKind.WRITE, "saved", path="describer2.py")
    msgs.append(Message(len(msgs), Role.USER, "Prefix each description with a header naming the model."))
    call("write_to_file", {"path": "describer2.py", "content": V2}, ToolKind.WRITE, "saved", path="describer2.py")
    for command in (*before, move):
        call("execute_command", {"command": command}, ToolKind.SHELL, "", command=command)
    msgs.append(Message(len(msgs), Role.USER, "Thanks, that is all."))
    msgs.append(Message(len(msgs), Role.ASSISTANT, "Done."))
    return Transcript(path="s.json", format="test", messages=msgs, rounds=group_rounds(msgs))


def test_a_moved_file_keeps_its_history_and_a_rewrite_says_what_it_changed():
    doc = compact(_session(), target_tokens=1500, keep_recent=0).markdown
    assert "Scratch files" not in doc and "later removed" not in doc
    assert "`describer.py`" in doc and "renamed from `describer2.py`" in doc
    assert "take:" in doc  # the rewrite's added line, said in the record


@pytest.mark.parametrize(("move", "before", "now"), [
    ("git mv describer2.py describer.py", (), "describer.py"),
    ("mv describer2.py pkg/", (), "pkg/describer2.py"),
    ("mv -t pkg describer2.py", (), "pkg/describer2.py"),
    ("mv describer_old.py describer2.py pkg", (), "pkg/describer2.py"),
    ("mv describer2.py pkg", ("mkdir -p pkg",), "pkg/describer2.py"),  # a directory the session made
])
def test_a_file_moved_by_git_mv_or_into_a_directory_keeps_its_history(move: str, before: tuple[str, ...], now: str):
    transcript = _session(move, before)
    assert any(e.kind is EventKind.WRITE and e.path == now for e in extract_events(transcript))
    doc = compact(transcript, target_tokens=1500, keep_recent=0).markdown
    assert f"`{now}`" in doc and "renamed from `describer2.py`" in doc
    assert "later removed" not in doc and "`pkg/`" not in doc


def test_a_rename_onto_an_unknown_name_stays_a_rename():
    events = extract_events(_session("mv describer2.py pkg"))
    assert [e.path for e in events if e.kind is EventKind.WRITE and e.via_shell] == ["pkg"]


def test_a_move_carries_the_file_log_to_its_destination():
    write = Event(EventKind.WRITE, 3, 5, path="lib/a.py", command="mv a.py lib/", via_shell=True,
                  moved=("a.py", "lib/a.py"))
    delete = Event(EventKind.DELETE, 3, 5, path="a.py", command="mv a.py lib/", via_shell=True,
                   moved=("a.py", "lib/a.py"))
    records, carried = {"a.py": filelog.FileLog()}, set()
    assert filelog.follow_move(write, None, records, carried) and filelog.follow_move(delete, None, records, carried)
    assert list(records) == ["lib/a.py"] and records["lib/a.py"].renamed_from == "a.py"
    assert not filelog.follow_move(write, None, {}, set())  # nothing to carry: the write is the file's first
