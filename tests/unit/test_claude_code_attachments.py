"""Claude Code 2.1.x hands the model more than user and assistant records: `attachment` records (a prompt
the user queued while the agent worked, a background task's notification, a file's text, the skills or
tools now available) and user records a task notification wrote (`origin.kind`). What the model read is
read; the prompt queue's own bookkeeping (`queue-operation`) is not, and coverage says why."""

from __future__ import annotations

import json

from compaction.model import Role
from compaction.transcripts import load_transcript
from compaction.transcripts.coverage import measure

NOTE = ("<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n"
        "<summary>Background command \"Run data fetcher\" completed (exit code 0)</summary>\n</task-notification>")


def _rec(kind: str, i: int, **extra) -> str:
    return json.dumps({"type": kind, "uuid": f"u{i}", "parentUuid": f"u{i - 1}", "sessionId": "s", "cwd": "/w",
                       "isSidechain": False, "userType": "external", "timestamp": "2026-04-26T22:16:12Z", **extra})


def _session(tmp_path):
    lines = [
        _rec("user", 1, message={"role": "user", "content": "Build the impact dashboard."}),
        _rec("assistant", 2, message={"id": "m1", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "python fetch.py &"}}]}),
        _rec("queue-operation", 3, operation="enqueue", content="also add a weekly chart please"),
        _rec("user", 4, message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                                               "content": "started"}]}),
        _rec("attachment", 5, attachment={"type": "queued_command", "prompt": "also add a weekly chart please",
                                          "commandMode": "prompt"}),
        _rec("attachment", 6, attachment={"type": "queued_command", "prompt": NOTE, "commandMode": "task-notification"}),
        _rec("attachment", 7, attachment={"type": "file", "filename": "/w/app.py", "content": {
            "type": "text", "file": {"filePath": "/w/app.py", "content": "import streamlit as st\nst.title('Impact')"}}}),
        _rec("user", 8, origin={"kind": "task-notification"}, message={"role": "user", "content": NOTE}),
        _rec("assistant", 9, message={"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "Done."}]}),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_attachments_are_read_and_a_queued_prompt_is_the_users(tmp_path):
    t = load_transcript(str(_session(tmp_path)))
    users = [(m.text, m.harness) for m in t.messages if m.role is Role.USER]
    assert ("also add a weekly chart please", False) in users  # typed while the agent worked: theirs
    assert any("Run data fetcher" in text and harness for text, harness in users)  # the harness's notification
    assert any("st.title('Impact')" in text and harness for text, harness in users)  # a file's text, attached
    noted = [m for m in t.messages if m.role is Role.USER and m.text == NOTE and m.line == 8]
    assert noted and noted[0].harness  # a user record a task notification wrote (`origin.kind`)


def test_the_queue_bookkeeping_is_excluded_and_the_rest_is_covered(tmp_path):
    path = _session(tmp_path)
    report = measure(str(path), load_transcript(str(path)))
    assert report.coverage >= 0.99


def test_an_attachment_nested_deeper_than_any_real_one_is_read_to_a_bound(tmp_path):
    nested: dict = {"type": "odd", "content": "the first words"}
    inner = nested
    for _ in range(900):  # json reads it; walking it whole would exhaust the stack
        inner["next"] = {}
        inner = inner["next"]
    inner["content"] = "too deep to be an attachment"
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([_rec("user", 1, message={"role": "user", "content": "go"}),
                               _rec("attachment", 2, attachment=nested)]) + "\n", encoding="utf-8")
    t = load_transcript(str(path))
    said = "\n".join(m.text for m in t.messages)
    assert "the first words" in said and "too deep" not in said


def test_the_extensions_context_block_beside_the_users_words_is_the_harnesss(tmp_path):
    """The VS Code extension sends `<ide_opened_file>The user opened the file … in the IDE. This may or may
    not be related to the current task.</ide_opened_file>` as a text block beside the user's words: it is
    read (coverage), as the harness's, and the request is the user's words alone."""
    ide = ("<ide_opened_file>The user opened the file /w/top_300_contacts.csv in the IDE. This may or may not be "
           "related to the current task.</ide_opened_file>")
    lines = [_rec("user", 1, message={"role": "user", "content": [{"type": "text", "text": ide},
                                                                   {"type": "text", "text": "Restart openwhisper"}]}),
             _rec("assistant", 2, message={"id": "m1", "role": "assistant", "content": [
                 {"type": "text", "text": "Restarted."}]}),
             _rec("user", 3, message={"role": "user", "content": [{"type": "text", "text": ide}]})]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    t = load_transcript(str(path))
    users = [(m.text, m.harness) for m in t.messages if m.role is Role.USER]
    assert users[:2] == [("Restart openwhisper", False), (ide, True)]  # in the round the request opens
    assert [m.text for m in t.rounds[0].messages][:2] == ["Restart openwhisper", ide]
    assert users[2] == (ide, False)  # alone, it is what the user sent: nothing is taken from it
    assert measure(str(path), t).coverage >= 0.99
