"""An explicit budget is kept through every interface (issue 13 item 5): the MCP tool and the LSP
command return at most N tokens for a short session too (≤ 10 rounds once came back unchanged)."""

from __future__ import annotations

from pathlib import Path

from lsp_fixtures import make_transcript, make_workspace
from lsp_harness import command, lsp_session
from mcp import Client
from test_mcp_server import data, server_params

from compaction import tokens


async def test_lsp_compact_keeps_a_small_budget_on_a_short_session(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    transcript = make_transcript(tmp_path / "short.jsonl", rounds=4, fail_rounds=(2,))
    async with lsp_session(ws) as lc:
        result = await command(lc, "compaction.compact", {"transcript": str(transcript), "targetTokens": 250,
                                                          "allowRead": [str(transcript)]})  # picked by the user
    assert result["compacted"] is True and result["rounds"] <= 10
    assert tokens.count(result["markdown"]) <= 250


async def test_mcp_compact_keeps_a_small_budget_on_a_short_session(tmp_path: Path) -> None:
    transcript = make_transcript(tmp_path / "short.jsonl", rounds=4, fail_rounds=(2,))
    params = server_params(tmp_path, "--allow-read", str(tmp_path))
    async with Client(params, read_timeout_seconds=120) as client:
        out = data(await client.call_tool("compact", {"transcript_path": str(transcript), "target_tokens": 250}))
    assert out["compacted"] and tokens.count(out["markdown"]) <= 250
