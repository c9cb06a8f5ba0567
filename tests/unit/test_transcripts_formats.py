"""Loaders for the agent formats with no real transcript in ../shared (hand-written fixtures in
tests/data/formats): Claude Code, Codex CLI, Gemini CLI, Anthropic/Cline, OpenAI chat.

Per format: detection by content (also under a neutral file name), messages/rounds, cwd, the
normalised ToolCalls per tool, exit codes / is_error, skipped records, the events each tool yields,
and one test per kind of malformed input.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from compaction.events import EventKind, extract_events
from compaction.model import Role, ToolKind, TranscriptError
from compaction.transcripts import (
    anthropic,
    claude_code,
    codex,
    codex_exec,
    detect,
    gemini_cli,
    load_transcript,
    openai_chat,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "formats"

FIXTURES = {
    "claude_code_session.jsonl": "claude-code",
    "codex_rollout.jsonl": "codex",
    "codex_exec.jsonl": "codex-exec",
    "claude_stream.jsonl": "claude-code",
    "gemini_stream.jsonl": "gemini-cli",
    "gemini_session.jsonl": "gemini-cli",
    "gemini_session_legacy.json": "gemini-cli",
    "cline_api_conversation_history.json": "anthropic",
    "anthropic_messages.json": "anthropic",
    "openai_chat.json": "openai-chat",
    "openai_chat_legacy_functions.json": "openai-chat",
}
MODULES = {m.NAME: m for m in (claude_code, codex, codex_exec, gemini_cli, anthropic, openai_chat)}


def load(name: str):
    return load_transcript(DATA / name)


def calls(t):
    return [c for m in t.messages for c in m.tool_calls]


def results(t):
    return {r.call_id: r for m in t.messages for r in m.tool_results}


def events_of(t, kind):
    return [e for e in extract_events(t) if e.kind == kind]


# --- detection -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_detected_by_content_under_a_neutral_name(name, tmp_path):
    assert detect(DATA / name).NAME == FIXTURES[name]
    neutral = tmp_path / "transcript.txt"
    shutil.copy(DATA / name, neutral)
    assert detect(neutral).NAME == FIXTURES[name]
    assert load_transcript(neutral).format == FIXTURES[name]


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_other_loaders_do_not_claim_the_fixture(name):
    head = (DATA / name).read_text(encoding="utf-8")[:65536]
    own = MODULES[FIXTURES[name]].sniff(head, "x")
    for mod in MODULES.values():
        if mod.NAME != FIXTURES[name]:
            assert mod.sniff(head, "x") < own, mod.NAME


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_messages_are_indexed_and_lined(name):
    t = load(name)
    assert [m.index for m in t.messages] == list(range(len(t.messages)))
    assert all(m.line is not None and m.line >= 1 for m in t.messages)
    lines = [m.line for m in t.messages]
    assert lines == sorted(lines) or name.startswith("gemini_session")  # sessions: first-seen order
    assert sum(len(r.messages) for r in t.rounds) == len(t.messages)
    assert all(r.messages[0].role is not Role.TOOL for r in t.rounds[:1])


# --- Claude Code ---------------------------------------------------------------------------------


def test_claude_code_shape():
    t = load("claude_code_session.jsonl")
    assert t.format == "claude-code"
    assert t.cwd == "/home/dev/projects/invoice-tool"
    assert len(t.messages) == 22 and len(t.rounds) == 9
    assert t.skipped_kinds == {"summary": 1, "file-history-snapshot": 1, "sidechain": 1}
    assert t.meta["summaries"] == ["Fix invoice rounding off-by-one-cent"]
    assert t.messages[0].harness and t.messages[0].role is Role.USER  # isMeta caveat
    first = t.messages[2]  # thinking + text + tool_use records of msg_01HRk2 -> one message
    assert first.role is Role.ASSISTANT and first.line == 5 and first.timestamp == "2025-09-14T09:12:08.010Z"
    assert first.text == "I'll start by reading the module that computes the totals."
    assert "Probably float" in first.meta["thinking"][0] and "Probably" not in first.text
    # msg_06Wm9s: Write, its result, then MultiEdit of the same response -> one assistant message
    merged = [m for m in t.messages if m.meta.get("message_id") == "msg_06Wm9s"]
    assert len(merged) == 1 and [c.name for c in merged[0].tool_calls] == ["Write", "MultiEdit"]
    assert [m.index for m in t.rounds[5].messages] == [12, 13, 14, 15]  # + system record
    assert not any("Sub-agent" in m.text for m in t.messages)


def test_claude_code_tool_calls():
    t = load("claude_code_session.jsonl")
    root = "/home/dev/projects/invoice-tool"
    got = [(c.name, c.kind, c.command, c.path) for c in calls(t)]
    assert got == [
        ("Read", ToolKind.READ, None, f"{root}/invoice.py"),
        ("Grep", ToolKind.SEARCH, None, root),
        ("Bash", ToolKind.SHELL, "python -m pytest -q tests/test_invoice.py", None),
        ("Edit", ToolKind.EDIT, None, f"{root}/invoice.py"),
        ("TodoWrite", ToolKind.TODO, None, None),
        ("Write", ToolKind.WRITE, None, f"{root}/tests/test_rounding.py"),
        ("MultiEdit", ToolKind.EDIT, None, f"{root}/invoice.py"),
        ("Glob", ToolKind.SEARCH, None, root),
        ("Bash", ToolKind.SHELL, "python -m pytest -q", None),
    ]
    todo = calls(t)[4]
    assert [(x["content"], x["status"]) for x in todo.arguments["todos"]] == [
        ("Use Decimal in compute_total", "completed"),
        ("Add regression test for 3 x 19.99 at 7%", "in_progress"),
        ("Check report.py rounding", "pending"),
    ]
    res = results(t)
    assert res["toolu_03Bash"].is_error and res["toolu_03Bash"].exit_code == 1 and res["toolu_03Bash"].name == "Bash"
    assert not res["toolu_08Bash"].is_error and res["toolu_08Bash"].exit_code is None  # not stated: unknown
    assert "def compute_total" in res["toolu_01Read"].content


def test_claude_code_events():
    t = load("claude_code_session.jsonl")
    root = "/home/dev/projects/invoice-tool"
    assert [(e.round, e.path) for e in events_of(t, EventKind.READ)] == [(1, f"{root}/invoice.py")]
    assert [(e.round, e.path) for e in events_of(t, EventKind.EDIT)] == [(4, f"{root}/invoice.py"),
                                                                        (6, f"{root}/invoice.py")]
    assert [(e.round, e.path) for e in events_of(t, EventKind.WRITE)] == [(6, f"{root}/tests/test_rounding.py")]
    cmds = [(e.round, e.command, e.exit_code, e.failed) for e in events_of(t, EventKind.COMMAND)
            if not e.search]
    assert cmds == [(3, "python -m pytest -q tests/test_invoice.py", 1, True), (8, "python -m pytest -q", None, False)]
    todos = [(e.round, e.text, e.status) for e in events_of(t, EventKind.TODO) if e.tool == "TodoWrite"]
    assert todos[0] == (5, "Use Decimal in compute_total", "completed") and len(todos) == 3
    markers = {e.marker: e.round for e in events_of(t, EventKind.MARKER)}
    assert markers == {"important": 1, "decision": 4}


# --- Codex ---------------------------------------------------------------------------------------


def test_codex_shape():
    t = load("codex_rollout.jsonl")
    assert t.cwd == "/Users/mara/src/slugify-lite"
    assert len(t.messages) == 21 and len(t.rounds) == 9
    assert t.skipped_kinds == {"event_msg": 7, "turn_context": 1, "response_item:ghost_snapshot": 1}
    assert t.meta["model"] == "gpt-5-codex" and t.meta["cli_version"] == "0.44.0"
    assert t.messages[0].harness and t.messages[1].harness and not t.messages[2].harness  # instructions, env
    assert t.messages[2].text.startswith("slugify() keeps trailing dashes")
    merged = t.messages[5]  # two parallel function_calls of one response
    assert merged.role is Role.ASSISTANT and [c.name for c in merged.tool_calls] == ["shell", "update_plan"]
    assert t.messages[3].meta["reasoning"] == ["**Locating the slug function**"]
    assert "Locating" not in t.messages[3].text
    assert t.messages[3].timestamp == "2025-10-02T14:03:22.950Z" and t.messages[3].line == 9


def test_codex_tool_calls_and_exit_codes():
    t = load("codex_rollout.jsonl")
    got = [(c.name, c.kind, c.command, c.path) for c in calls(t)]
    assert got[0] == ("shell", ToolKind.SHELL, 'rg -n "def slugify" -S .', None)
    assert got[1] == ("shell", ToolKind.SHELL, "sed -n '1,40p' src/slugify_lite/core.py", None)
    assert got[2][:2] == ("update_plan", ToolKind.TODO)
    patch = calls(t)[3]
    assert patch.kind == ToolKind.EDIT and patch.path == "src/slugify_lite/core.py"
    assert patch.arguments["paths"] == ["src/slugify_lite/core.py", "tests/test_core.py"]
    assert got[4] == ("shell", ToolKind.SHELL, "pytest -q", None)
    assert got[5] == ("exec_command", ToolKind.SHELL, 'grep -rn "slugify" src/slugify_lite/cli.py', None)
    assert got[6] == ("apply_patch", ToolKind.EDIT, None, "src/slugify_lite/core.py")
    assert got[7] == ("local_shell", ToolKind.SHELL, "pytest -q", None)
    plan = calls(t)[2].arguments
    assert [(x["content"], x["status"]) for x in plan["todos"]][0] == ("Strip separators at both ends", "in_progress")
    res = results(t)
    assert (res["call_Rg01"].exit_code, res["call_Rg01"].is_error) == (0, False)
    assert res["call_Rg01"].content.startswith("./src/slugify_lite/core.py:8")  # JSON envelope unwrapped
    assert (res["call_Test05"].exit_code, res["call_Test05"].is_error) == (1, True)
    assert res["call_Exec06"].exit_code == 0  # "Process exited with code 0"
    assert res["call_Patch07"].exit_code == 0 and res["call_Patch07"].name == "apply_patch"
    assert res["call_Local08"].exit_code == 0  # from the exec_command_end event
    assert res["call_Plan03"].exit_code is None


def test_codex_events():
    t = load("codex_rollout.jsonl")
    edits = [(e.round, e.path) for e in events_of(t, EventKind.EDIT)]
    assert edits == [(3, "src/slugify_lite/core.py"), (3, "tests/test_core.py"), (7, "src/slugify_lite/core.py")]
    cmds = [(e.round, e.command, e.exit_code) for e in events_of(t, EventKind.COMMAND)]
    assert (4, "pytest -q", 1) in cmds and (8, "pytest -q", 0) in cmds and (1, 'rg -n "def slugify" -S .', 0) in cmds
    assert [(e.round, e.path) for e in events_of(t, EventKind.READ)] == [(2, "src/slugify_lite/core.py")]
    todos = [(e.round, e.text, e.status) for e in events_of(t, EventKind.TODO) if e.tool == "update_plan"]
    assert todos == [(2, "Strip separators at both ends", "in_progress"), (2, "Add tests for punctuation endings", "pending"),
                     (2, "Check the CLI wrapper", "pending")]
    assert {e.marker for e in events_of(t, EventKind.MARKER)} == {"todo", "warning"}


# --- Codex `exec --json` and Claude Code `stream-json` -----------------------------------------------


def test_codex_exec_stream_shape():
    t = load("codex_exec.jsonl")
    assert t.format == "codex-exec" and t.meta["thread_id"].startswith("0199b2d4")
    assert t.skipped_kinds == {"turn.started": 2, "turn.completed": 1}
    assert t.messages[0].meta["reasoning"] == ["**Finding the date parser**"]
    assert t.messages[0].text == "I'll check how the parser reads ISO week dates."
    assert [m.role for m in t.messages[-3:]] == [Role.SYSTEM, Role.ASSISTANT, Role.SYSTEM]
    assert t.messages[-1].harness and t.messages[-1].text == "turn failed: stream error: exceeded retry limit"
    assert len(t.rounds) == 7


def test_codex_exec_keeps_the_command_as_written_beside_the_unwrapped_one():
    from compaction.transcripts.coverage import measure

    t = load("codex_exec.jsonl")
    call = next(c for m in t.messages for c in m.tool_calls if c.command == "python -m pytest -q tests/test_dates.py")
    assert call.arguments["raw_command"] == "bash -lc 'python -m pytest -q tests/test_dates.py'"
    assert measure(DATA / "codex_exec.jsonl", load("codex_exec.jsonl")).coverage >= 0.99


def test_codex_exec_items_take_their_last_state_where_they_first_appeared():
    t = load("codex_exec.jsonl")
    got = [(c.name, c.kind, c.command, c.path) for c in calls(t)]
    assert got[0] == ("shell", ToolKind.SHELL, 'rg -n "def parse_week" src', None)  # bash -lc unwrapped
    assert got[1][:2] == ("todo_list", ToolKind.TODO)
    todos = [(x["content"], x["status"]) for x in calls(t)[1].arguments["todos"]]
    assert todos == [("Reproduce the week-53 failure", "completed"), ("Accept week 53 in long ISO years", "completed"),
                     ("Document the change", "pending")]  # the final state, placed where the list started
    assert got[3] == ("file_change", ToolKind.EDIT, None, "src/weekday/dates.py")
    assert calls(t)[3].arguments["paths"] == ["src/weekday/dates.py", "tests/test_dates.py"]
    assert got[4] == ("docs.search", ToolKind.OTHER, None, None)
    assert got[-1] == ("shell", ToolKind.SHELL, "git diff --stat", None)  # still running when the stream ended
    res = results(t)
    assert (res["item_2"].exit_code, res["item_2"].is_error) == (0, False)
    assert (res["item_4"].exit_code, res["item_4"].is_error) == (1, True)
    assert res["item_6"].content == "A year has 53 ISO weeks when it starts on a Thursday."
    assert "item_10" not in res


def test_codex_exec_events_and_errors():
    from compaction.errors import scan_transcript

    t = load("codex_exec.jsonl")
    assert [(e.round, e.path) for e in events_of(t, EventKind.EDIT)] == [(3, "src/weekday/dates.py"),
                                                                          (3, "tests/test_dates.py")]
    tests = [(e.command, e.exit_code) for e in events_of(t, EventKind.COMMAND) if "pytest" in (e.command or "")]
    assert tests == [("python -m pytest -q tests/test_dates.py", 1), ("python -m pytest -q tests/test_dates.py", 0)]
    nexts = [e.text for e in events_of(t, EventKind.TODO) if e.status == "next"]
    assert any("CHANGELOG.md" in n for n in nexts)
    assert "ERR_PY_ValueError" in {r.id for r in scan_transcript(t)}


def test_codex_exec_resumed_run_appended_to_the_same_file(tmp_path):
    data = (DATA / "codex_exec.jsonl").read_text(encoding="utf-8")
    p = tmp_path / "run.jsonl"
    p.write_text(data + data, encoding="utf-8")  # `codex exec resume … >> run.jsonl`: item ids start again
    once, twice = load("codex_exec.jsonl"), load_transcript(p)
    assert len(twice.messages) == 2 * len(once.messages)
    assert [c.command for c in calls(twice)] == [c.command for c in calls(once)] * 2


def test_claude_stream_json_shape():
    t = load("claude_stream.jsonl")
    assert t.format == "claude-code" and t.cwd == "/home/dev/tally-cli"
    assert t.skipped_kinds == {"system": 1, "sidechain": 1, "result": 1}  # init, the Task sub-agent, success
    got = [(c.name, c.kind, c.command, c.path) for c in calls(t)]
    assert got[0] == ("Read", ToolKind.READ, None, "/home/dev/tally-cli/tally/totals.py")
    assert got[1] == ("Bash", ToolKind.SHELL, "python -m pytest tests/test_totals.py -q", None)
    assert ("Edit", ToolKind.EDIT, None, "/home/dev/tally-cli/tally/totals.py") in got
    assert results(t)["toolu_s02"].is_error and results(t)["toolu_s03"].content == "Only tally/cli.py calls total()."
    assert "Searching for callers" not in "\n".join(m.text for m in t.messages)
    assert [e.path for e in events_of(t, EventKind.EDIT)] == ["/home/dev/tally-cli/tally/totals.py"]
    assert [e.text for e in events_of(t, EventKind.DECISION)][0].startswith("The root cause is float rounding")


def test_claude_stream_json_error_result_is_kept(tmp_path):
    lines = (DATA / "claude_stream.jsonl").read_text(encoding="utf-8").splitlines()
    lines[-1] = json.dumps({"type": "result", "subtype": "error_max_turns", "is_error": True, "session_id": "s",
                            "result": "Reached the maximum number of turns (7)"})
    p = tmp_path / "run.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    t = load_transcript(p)
    assert t.messages[-1].role is Role.SYSTEM and t.messages[-1].harness
    assert t.messages[-1].text == "run ended: error_max_turns\nReached the maximum number of turns (7)"


# --- Gemini CLI ----------------------------------------------------------------------------------


def test_gemini_stream():
    t = load("gemini_stream.jsonl")
    assert len(t.messages) == 19 and len(t.rounds) == 9
    assert t.meta["model"] == "gemini-2.5-pro" and t.meta["result"]["status"] == "success"
    assert t.skipped_kinds == {"heartbeat": 1}
    assert t.messages[1].text == "I'll look at how the forecast command parses the response."  # 2 delta chunks
    root = "/home/lin/work/weather-cli"
    got = [(c.name, c.kind, c.command, c.path) for c in calls(t)]
    assert got == [
        ("read_file", ToolKind.READ, None, f"{root}/weather/forecast.py"),
        ("search_file_content", ToolKind.SEARCH, None, root),
        ("replace", ToolKind.EDIT, None, f"{root}/weather/forecast.py"),
        ("write_file", ToolKind.WRITE, None, f"{root}/tests/test_forecast_errors.py"),
        ("write_todos", ToolKind.TODO, None, None),
        ("run_shell_command", ToolKind.SHELL, "python -m pytest -q tests/test_forecast_errors.py", None),
        ("read_file", ToolKind.READ, None, f"{root}/weather/errors.py"),
        ("glob", ToolKind.SEARCH, None, None),
    ]
    res = results(t)
    shell = res["run_shell_command-1762159274900-f6"]
    assert shell.exit_code == 2 and shell.is_error
    missing = res["read_file-1762159278000-g7"]
    assert missing.is_error and "File not found" in missing.content
    assert not res["replace-1762159269450-c3"].is_error
    warning = [m for m in t.messages if m.role is Role.SYSTEM]
    assert len(warning) == 1 and warning[0].harness and warning[0].meta["severity"] == "warning"


def test_gemini_stream_events():
    t = load("gemini_stream.jsonl")
    root = "/home/lin/work/weather-cli"
    assert [(e.round, e.path) for e in events_of(t, EventKind.EDIT)] == [(3, f"{root}/weather/forecast.py")]
    assert [(e.round, e.path) for e in events_of(t, EventKind.WRITE)] == [(4, f"{root}/tests/test_forecast_errors.py")]
    reads = [(e.round, e.path, e.failed) for e in events_of(t, EventKind.READ)]
    assert reads == [(1, f"{root}/weather/forecast.py", False), (7, f"{root}/weather/errors.py", True)]
    cmds = [(e.round, e.command, e.exit_code) for e in events_of(t, EventKind.COMMAND) if not e.search]
    assert cmds == [(6, "python -m pytest -q tests/test_forecast_errors.py", 2)]
    todos = [(e.text, e.status) for e in events_of(t, EventKind.TODO) if e.tool == "write_todos"]
    assert todos == [("Raise ForecastError on error payloads", "completed"), ("Test the error payload", "in_progress"),
                     ("Print the message in cli.py", "pending")]


def test_gemini_session_jsonl_replays_updates_and_rewinds():
    t = load("gemini_session.jsonl")
    assert t.cwd == "/home/lin/work/weather-cli"
    assert [m.role for m in t.messages] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.USER, Role.ASSISTANT,
                                            Role.TOOL, Role.SYSTEM, Role.ASSISTANT]
    assert not any("build folder" in m.text for m in t.messages)  # rewound away
    assert t.messages[1].tool_calls[0].path == "/home/lin/work/weather-cli/weather/cli.py"  # later record won
    assert t.messages[1].line == 3  # first appearance of the id
    assert t.messages[1].meta["thinking"] == ["Reading: Open cli.py"]  # the update left its thoughts out: kept
    assert t.skipped_kinds == {"$set": 1, "$rewindTo": 1} and t.meta["lastUpdated"] == "2025-11-04T10:00:06.000Z"
    assert len(t.rounds) == 3
    res = results(t)
    assert res["run_shell_command-1762250474400-x3"].exit_code == 0
    assert [e.path for e in events_of(t, EventKind.EDIT)] == ["/home/lin/work/weather-cli/weather/cli.py"]


def test_gemini_legacy_session_json():
    t = load("gemini_session_legacy.json")
    assert len(t.messages) == 4 and len(t.rounds) == 2
    assert [(c.name, c.kind, c.path) for c in calls(t)] == [
        ("list_directory", ToolKind.SEARCH, "/srv/app/tests"),
        ("read_many_files", ToolKind.READ, "/srv/app/tests/test_api.py")]
    res = results(t)
    assert res["read_many_files-1755705604100-b"].is_error and "Permission denied" in res["read_many_files-1755705604100-b"].content
    assert t.messages[0].line == 7  # line of the message object inside the pretty-printed file


def test_gemini_checkpoint_contents(tmp_path):
    contents = [
        {"role": "user", "parts": [{"text": "Run the linter"}]},
        {"role": "model", "parts": [{"text": "Running it."}, {"functionCall": {"id": "c1", "name": "run_shell_command",
                                                                               "args": {"command": "ruff check ."}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "run_shell_command",
                                                         "response": {"output": "Exit Code: 1\nF401 unused import"}}}]},
        {"role": "model", "parts": [{"text": "One unused import.", "thought": False}]},
    ]
    p = tmp_path / "checkpoint-lint.json"
    p.write_text(json.dumps(contents, indent=1))
    t = load_transcript(p)
    assert t.format == "gemini-cli" and [m.role for m in t.messages] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    assert t.messages[1].tool_calls[0].command == "ruff check ." and t.messages[2].tool_results[0].exit_code == 1
    assert len(t.rounds) == 2


# --- Anthropic / Cline ---------------------------------------------------------------------------


def test_cline_shape_and_tools():
    t = load("cline_api_conversation_history.json")
    assert t.meta["dialect"] == "cline" and t.cwd == "/Users/sam/code/todo-app"
    assert len(t.messages) == 22 and len(t.rounds) == 10  # the feedback is a user message (it opens the round the next call opened)
    task = t.messages[0]
    assert task.role is Role.USER and task.text.startswith('Add a "Clear completed" button')
    assert "<environment_details>" not in task.text and "ACT MODE" in task.meta["environment_details"][0]
    assert task.timestamp == "2024-11-11T08:00:00Z"
    assert "<thinking>" not in t.messages[1].text and t.messages[1].meta["thinking"]
    got = [(c.name, c.kind, c.command, c.path) for c in calls(t) if c.name != "task_progress"]
    assert got == [
        ("read_file", ToolKind.READ, None, "src/components/TodoList.tsx"),
        ("replace_in_file", ToolKind.EDIT, None, "src/components/TodoList.tsx"),
        ("write_to_file", ToolKind.WRITE, None, "src/utils/clearCompleted.ts"),
        ("execute_command", ToolKind.SHELL, "ls -l src/utils && chmod u+w src/utils", None),
        ("write_to_file", ToolKind.WRITE, None, "src/utils/clearCompleted.ts"),
        ("execute_command", ToolKind.SHELL, "npm test -- --watchAll=false", None),
        ("search_files", ToolKind.SEARCH, None, "src"),
        ("attempt_completion", ToolKind.OTHER, None, None),
        ("list_files", ToolKind.SEARCH, None, "src/components"),
        ("replace_in_file", ToolKind.EDIT, None, "src/components/TodoList.tsx"),
    ]
    assert "=======" in calls(t)[2].arguments["diff"] and "=>" in calls(t)[2].arguments["diff"]  # &gt; unescaped
    tool_msgs = [m for m in t.messages if m.role is Role.TOOL]
    assert len(tool_msgs) == 10 and all(len(m.tool_results) == 1 for m in tool_msgs)
    failed = tool_msgs[2].tool_results[0]
    assert failed.name == "write_to_file" and failed.is_error and "EACCES" in failed.content
    npm = tool_msgs[5].tool_results[0]
    assert npm.name == "execute_command" and npm.exit_code is None  # Cline does not report exit codes
    assert all(r.call_id for m in tool_msgs for r in m.tool_results)
    completion = tool_msgs[7]  # the user's feedback rides on the attempt_completion result: their next request
    assert "<feedback>" not in completion.tool_results[0].content
    asked = t.messages[completion.index + 1]
    assert asked.role is Role.USER and not asked.harness and asked.text == "Also disable the button when nothing is completed."


def test_cline_events():
    t = load("cline_api_conversation_history.json")
    assert [(e.round, e.path) for e in events_of(t, EventKind.READ)] == [(1, "src/components/TodoList.tsx")]
    assert [(e.round, e.path) for e in events_of(t, EventKind.EDIT)] == [(2, "src/components/TodoList.tsx"),
                                                                        (10, "src/components/TodoList.tsx")]
    writes = [(e.round, e.path, e.failed) for e in events_of(t, EventKind.WRITE)]
    assert writes == [(3, "src/utils/clearCompleted.ts", True), (5, "src/utils/clearCompleted.ts", False)]
    cmds = [(e.round, e.command) for e in events_of(t, EventKind.COMMAND) if not e.search]
    assert cmds == [(4, "ls -l src/utils && chmod u+w src/utils"), (6, "npm test -- --watchAll=false")]
    progress = [(e.round, e.text, e.status) for e in events_of(t, EventKind.TODO) if e.tool == "task_progress"]
    assert (1, "Read TodoList", "pending") in progress and (2, "Read TodoList", "completed") in progress
    assert [e.marker for e in events_of(t, EventKind.MARKER)] == ["important"]


def test_anthropic_messages():
    t = load("anthropic_messages.json")
    assert t.meta.get("dialect") is None and len(t.messages) == 11 and len(t.rounds) == 5
    assert t.messages[0].role is Role.SYSTEM and "careful coding assistant" in t.messages[0].text
    got = [(c.name, c.kind, c.command, c.path) for c in calls(t)]
    assert got == [
        ("bash", ToolKind.SHELL, "cd /srv/billing && python -m pytest -q tests/test_tax.py", None),
        ("str_replace_based_edit_tool", ToolKind.READ, None, "/srv/billing/billing/tax.py"),
        ("str_replace_based_edit_tool", ToolKind.EDIT, None, "/srv/billing/billing/tax.py"),
        ("bash", ToolKind.SHELL, "cd /srv/billing && python -m pytest -q tests/test_tax.py", None),
    ]
    res = results(t)
    assert res["toolu_01A9"].is_error and res["toolu_01A9"].exit_code == 1 and "ZeroDivisionError" in res["toolu_01A9"].content
    assert not res["toolu_01C4"].is_error and res["toolu_01C3"].name == "str_replace_based_edit_tool"
    assert t.messages[2].meta["thinking"] and "Run the failing" not in t.messages[2].text
    assert t.messages[9].role is Role.USER and t.messages[9].text == "Great, thanks!"  # image block ignored
    edits = [(e.round, e.path) for e in events_of(t, EventKind.EDIT)]
    assert edits == [(3, "/srv/billing/billing/tax.py")]
    assert [(e.round, e.exit_code) for e in events_of(t, EventKind.COMMAND)] == [(1, 1), (3, None)]


# --- OpenAI chat ---------------------------------------------------------------------------------


def test_openai_chat():
    t = load("openai_chat.json")
    assert len(t.messages) == 18 and len(t.rounds) == 7
    got = [(c.name, c.kind, c.command, c.path, c.id) for c in calls(t)]
    assert got[:2] == [("read_file", ToolKind.READ, None, "kvstore/cache.py", "call_a1"),
                       ("search", ToolKind.SEARCH, None, "kvstore", "call_a2")]
    assert got[2][:4] == ("edit_file", ToolKind.EDIT, None, "kvstore/cache.py")
    assert got[3][:4] == ("write_file", ToolKind.WRITE, None, "tests/test_lru.py")
    assert got[4][:2] == ("update_plan", ToolKind.TODO)
    assert got[5][:3] == ("bash", ToolKind.SHELL, "cd /workspace/kvstore && python -m pytest -q")
    res = results(t)
    assert res["call_d1"].exit_code == 1 and res["call_d1"].is_error and res["call_d1"].name == "bash"
    assert res["call_e2"].exit_code == 0 and not res["call_e2"].is_error
    assert t.messages[7].text == "Adding a regression test."  # content given as a list of parts
    assert [(e.round, e.path) for e in events_of(t, EventKind.EDIT)] == [(2, "kvstore/cache.py"), (6, "kvstore/cache.py")]
    assert [(e.round, e.path) for e in events_of(t, EventKind.WRITE)] == [(3, "tests/test_lru.py")]
    assert [(e.round, e.path) for e in events_of(t, EventKind.READ)] == [(1, "kvstore/cache.py")]
    cmds = [(e.round, e.exit_code) for e in events_of(t, EventKind.COMMAND) if not e.search]
    assert cmds == [(4, 1), (6, 0)]
    todos = [(e.text, e.status) for e in events_of(t, EventKind.TODO) if e.tool == "update_plan"]
    assert todos == [("Fix eviction order", "completed"), ("Move key to end on get()", "pending")]


def test_openai_legacy_function_call():
    t = load("openai_chat_legacy_functions.json")
    assert t.meta["model"] == "gpt-4-0613" and len(t.messages) == 9 and len(t.rounds) == 4
    got = [(c.name, c.kind, c.command, c.path) for c in calls(t)]
    assert got == [("run_command", ToolKind.SHELL, "wc -l setup.py", None), ("read_file", ToolKind.READ, None, "setup.py")]
    tools = [m for m in t.messages if m.role is Role.TOOL]
    assert [m.tool_results[0].name for m in tools] == ["run_command", "read_file"]
    assert [e.command for e in events_of(t, EventKind.COMMAND)] == ["wc -l setup.py"]
    assert [e.path for e in events_of(t, EventKind.READ)] == ["setup.py"]


# --- malformed input -----------------------------------------------------------------------------

JSONL = ["claude_code_session.jsonl", "codex_rollout.jsonl", "gemini_stream.jsonl", "gemini_session.jsonl",
         "codex_exec.jsonl", "claude_stream.jsonl"]
JSON_DOCS = ["cline_api_conversation_history.json", "anthropic_messages.json", "openai_chat.json",
             "gemini_session_legacy.json", "openai_chat_legacy_functions.json"]


def _both(path: Path, fmt: str):
    """Auto-detected and explicit-format loading must both fail with a TranscriptError."""
    errors = []
    for kwargs in ({}, {"fmt": fmt}):
        with pytest.raises(TranscriptError) as err:
            load_transcript(path, **kwargs)
        assert err.value.path == str(path) and str(path) in str(err.value)
        errors.append(err.value)
    return errors


@pytest.mark.parametrize("name", JSONL)
def test_jsonl_truncated_mid_file(name, tmp_path):
    lines = (DATA / name).read_text(encoding="utf-8").splitlines(keepends=True)
    lines[4] = lines[4][: len(lines[4]) // 2] + "\n"
    p = tmp_path / name
    p.write_text("".join(lines), encoding="utf-8")
    for err in _both(p, FIXTURES[name]):
        assert err.line == 5 and "invalid JSON" in err.reason


@pytest.mark.parametrize("name", JSONL)
def test_jsonl_truncated_last_line_is_a_warning(name, tmp_path):
    data = (DATA / name).read_text(encoding="utf-8")
    full = load_transcript(DATA / name)
    cut = data.rstrip("\n")
    cut = cut[: cut.rfind("\n") + 1] + cut[cut.rfind("\n") + 1:][:25]  # last line cut, no newline
    p = tmp_path / name
    p.write_text(cut, encoding="utf-8")
    t = load_transcript(p)
    assert t.format == FIXTURES[name] and len(t.warnings) == 1 and "incomplete last line" in t.warnings[0]
    assert len(t.messages) <= len(full.messages)


@pytest.mark.parametrize("name", JSONL + JSON_DOCS)
def test_invalid_utf8(name, tmp_path):
    data = (DATA / name).read_bytes()
    lines = data.split(b"\n")
    target = next(i for i, line in enumerate(lines) if i >= min(5, len(lines) - 1) and b"e" in line)
    lines[target] = lines[target].replace(b"e", b"\xff\xfe", 1)
    p = tmp_path / name
    p.write_bytes(b"\n".join(lines))
    for err in _both(p, FIXTURES[name]):
        assert "UTF-8" in err.reason and err.line == target + 1


@pytest.mark.parametrize("name", JSON_DOCS)
def test_json_truncated(name, tmp_path):
    data = (DATA / name).read_text(encoding="utf-8")
    p = tmp_path / name
    p.write_text(data[: len(data) * 2 // 3], encoding="utf-8")
    for err in _both(p, FIXTURES[name]):
        assert err.line is not None and "invalid JSON" in err.reason


@pytest.mark.parametrize("name", JSONL + JSON_DOCS)
def test_empty_file(name, tmp_path):
    p = tmp_path / name
    p.write_bytes(b"")
    with pytest.raises(TranscriptError, match="empty file"):
        load_transcript(p)
    mod = MODULES[FIXTURES[name]]
    with pytest.raises(TranscriptError) as err:
        mod.load(str(p))
    assert err.value.path == str(p)


WRONG_SHAPES = {
    # record that is not an object
    ("claude-code", "list record"): '{"type":"user","sessionId":"s","parentUuid":null,"message":{"role":"user","content":"hi"}}\n[1, 2]\n',
    # user record without a message object
    ("claude-code", "no message"): '{"type":"user","sessionId":"s","parentUuid":null,"message":{"role":"user","content":"hi"}}\n'
                                   '{"type":"assistant","sessionId":"s","parentUuid":"a","message":"oops"}\n',
    ("codex", "payload not object"): '{"timestamp":"t","type":"session_meta","payload":{"id":"x","cwd":"/r"}}\n'
                                     '{"timestamp":"t","type":"response_item","payload":"oops"}\n',
    ("codex-exec", "item not object"): '{"type":"thread.started","thread_id":"t"}\n{"type":"item.completed","item":[1]}\n',
    ("codex", "bad role"): '{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}\n'
                           '{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"robot","content":[]}}\n',
    ("gemini-cli", "bad role"): '{"type":"init","timestamp":"t","session_id":"s","model":"m"}\n'
                                '{"type":"message","timestamp":"t","role":"robot","content":"x"}\n',
    ("gemini-cli", "session message not object"): '{"sessionId":"s","projectHash":"h"}\n"just a string"\n',
    ("anthropic", "content number"): '[{"role": "user", "content": "hi"},\n {"role": "assistant", "content": 42}]',
    ("anthropic", "object without messages"): '{"system": "x", "prompt": "hello"}',
    ("openai-chat", "bad role"): '[{"role": "system", "content": "s"},\n {"role": "wizard", "content": "x"}]',
    ("openai-chat", "not a list"): '"just a string"',
    ("openai-chat", "item not object"): '[{"role": "user", "content": "hi"},\n 17]',
}


@pytest.mark.parametrize("key", sorted(WRONG_SHAPES), ids=lambda k: f"{k[0]}-{k[1]}")
def test_wrong_shape(key, tmp_path):
    fmt, _ = key
    p = tmp_path / "bad.json"
    p.write_text(WRONG_SHAPES[key], encoding="utf-8")
    with pytest.raises(TranscriptError) as err:
        load_transcript(p, fmt=fmt)
    assert err.value.path == str(p) and "unexpected shape" in err.value.reason
    assert err.value.line in (1, 2)


def test_unknown_records_are_skipped_not_fatal(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text('{"type":"user","sessionId":"s","parentUuid":null,"cwd":"/w","message":{"role":"user","content":"hi"}}\n'
                 '{"type":"queue-operation","operation":"enqueue","sessionId":"s"}\n'
                 '{"type":"assistant","sessionId":"s","parentUuid":"a","message":{"id":"m1","role":"assistant",'
                 '"content":[{"type":"text","text":"hello"},{"type":"server_tool_use","id":"x"}]}}\n', encoding="utf-8")
    t = load_transcript(p)
    assert t.format == "claude-code" and t.skipped_kinds == {"queue-operation": 1}
    assert [m.text for m in t.messages] == ["hi", "hello"] and t.cwd == "/w"


# --- smaller shapes ------------------------------------------------------------------------------


def test_codex_pre_envelope_rollout(tmp_path):
    lines = [
        {"id": "5973b6c0-94b8-487b-a530-2aeb6098ae0e", "timestamp": "2025-05-02T10:00:00.000Z", "instructions": None},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "count the TODOs in src"}]},
        {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"bash\",\"-lc\",\"grep -rc TODO src\"]}",
         "call_id": "call_1"},
        {"type": "function_call_output", "call_id": "call_1",
         "output": "{\"output\":\"src/a.py:2\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.01}}"},
        {"record_type": "state"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "There are 2 TODOs."}]},
    ]
    p = tmp_path / "old.jsonl"
    p.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    t = load_transcript(p)
    assert t.format == "codex" and t.skipped_kinds == {"state": 2}
    assert [m.role for m in t.messages] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    assert t.messages[1].tool_calls[0].command == "grep -rc TODO src"
    assert t.messages[2].tool_results[0].exit_code == 0 and t.messages[2].tool_results[0].content == "src/a.py:2\n"


def test_exit_codes_only_read_from_shell_like_outputs(tmp_path):
    """A file that happens to contain "Exit code 3" does not give its Read an exit code."""
    recs = [
        {"type": "user", "sessionId": "s", "parentUuid": None, "message": {"role": "user", "content": "read notes"}},
        {"type": "assistant", "sessionId": "s", "parentUuid": "u", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/w/notes.txt"}},
            {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "false"}}]}},
        {"type": "user", "sessionId": "s", "parentUuid": "a", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "Exit code 3 means: config missing"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "Error: Exit code 1", "is_error": True}]}},
    ]
    p = tmp_path / "s.jsonl"
    p.write_text("".join(json.dumps(x) + "\n" for x in recs), encoding="utf-8")
    res = results(load_transcript(p))
    assert res["t1"].exit_code is None and res["t1"].name == "Read"
    assert res["t2"].exit_code == 1 and res["t2"].is_error


def test_claude_code_summary_only_session(tmp_path):
    p = tmp_path / "only-title.jsonl"
    p.write_text('{"type":"summary","summary":"Refactor auth middleware","leafUuid":"0f6c2b7e-1111-4222-8333-944455556666"}\n',
                 encoding="utf-8")
    # a title and nothing else is no conversation (issue 13): an error that says what was found, never an
    # empty compaction
    with pytest.raises(TranscriptError, match=r"no conversation found in .*only-title\.jsonl \(claude-code: 0 messages"
                                              r" with text, skipped summary x1"):
        load_transcript(p)


def test_cline_error_detection_is_anchored(tmp_path):
    """A read file whose content mentions <error> or [ERROR] is not a failed tool call."""
    msgs = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nlook at the log\n</task>"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<read_file>\n<path>app.log</path>\n</read_file>"}]},
        {"role": "user", "content": [{"type": "text", "text": "[read_file for 'app.log'] Result:"},
                                     {"type": "text", "text": "[ERROR] db timeout\n<error>retry</error>"}]},
    ]
    p = tmp_path / "h.json"
    p.write_text(json.dumps(msgs), encoding="utf-8")
    t = load_transcript(p)
    r = t.messages[2].tool_results[0]
    assert t.format == "anthropic" and r.name == "read_file" and not r.is_error and r.content.startswith("[ERROR] db")


def test_gemini_legacy_session_on_one_line(tmp_path):
    data = json.loads((DATA / "gemini_session_legacy.json").read_text(encoding="utf-8"))
    p = tmp_path / "session-2025-08-20T16-00-1a2b3c4d.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    t = load_transcript(p)
    assert t.format == "gemini-cli" and len(t.messages) == 4 and t.messages[1].tool_calls[0].name == "list_directory"


def test_real_transcripts_are_not_claimed(shared_transcripts):
    """These loaders must not steal the real files of other formats."""
    skip = {"README.md", "MANIFEST.tsv", "GROUND_TRUTH.jsonl"}
    real = [p for p in sorted(shared_transcripts.iterdir()) if p.is_file() and p.name not in skip]
    assert len(real) >= 13
    for path in real:
        assert detect(path).NAME not in MODULES, path.name


def test_cline_xml_call_left_open_at_the_end_keeps_its_parameter(tmp_path):
    """An export cut off inside the last call (no `</result>`, no `</attempt_completion>`) keeps what
    the call said: it was text the model saw (found on a real Cline export after its first run)."""
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>Make it pip-installable</task>"}]},
        {"role": "assistant", "content": [{"type": "text", "text":
            "<attempt_completion>\n<result>Added `pyproject.toml` with a console script entry point."}]},
    ]
    p = tmp_path / "api_conversation_history.json"
    p.write_text(json.dumps(history))
    t = load_transcript(p)
    (reply,) = [m for m in t.messages if m.tool_calls]
    assert reply.tool_calls[0].name == "attempt_completion"
    assert "console script entry point" in reply.text  # its report is the agent's reply (`_agent_tools.speech`)


def test_a_call_that_speaks_to_the_user_is_the_agents_reply(tmp_path):
    """Cline's plan_mode_respond (the plan) and attempt_completion (the report) are words for the user: they
    read as the agent's text, in place, counted once; the call stays (its result is paired by order)."""
    plan = "Plan: split the script into a package with `cli.py`, add setup.cfg and MANIFEST.in, then test."
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>Make it pip-installable</task>"}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": f"First the plan.\n<plan_mode_respond>\n<response>{plan}</response>\n"
                                     "</plan_mode_respond>\nThen I wait."},
            {"type": "tool_use", "id": "t1", "name": "attempt_completion",
             "input": {"result": "Done: the package installs with pip install -e . and runs as `sd-run`."}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "thanks"}]},
    ]
    p = tmp_path / "api_conversation_history.json"
    p.write_text(json.dumps(history))
    t = load_transcript(p)
    reply = t.messages[1]
    assert reply.text.index("First the plan.") < reply.text.index("MANIFEST.in") < reply.text.index("Then I wait.")
    assert "sd-run" in reply.text
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("plan_mode_respond", {}), ("attempt_completion", {})]
    assert reply.full_text().count("MANIFEST.in") == 1
    assert t.messages[2].tool_results[0].call_id == "t1"


def test_a_call_whose_message_goes_somewhere_is_an_action_not_speech():
    """A commit's or an e-mail's `message` rides with a repository or an addressee: the call keeps it."""
    from compaction.transcripts._agent_tools import make_call, speech
    words = "Fix the parser defaults so that sub-commands inherit the parent's options."
    assert speech(make_call("mcp__git__git_commit", {"repo_path": "/repo", "message": words})) is None
    assert speech(make_call("send_email", {"to": "a@b.c", "message": words})) is None
    assert speech(make_call("attempt_completion", {"result": words, "command": "open index.html"})) == ("result", words)
    assert speech(make_call("ask_followup_question", {"question": words + "?", "options": ["a", "b"]})) is not None
    assert speech(make_call("attempt_completion", {"result": "Done."})) is None  # too short to be a report


def test_gemini_thought_records_are_read_as_text():
    """A recording's thoughts are {"subject", "description"} records: the findings read them as text."""
    assert gemini_cli._thought_texts([{"subject": "Reading", "description": "Open cli.py", "timestamp": "t"},
                                      "plain", {"timestamp": "t"}, 3]) == ["Reading: Open cli.py", "plain"]
