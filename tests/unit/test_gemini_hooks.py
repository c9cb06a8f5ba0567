"""Gemini CLI 0.61 sessions and hooks: the loader reads tool answers recorded as functionResponse parts;
the hooks decide from the session file whether a compression is due and whether one happened."""

from __future__ import annotations

import json
from pathlib import Path

from compaction.cli.integrations import claude_hooks as ch
from compaction.cli.integrations import gemini_hooks as gh
from compaction.transcripts import load_transcript

SESSION = "0e4d3bfb-1f29-4431-9e17-4529412caf0d"


def _session_file(path: Path, *, input_tokens: int = 12447, snapshot: bool = False) -> Path:
    """A session file in the shape Gemini CLI 0.61 writes (seen with the real CLI)."""
    crash = ("Traceback (most recent call last):\n  File \"/p/app.py\", line 13, in main\n    port = config[\"port\"]\n"
             "KeyError: 'port'\nExit Code: 1")
    call = {"id": "run_shell_command_1", "name": "run_shell_command", "args": {"command": "python3 app.py"}}
    edit = {"id": "replace_1", "name": "replace", "args": {"file_path": "/p/app.py", "old_string": "a", "new_string": "b"}}
    records = [
        {"sessionId": SESSION, "projectHash": "c5", "startTime": "2026-12-01T19:12:29.976Z", "kind": "main"},
        {"id": "u1", "timestamp": "2026-12-01T19:12:31Z", "type": "user",
         "content": [{"text": "Please fix the crash when I run app.py"}]},
        {"id": "g1", "timestamp": "2026-12-01T19:12:32Z", "type": "gemini", "content": "Running it.",
         "tokens": {"input": 12000, "output": 20}, "model": "gemini-2.5-flash", "toolCalls": [call]},
        {"id": "r1", "timestamp": "2026-12-01T19:12:34Z", "type": "user",
         "content": [{"functionResponse": {"id": "run_shell_command_1", "name": "run_shell_command",
                                           "response": {"output": crash}}}]},
        {"$set": {"lastUpdated": "2026-12-01T19:12:34Z"}},
        {"id": "g2", "timestamp": "2026-12-01T19:12:35Z", "type": "gemini",
         "content": [{"text": "Defaulting the port."}, {"functionCall": edit}],
         "tokens": {"input": input_tokens, "output": 20}, "model": "gemini-2.5-flash"},
    ]
    if snapshot:
        records.append({"$set": {"messages": [
            {"id": "s0", "type": "user", "content": [{"text": "<session_context>…</session_context>"}]},
            {"id": "snap-1", "type": "user", "content": [{"text": "<state_snapshot>\n<overall_goal>Fix app.py"
                                                          "</overall_goal>\n</state_snapshot>"}]}]}})
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_loader_reads_function_responses_and_function_call_parts(tmp_path):
    t = load_transcript(str(_session_file(tmp_path / "session.jsonl")))
    results = [r for m in t.messages for r in m.tool_results]
    assert [r.name for r in results] == ["run_shell_command"] and "KeyError: 'port'" in results[0].content
    calls = [c.name for m in t.messages for c in m.tool_calls]
    assert calls == ["run_shell_command", "replace"]


def test_compression_is_due_from_the_last_replys_prompt_tokens(tmp_path):
    ws = tmp_path
    low = _session_file(tmp_path / "low.jsonl", input_tokens=500_000)
    high = _session_file(tmp_path / "high.jsonl", input_tokens=600_000)
    assert gh.last_prompt_tokens(str(high)) == 600_000
    assert not gh.compression_due({"trigger": "auto", "transcript_path": str(low)}, ws)
    assert gh.compression_due({"trigger": "auto", "transcript_path": str(high)}, ws)
    assert gh.compression_due({"trigger": "manual", "transcript_path": str(low)}, ws)
    (ws / ".gemini").mkdir()
    (ws / ".gemini" / "settings.json").write_text(json.dumps({"model": {"compressionThreshold": 0.4}}))
    assert gh.compression_due({"trigger": "auto", "transcript_path": str(low)}, ws)  # 500,000 ≥ 0.4 × 1,048,576


