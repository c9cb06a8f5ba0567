"""The servers use the confinement rules, and hand-entered texts are redacted before storage."""

from __future__ import annotations

import pytest

from compaction.config import Settings
from compaction.confine import ConfinementError
from compaction.errors import ErrorMemory
from compaction.mcp_server import _path
from compaction.memory import open_memory
from lsp_server.features.commands import Job, resolve_transcript

KEY = "sk-proj-" + "Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9fG1hJ3"


def test_mcp_paths_stay_in_the_workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "t.jsonl").write_text("{}\n")
    (tmp_path / "secret.txt").write_text("x")
    (ws / "link").symlink_to(tmp_path / "secret.txt")
    assert _path(ws, "t.jsonl") == (ws / "t.jsonl").resolve()
    for bad in ("../secret.txt", str(tmp_path / "secret.txt"), "link"):
        with pytest.raises(ConfinementError):
            _path(ws, bad)


def test_lsp_relative_transcript_paths_may_not_leave_the_workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "t.jsonl").write_text("{}\n")
    (tmp_path / "other.jsonl").write_text("{}\n")
    job = Job(workspace=ws, settings=Settings(), home=str(tmp_path / "home"))
    assert resolve_transcript(job, "t.jsonl") == (ws / "t.jsonl").resolve()
    with pytest.raises(ConfinementError):
        resolve_transcript(job, "../other.jsonl")
    # An absolute path out of the workspace is refused (issue 15, attack 5) unless the user picked it
    # in the editor for this request.
    with pytest.raises(ConfinementError, match="outside the workspace"):
        resolve_transcript(job, str(tmp_path / "other.jsonl"))
    picked = str(tmp_path / "other.jsonl")
    assert resolve_transcript(job, picked, [picked]) == (tmp_path / "other.jsonl").resolve()


def test_hand_entered_error_memory_and_memories_are_redacted(tmp_path):
    with ErrorMemory(tmp_path) as mem:
        mem.add("ERR_TOOL_AuthFailed", solution=f"use the key {KEY}", evidence=f"401 for {KEY}")
        mem.import_block(f"## Error Memory\n- ERR_PY_KeyError: occurrences 1 (rounds 3)\n"
                         f"  Solution: set OPENAI_API_KEY={KEY}\n  Avoidance: check env\n")
        exported = mem.export()
    assert KEY not in exported and "[REDACTED:" in exported
    with open_memory(tmp_path, use_llm=False) as memory:
        memory.add(f"deploy with token {KEY} to staging")
        found = memory.retrieve("deploy staging", 500).text
    assert KEY not in found
    for f in (tmp_path / ".compaction").glob("state.db*"):  # the database and its WAL
        assert KEY.encode() not in f.read_bytes(), f.name


def test_lsp_transcript_paths_from_a_model_are_confined_like_the_mcp_servers(tmp_path):
    """`confined`: a language-model tool or the chat participant named the path, not the user."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "t.jsonl").write_text("{}\n")
    (tmp_path / "other.jsonl").write_text("{}\n")
    home = tmp_path / "home"
    session = home / ".claude" / "projects" / str(ws).replace("/", "-") / "s.jsonl"
    session.parent.mkdir(parents=True)
    session.write_text("{}\n")
    job = Job(workspace=ws, settings=Settings(), home=str(home))
    assert resolve_transcript(job, str(ws / "t.jsonl"), confined=True) == (ws / "t.jsonl").resolve()
    assert resolve_transcript(job, str(session), confined=True) == session.resolve()
    with pytest.raises(ConfinementError, match="outside the workspace"):
        resolve_transcript(job, str(tmp_path / "other.jsonl"), confined=True)
    with pytest.raises(ConfinementError):
        resolve_transcript(job, "../other.jsonl", confined=True)
    # a model cannot widen its own reach: files "picked" in its request are ignored
    with pytest.raises(ConfinementError, match="outside the workspace"):
        resolve_transcript(job, str(tmp_path / "other.jsonl"), [str(tmp_path / "other.jsonl")], confined=True)
