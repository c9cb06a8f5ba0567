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
