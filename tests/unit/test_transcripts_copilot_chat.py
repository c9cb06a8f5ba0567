"""GitHub Copilot Chat sessions (compaction/transcripts/copilot_chat.py): both shapes VS Code writes
under chatSessions/ — the serialized chat model (*.json) and the change log (*.jsonl, replayed) —
from the hand-made fixtures in tests/data/formats (sources in its README)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from compaction import tokens
from compaction.config import Settings
from compaction.events import EventKind, extract_events
from compaction.history import compact
from compaction.model import Role, ToolKind, TranscriptError
from compaction.transcripts import anthropic, copilot_chat, detect, gemini_cli, load_transcript, openai_chat

DATA = Path(__file__).resolve().parents[1] / "data" / "formats"
JSON = DATA / "copilot_chat_session.json"
LOG = DATA / "copilot_chat_session.jsonl"


def calls(t):
    return [(c.name, c.kind, c.command, c.path) for m in t.messages for c in m.tool_calls]


@pytest.mark.parametrize("path", [JSON, LOG])
def test_detected_by_content_also_under_a_neutral_name(path, tmp_path):
    assert detect(path).NAME == "copilot-chat"
    neutral = tmp_path / "session.txt"
    shutil.copy(path, neutral)
    assert detect(neutral).NAME == "copilot-chat"
    head = path.read_text(encoding="utf-8")[:65536]
    for other in (anthropic, gemini_cli, openai_chat):
        assert other.sniff(head, "x") < copilot_chat.sniff(head, "x"), other.NAME


def test_serialized_model_requests_responses_tools_and_edits():
    t = load_transcript(JSON)
    assert t.meta["customTitle"] == "Fix invoice rounding"
    assert [m.role for m in t.messages[:3]] == [Role.USER, Role.ASSISTANT, Role.TOOL]
    assert t.messages[0].text == "The rounding test fails in invoice.py, fix it"
    root = "/home/dev/invoice-service"
    assert calls(t) == [
        ("run_in_terminal", ToolKind.SHELL, "python -m pytest -q tests/test_rounding.py", None),
        ("copilot_readFile", ToolKind.READ, None, f"{root}/invoice.py"),
        ("edit_file", ToolKind.EDIT, None, f"{root}/invoice.py"),  # textEditGroup
        ("run_in_terminal", ToolKind.SHELL, "python -m pytest -q", None),
        ("manage_todo_list", ToolKind.TODO, None, None),  # toolSpecificData.todoList
        ("copilot_readFile", ToolKind.READ, None, f"{root}/CHANGELOG.md"),  # the path only in the message's link
        ("edit_file", ToolKind.EDIT, None, f"{root}/CHANGELOG.md"),
    ]
    todo_call = next(c for m in t.messages for c in m.tool_calls if c.name == "manage_todo_list")
    assert todo_call.arguments["todos"] == [{"content": "Add the CHANGELOG entry", "status": "in_progress"},
                                            {"content": "Release 1.4.1", "status": "pending"}]
    results = [r for m in t.messages for r in m.tool_results]
    assert [(r.call_id, r.exit_code, r.is_error) for r in results] == [
        ("toolu_01", 1, True), ("toolu_02", None, False), ("toolu_03", 0, False)]
    assert "AssertionError: assert Decimal('2.67')" in results[0].content
    # inline references stay in the sentence; text after a tool call is the model's next turn
    changelog = next(m for m in t.messages if m.text.startswith("Adding it under"))
    assert changelog.text == "Adding it under Unreleased in `CHANGELOG.md`."
    thought = t.messages[changelog.index - 1].meta["thinking"]
    assert thought == ["The repo keeps a CHANGELOG.md with an Unreleased section."]
    todo = t.messages[changelog.index + 1]
    assert todo.text == "@todo: release 1.4.1 once CI is green." and todo.meta["new_turn"]
    assert [[m.index for m in r.messages] for r in t.rounds] == [
        [0, 1, 2], [3, 4], [5, 6], [7], [8, 9], [10], [11], [12, 13]]
    assert t.messages[-1].role is Role.SYSTEM and t.messages[-1].text.startswith("Sorry, your request failed")
    assert t.skipped_kinds == {"codeblockUri": 1, "undoStop": 1}
    assert [m.line for m in t.messages if m.role is Role.USER] == [10, 237, 380]  # each request's line


def test_change_log_is_replayed_set_push_splice_delete():
    state, lines = copilot_chat._replay(str(LOG))
    assert state["customTitle"] == "Fix missing discount in total"  # kind 1 at a top-level key
    assert "inputState" in state and state["inputState"] is None  # kind 3
    first = state["requests"][0]["response"]
    assert [p["value"] for p in first] == ["Let me run the tests to see the failure.",
                                           "\n\nFixed: `src/total.ts` treats a missing discount as 0; all 5 tests pass."]
    assert lines == [1, 7]  # request 2 was pushed on line 7


def test_change_log_prefers_copilots_own_tool_call_rounds():
    t = load_transcript(LOG)
    root = "/home/dev/ledger-ui"
    assert calls(t) == [
        ("run_in_terminal", ToolKind.SHELL, "npm test", None),
        ("read_file", ToolKind.READ, None, f"{root}/src/total.ts"),
        ("replace_string_in_file", ToolKind.EDIT, None, f"{root}/src/total.ts"),
        ("run_in_terminal", ToolKind.SHELL, "npm test", None),
        ("copilot_createFile", ToolKind.WRITE, None, f"{root}/src/total.discount.test.ts"),
    ]
    codes = [(r.call_id, r.exit_code) for m in t.messages for r in m.tool_results]
    assert codes == [("call_1", 1), ("call_2", None), ("call_3", None), ("call_4", 0)]
    assert [[m.index for m in r.messages] for r in t.rounds] == [
        [0, 1, 2], [3, 4], [5, 6], [7, 8], [9], [10, 11], [12]]


def test_events_errors_and_compaction_of_each_shape():
    for path, error, edited in ((JSON, "ERR_PY_AssertionError", "invoice.py"), (LOG, "ERR_JS_TypeError", "src/total.ts")):
        t = load_transcript(path)
        events = extract_events(t)
        assert any(e.kind == EventKind.EDIT and e.path and e.path.endswith(edited) for e in events), path
        failed = [e for e in events if e.kind == EventKind.COMMAND and e.failed]
        assert failed, path
        target = min(450, tokens.count_messages(t.messages) * 9 // 10)  # below its size: compacted, not returned whole
        result = compact(t, Settings(keep_recent=1), target_tokens=target)
        assert result.stats.dropped_rounds >= 1 and result.stats.tokens_after <= target, path
        modified = result.markdown.split("## Modified files")[1].split("##")[0]
        assert edited in modified, path
        # one failure, one record: aliases (the test failure it caused) stand beside the primary id
        assert re.search(rf"- {error}(?: \(\+[^)]*\))?: occurrences 1 \(rounds 1\)", result.markdown), path


@pytest.mark.parametrize(("lines", "message"), [
    ([{"kind": 1, "k": ["customTitle"], "v": "x"}], r"no initial \(kind 0\) entry"),
    ([{"kind": 0, "v": {"requests": []}}, {"kind": 2, "k": ["requests", 3, "response"], "v": []}], "does not exist"),
    ([{"kind": 0, "v": {"requests": []}}, {"kind": 7, "k": ["requests"]}], "unknown change-log kind 7"),
    ([{"kind": 0, "v": {"requests": []}}, {"kind": 1, "v": 1}], "key path"),
])
def test_bad_change_logs_name_the_file_and_line(lines, message, tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_text("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(TranscriptError, match=message) as err:
        load_transcript(p, "copilot-chat")
    assert err.value.path == str(p) and err.value.line == len(lines)


def test_a_session_without_requests_is_an_error(tmp_path):
    p = tmp_path / "s.json"
    p.write_text(json.dumps({"version": 3, "responderUsername": "GitHub Copilot", "requests": []}))
    with pytest.raises(TranscriptError, match="without any request"):
        load_transcript(p)
