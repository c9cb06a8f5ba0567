"""The MCP server end to end: spawned over stdio (the installed `compaction-mcp` script) and driven
with the MCP client SDK; the workspace is the server's working directory."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from compaction import tokens as tok
from compaction.blocks import blocks_from_transcript
from compaction.transcripts import load_transcript

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / ".venv" / "bin" / "compaction-mcp"
TOOLS = {"compact", "restore", "error_memory_check", "error_memory_list", "memory_add", "memory_retrieve",
         "compress_blocks"}


def server_params(workspace: Path, *extra: str) -> StdioServerParameters:
    if SCRIPT.exists():
        return StdioServerParameters(command=str(SCRIPT), args=list(extra), cwd=str(workspace))
    return StdioServerParameters(command=sys.executable, args=["-m", "compaction.mcp_server", *extra],
                                 cwd=str(workspace))


def data(result) -> dict:
    assert not result.is_error, result.content[0].text if result.content else result
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def test_tools_listed_and_memory_roundtrip(tmp_path: Path, shared_transcripts: Path):
    t = load_transcript(shared_transcripts / "mini-requests-5414.traj.json")
    async with Client(server_params(tmp_path), read_timeout_seconds=60) as client:
        tools = await client.list_tools()
        assert {tool.name for tool in tools.tools} == TOOLS
        schema = next(tool for tool in tools.tools if tool.name == "memory_retrieve").input_schema
        assert set(schema["properties"]) >= {"query", "token_budget"}
        for rnd in t.rounds[:25]:
            text = "\n".join(m.full_text() for m in rnd.messages)
            out = data(await client.call_tool("memory_add", {"text": text, "metadata": {"round": rnd.number}}))
            assert isinstance(out["item_id"], int)
        again = data(await client.call_tool("memory_add", {"text": "\n".join(
            m.full_text() for m in t.rounds[0].messages)}))
        assert again["duplicate"] is True
        got = data(await client.call_tool("memory_retrieve", {"query": "LocationParseError models.py",
                                                              "token_budget": 800}))
        assert got["tokens"] <= 800 and got["tokens"] == tok.count(got["text"]) and got["tokens"] >= 640
        assert "LocationParseError" in got["text"]
        bad = await client.call_tool("memory_add", {"text": "   "})
        assert bad.is_error and "empty" in bad.content[0].text
    assert (tmp_path / ".compaction" / "state.db").exists()  # the workspace is the server's cwd


async def test_compress_blocks_tool(tmp_path: Path, shared_transcripts: Path):
    blocks = [b.to_dict() for b in blocks_from_transcript(load_transcript(shared_transcripts / "oh-ponyc-4593.json"))]
    async with Client(server_params(tmp_path), read_timeout_seconds=60) as client:
        res = data(await client.call_tool("compress_blocks", {"blocks": blocks, "compression_ratio": 0.2,
                                                              "strategy": "rule_based"}))
        assert res["strategy"] == "rule_based" and res["tokens_after"] <= res["target_tokens"]
        assert len(res["outcomes"]) == len(blocks)
        prep = data(await client.call_tool("compress_blocks", {"blocks": blocks, "prepare": True,
                                                               "context_window": 20000}))
        assert all(prep["used"][p] <= prep["budget"][p] for p in prep["budget"])
        assert sum(prep["shares"].values()) == 100
        bad = await client.call_tool("compress_blocks", {"blocks": [{"priority": "HIGH"}]})
        assert bad.is_error and "invalid block" in bad.content[0].text


async def test_reads_outside_the_workspace_are_refused_unless_allowed(tmp_path: Path, shared_transcripts: Path):
    transcript = shared_transcripts / "oh-ponyc-4593.json"
    async with Client(server_params(tmp_path), read_timeout_seconds=120) as client:
        refused = await client.call_tool("compact", {"transcript_path": str(transcript)})
        assert refused.is_error and "reading refused" in refused.content[0].text
        escape = await client.call_tool("compact", {"transcript_path": "../../etc/passwd"})
        assert escape.is_error and "reading refused" in escape.content[0].text


async def test_compact_restore_and_error_memory(tmp_path: Path, shared_transcripts: Path):
    transcript = shared_transcripts / "mini-django-13297.traj.json"
    params = server_params(tmp_path, "--allow-read", str(shared_transcripts))
    async with Client(params, read_timeout_seconds=120) as client:
        out = data(await client.call_tool("compact", {"transcript_path": str(transcript)}))
        assert out["compacted"] and "django/db/models/sql/query.py" in out["markdown"]
        assert out["stats"]["tokens_after"] < out["stats"]["tokens_before"]
        listed = data(await client.call_tool("error_memory_list", {}))
        ids = [r["id"] for r in listed["records"]]
        assert any(i.startswith("ERR_PY_") for i in ids) and "## Error Memory" in listed["markdown"]
        check = data(await client.call_tool("error_memory_check", {"text": "run python reproduce_issue.py",
                                                                   "files": ["reproduce_issue.py"]}))
        assert isinstance(check["warnings"], list)
        for w in check["warnings"]:
            assert w["id"] in ids and w["line"].startswith("⚠️")
        state = data(await client.call_tool("restore", {}))
        assert "markdown" in state and state["state"]
        assert (tmp_path / ".compaction" / "restore.md").exists()
        missing = await client.call_tool("compact", {"transcript_path": "no/such/file.json"})
        assert missing.is_error and "no such file" in missing.content[0].text


@pytest.mark.parametrize("flag", [True, False])
async def test_workspace_flag_or_env(tmp_path: Path, flag: bool):
    ws = tmp_path / "ws"
    ws.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    params = server_params(elsewhere, "--workspace", str(ws)) if flag else server_params(elsewhere)
    if not flag:
        params.env = {"COMPACTION_WORKSPACE": str(ws)}
    async with Client(params, read_timeout_seconds=60) as client:
        data(await client.call_tool("memory_add", {"text": "Decided to keep SQLite quoting as is."}))
    assert (ws / ".compaction" / "state.db").exists()
    assert not (elsewhere / ".compaction").exists()
