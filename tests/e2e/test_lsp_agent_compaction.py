"""Automatic restore when the agent compacts by itself: the server follows the workspace's newest
Claude Code session; a compaction record appended to it refreshes .compaction/restore.md and the
error memory and sends `compaction/agentCompacted`, once per compaction, without doubling counts."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_compaction_probe import measure

from compaction.errors import ErrorMemory
from compaction.transcripts import load_transcript


def _counts(ws: Path) -> dict[str, int]:
    with ErrorMemory(ws) as memory:
        return {r.id: r.count for r in memory.list()}


@pytest.mark.asyncio
async def test_agent_compaction_record_refreshes_restore_and_notifies_once(tmp_path: Path) -> None:
    delays, notes, ws, session = await measure(tmp_path, trials=2)
    assert len(notes) == 2  # one per compaction, though each wrote two marker records
    note = notes[0]
    assert note["agent"] == "claude-code" and note["transcript"] == str(session)
    restore = Path(note["restore"])
    assert restore == ws / ".compaction" / "restore.md" and "KeyError" in restore.read_text()
    counts = _counts(ws)
    assert counts["ERR_PY_KeyError"] == 2  # rounds 2 and 9 of the session
    # The Claude Code hooks ingest the same transcript too: nothing counts twice.
    with ErrorMemory(ws) as memory:
        memory.ingest(load_transcript(session))
    assert _counts(ws) == counts
    print(f"delays (ms): {[round(d) for d in delays]}")


async def test_editor_storage_from_initialization_options_offers_copilot_sessions(tmp_path: Path) -> None:
    """The extension names this workspace's chatSessions/ (initializationOptions.editorStorage):
    discovery offers its Copilot sessions and a model-named path there may be compacted."""
    import shutil

    from lsp_fixtures import make_workspace
    from lsp_harness import command, lsp_session

    ws = make_workspace(tmp_path / "ws")
    chat = tmp_path / "workspaceStorage" / "abc123" / "chatSessions"
    chat.mkdir(parents=True)
    formats = Path(__file__).resolve().parents[1] / "data" / "formats"
    for name in ("copilot_chat_session.json", "copilot_chat_session.jsonl"):
        shutil.copy(formats / name, chat / name)
    storage = {"chatSessions": str(chat), "globalStorage": str(tmp_path / "globalStorage")}
    async with lsp_session(ws, home=tmp_path / "home", init_options={"editorStorage": storage}) as lc:
        found = await command(lc, "compaction.discoverTranscripts", {})
        assert {(Path(t["path"]).name, t["agent"]) for t in found["transcripts"]} == {
            ("copilot_chat_session.json", "copilot-chat"), ("copilot_chat_session.jsonl", "copilot-chat")}
        reply = await command(lc, "compaction.compact", {"transcript": str(chat / "copilot_chat_session.jsonl"),
                                                         "confined": True})
        assert reply["format"] == "copilot-chat" and "src/total.ts" in reply["markdown"]
