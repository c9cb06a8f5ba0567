"""MCP tools reject a budget, limit or window of 0 or less with the reason (issue 15), instead of
running with it."""

from __future__ import annotations

from pathlib import Path

from mcp import Client
from test_mcp_server import server_params

from tests.conftest import REPO

FIXTURE = REPO / "tests" / "data" / "formats" / "claude_code_session.jsonl"


async def test_non_positive_budgets_are_tool_errors(tmp_path: Path) -> None:
    (tmp_path / "session.jsonl").write_bytes(FIXTURE.read_bytes())
    calls = [("compact", {"transcript_path": "session.jsonl", "target_tokens": 0}, "target_tokens"),
             ("compact", {"transcript_path": "session.jsonl", "target_tokens": -5}, "target_tokens"),
             ("memory_retrieve", {"query": "invoice", "token_budget": -1}, "token_budget"),
             ("error_memory_check", {"text": "run the tests", "limit": 0}, "limit"),
             ("compress_blocks", {"blocks": [{"source": "history", "priority": "HIGH", "content": "x"}],
                                  "target_tokens": -5}, "target_tokens"),
             ("compress_blocks", {"blocks": [], "compression_ratio": 0}, "compression_ratio")]
    async with Client(server_params(tmp_path), read_timeout_seconds=60) as client:
        for tool, args, name in calls:
            out = await client.call_tool(tool, args)
            assert out.is_error, (tool, args)
            assert f"{name} must be a positive number" in out.content[0].text, out.content[0].text
    assert not (tmp_path / ".compaction" / "latest.md").exists()  # nothing was compacted