def test_before_agent_injects_once_per_snapshot_and_only_after_one(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    plain = _session_file(tmp_path / "plain.jsonl")
    payload = {"session_id": SESSION, "cwd": str(ws), "hook_event_name": "BeforeAgent", "prompt": "What errors?"}
    out, _ = gh.on_before_agent(json.dumps({**payload, "transcript_path": str(plain)}).encode(), ws, 10_000)
    assert out is None and not (ws / ".compaction" / "hook-state.json").exists()  # never compressed: nothing

    # what the detached PreCompress worker does, on the history before Gemini CLI rewrites it
    ch.pre_compact(ch.HookPayload(session_id=SESSION, transcript_path=str(plain), cwd=str(ws), trigger="auto"), ws)
    compressed = _session_file(tmp_path / "compressed.jsonl", snapshot=True)
    raw = json.dumps({**payload, "transcript_path": str(compressed)}).encode()
    out, message = gh.on_before_agent(raw, ws, 10_000)
    context = json.loads(out)["hookSpecificOutput"]
    assert context["hookEventName"] == "BeforeAgent" and "snapshot snap-1" in message
    block = context["additionalContext"]
    assert block.startswith("# Restored after compaction") and "ERR_PY_KeyError" in block
    assert not any(line.startswith(">") for line in block.splitlines())  # Gemini CLI would show "&gt;"
    assert gh.on_before_agent(raw, ws, 10_000)[0] is None  # the same snapshot: not again


def test_before_agent_compacts_itself_when_no_pre_compress_ran(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    compressed = _session_file(tmp_path / "compressed.jsonl", snapshot=True)
    raw = json.dumps({"session_id": SESSION, "cwd": str(ws), "transcript_path": str(compressed),
                      "hook_event_name": "BeforeAgent", "prompt": "go on"}).encode()
    out, _ = gh.on_before_agent(raw, ws, 10_000)
    assert "Restored after compaction" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert ch.read_state(ws).session_id == SESSION


def test_pre_compress_hands_the_worker_a_copy_made_before_gemini_rewrites_the_file(tmp_path):
    """Seen with Gemini CLI 0.61: the compression rewrote the session file before the background process
    read it, and the KeyError of the compressed-away turn never reached the error memory."""
    ws = tmp_path / "ws"
    ws.mkdir()
    session = _session_file(tmp_path / "session-x.jsonl", input_tokens=600_000)
    before = session.read_text()
    copy = gh.snapshot_transcript(str(session), ws)
    _session_file(session, snapshot=True)  # what Gemini CLI does next
    session.write_text('{"$set": {"messages": []}}\n')
    assert copy == ws / ".compaction" / "gemini-precompress-session-x.jsonl" and copy.read_text() == before
    t = load_transcript(str(copy))
    assert any("KeyError: 'port'" in r.content for m in t.messages for r in m.tool_results)


def test_pre_compress_when_due_detaches_with_the_copy(tmp_path, monkeypatch):
    import compaction.cli.integrations.detached as hooks

    ws = tmp_path / "ws"
    ws.mkdir()
    handed: list[dict] = []
    monkeypatch.setattr(hooks, "_detach", lambda raw: handed.append(json.loads(raw)))
    quiet = _session_file(tmp_path / "quiet.jsonl", input_tokens=12_000)
    payload = {"session_id": SESSION, "cwd": str(ws), "hook_event_name": "PreCompress", "trigger": "auto"}
    assert gh.on_pre_compress(json.dumps({**payload, "transcript_path": str(quiet)}).encode(), ws).startswith("skip")
    due = _session_file(tmp_path / "due.jsonl", input_tokens=600_000)
    gh.on_pre_compress(json.dumps({**payload, "transcript_path": str(due)}).encode(), ws)
    assert [h["transcript_path"] for h in handed] == [str(ws / ".compaction" / "gemini-precompress-due.jsonl")]
