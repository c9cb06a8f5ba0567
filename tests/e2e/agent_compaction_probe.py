"""Append an agent's compaction records to a Claude Code session the server follows, and time the
`compaction/agentCompacted` notification (used by the e2e test and bench/agent_compaction_bench.py)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from lsp_fixtures import make_transcript, make_workspace
from lsp_harness import lsp_session, wait_for

from compaction.discovery import claude_project_names

AGENT_COMPACTED = "compaction/agentCompacted"


def claude_session(ws: Path, home: Path) -> Path:
    folder = home / ".claude" / "projects" / claude_project_names(ws)[0]
    folder.mkdir(parents=True, exist_ok=True)
    return make_transcript(folder / "session.jsonl")


def compaction_records(n: int) -> str:
    """What Claude Code appends when it compacts: the boundary, then the summary as a user record."""
    boundary = {"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
                "uuid": f"cb{n}", "sessionId": "s-1", "timestamp": "2025-10-01T11:00:00Z",
                "compactMetadata": {"trigger": "manual", "preTokens": 48210}}
    summary = {"type": "user", "isCompactSummary": True, "uuid": f"cs{n}", "parentUuid": f"cb{n}", "sessionId": "s-1",
               "timestamp": "2025-10-01T11:00:01Z",
               "message": {"role": "user", "content": "This session is being continued from a previous conversation. "
                                                      "Summary: fixing the KeyError in app/config.py."}}
    return json.dumps(boundary) + "\n" + json.dumps(summary) + "\n"


async def measure(tmp: Path, trials: int = 1) -> tuple[list[float], list[dict[str, Any]], Path, Path]:
    """Delays (ms) from the append to the notification, the notifications, the workspace, the session."""
    ws = make_workspace(tmp / "ws")
    home = tmp / "home"
    session = claude_session(ws, home)
    got: list[tuple[float, dict[str, Any]]] = []
    delays: list[float] = []
    async with lsp_session(ws, home=home) as lc:
        @lc.feature(AGENT_COMPACTED)
        def _on(params: Any) -> None:
            now = time.perf_counter()
            # pygls hands params of a custom notification over as a namedtuple
            got.append((now, params if isinstance(params, dict) else params._asdict()))

        await asyncio.sleep(0.8)  # the watcher's first discovery sets the baseline
        for n in range(trials):
            before = len(got)
            t0 = time.perf_counter()
            with session.open("a", encoding="utf-8") as fh:
                fh.write(compaction_records(n))
            await wait_for(lambda b=before: len(got) > b, timeout=15, what="agentCompacted notification")
            delays.append((got[before][0] - t0) * 1000)
            await asyncio.sleep(0.3)
    return delays, [p for _, p in got], ws, session
