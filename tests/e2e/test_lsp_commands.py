"""Every workspace/executeCommand of the server, through a real subprocess."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest
from lsp_fixtures import make_transcript, make_workspace
from lsp_harness import CLI, REPO, command, lsp_session, open_doc, server_env, wait_for, within
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled

from compaction.discovery import claude_project_names


def _without_timings(result: dict) -> dict:
    out = json.loads(json.dumps(result))
    out.pop("paths", None)
    out["stats"].pop("elapsed_ms", None)
    return out


async def test_compact_matches_cli_json_and_writes_both_documents(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    transcript = make_transcript(tmp_path / "session.jsonl")
    cli = subprocess.run(
        [*CLI, "compact", str(transcript), "--json", "--workspace", str(ws), "--target-tokens", "400"],
        capture_output=True, text=True, cwd=REPO, env=server_env(tmp_path / "home"), check=True,
    )  # fmt: skip
    expected = json.loads(cli.stdout)
    async with lsp_session(ws, home=tmp_path / "home") as lc:
        # 400 of the session's 750 tokens: a session that fits its target comes back whole (not compacted)
        result = await command(lc, "compaction.compact", {"transcript": str(transcript), "allowRead": [str(transcript)],
                                                          "targetTokens": 400})
        listed = await command(lc, "compaction.errorMemory.list", {})
    assert _without_timings(result) == _without_timings(expected)
    assert result["compacted"] is True and result["rounds"] > 10
    latest, restored = Path(result["paths"]["latest"]), Path(result["paths"]["restore"])
    assert latest == ws / ".compaction" / "latest.md"
    assert latest.read_text().rstrip("\n") == result["markdown"].rstrip("\n")
    assert restored == ws / ".compaction" / "restore.md"
    assert str(ws) in restored.read_text()  # the restore document names the workspace as cwd
    assert "ERR_PY_KeyError" in restored.read_text()
    # the errors were ingested into the store
    assert "ERR_PY_KeyError" in [r["id"] for r in listed["records"]]


async def test_compact_defaults_to_newest_discovered_transcript(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    home = tmp_path / "home"
    folder = home / ".claude" / "projects" / claude_project_names(ws)[0]
    make_transcript(folder / "old.jsonl", rounds=12)
    newest = make_transcript(folder / "new.jsonl", rounds=13)
    async with lsp_session(ws, home=home) as lc:
        discovered = await command(lc, "compaction.discoverTranscripts", {})
        result = await command(lc, "compaction.compact", {"role": "tester", "targetTokens": 800})
    assert discovered["transcripts"][0]["path"] == str(newest)
    assert result["transcript"] == str(newest)
    assert result["stats"]["target_tokens"] == 800


async def test_compact_reports_progress(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    transcript = make_transcript(tmp_path / "s.jsonl")
    async with lsp_session(ws) as lc:
        await command(lc, "compaction.compact", {"transcript": str(transcript), "allowRead": [str(transcript)]})
        await wait_for(lambda: any(r and r[-1].kind == "end" for r in lc.progress_reports.values()), what="end")
    (reports,) = [r for r in lc.progress_reports.values() if r]
    kinds = [r.kind for r in reports]
    assert kinds[0] == "begin" and kinds[-1] == "end" and kinds.count("report") >= 3
    assert reports[0].title == "Compacting conversation" and reports[0].cancellable
    percentages = [r.percentage for r in reports if r.kind == "report"]
    assert percentages == sorted(percentages)
    assert reports[-1].message == "done"


async def test_progress_goes_to_the_clients_work_done_token(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    transcript = make_transcript(tmp_path / "s.jsonl")
    async with lsp_session(ws) as lc:
        lc.progress_reports.setdefault("client-token", [])
        await within(lc.workspace_execute_command_async(types.ExecuteCommandParams(
            command="compaction.compact", arguments=[{"transcript": str(transcript), "allowRead": [str(transcript)]}], work_done_token="client-token")))
        await wait_for(lambda: lc.progress_reports["client-token"][-1:] and
                       lc.progress_reports["client-token"][-1].kind == "end", what="end")  # fmt: skip
    assert [t for t, r in lc.progress_reports.items() if r] == ["client-token"]  # no server-created token
    kinds = [r.kind for r in lc.progress_reports["client-token"]]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds


async def test_cancel_request_stops_between_phases(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    transcript = make_transcript(tmp_path / "s.jsonl")
    async with lsp_session(ws, env={"COMPACTION_LSP_PHASE_DELAY_MS": "400"}) as lc:
        fut = asyncio.ensure_future(lc.protocol.send_request_async(
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command="compaction.compact", arguments=[{"transcript": str(transcript), "allowRead": [str(transcript)]}]),
            msg_id="cancel-me",
        ))  # fmt: skip
        await wait_for(lambda: any(lc.progress_reports.values()), what="progress begin")
        lc.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="cancel-me"))
        with pytest.raises(JsonRpcRequestCancelled) as cancelled:  # the LSP RequestCancelled error
            await within(fut)
        assert cancelled.value.code == -32800
        await wait_for(lambda: any(r and r[-1].kind == "end" for r in lc.progress_reports.values()), what="end")
        (reports,) = [r for r in lc.progress_reports.values() if r]
        assert reports[-1].message == "cancelled"
        # the work stopped: nothing written, and the server still answers
        assert not (ws / ".compaction" / "latest.md").exists()
        status = await command(lc, "compaction.status", {"transcript": str(transcript), "allowRead": [str(transcript)]})
        assert status["rounds"] > 10


async def test_progress_cancel_from_the_client(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    transcript = make_transcript(tmp_path / "s.jsonl")
    async with lsp_session(ws, env={"COMPACTION_LSP_PHASE_DELAY_MS": "400"}) as lc:
        task = asyncio.ensure_future(command(lc, "compaction.compact", {"transcript": str(transcript), "allowRead": [str(transcript)]}))
        token = await wait_for(lambda: next((t for t, r in lc.progress_reports.items() if r), None), what="token")
        lc.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
        with pytest.raises(JsonRpcRequestCancelled, match="(?i)cancel") as cancelled:
            await within(task)
        assert cancelled.value.code == -32800
    assert not (ws / ".compaction" / "latest.md").exists()


async def test_status(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    transcript = make_transcript(tmp_path / "s.jsonl")
    async with lsp_session(ws, configuration={"contextWindow": 2000, "triggerRatio": 0.5}) as lc:
        status = await command(lc, "compaction.status", {"transcript": str(transcript), "allowRead": [str(transcript)]})
    assert status["transcript"] == str(transcript)
    assert status["contextWindow"] == 2000 and status["triggerRatio"] == 0.5
    assert status["tokens"] > 0
    assert status["utilization"] == round(status["tokens"] / 2000, 4)
    assert status["wouldTrigger"] is (status["utilization"] >= 0.5)


async def test_restore_tracks_open_documents(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    async with lsp_session(ws) as lc:
        open_doc(lc, ws / "app" / "config.py")
        result = await command(lc, "compaction.restore", {})
        assert set(result) >= {"markdown", "state", "path"}
        assert any(f.endswith("app/config.py") for f in result["state"]["open_files"])
        lc.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=(ws / "app/config.py").as_uri()))
        )
        after = await command(lc, "compaction.restore", {})
        explicit = await command(lc, "compaction.restore", {"openFiles": [str(ws / "app" / "__main__.py")]})
    assert not any(f.endswith("app/config.py") for f in after["state"]["open_files"])
    assert any(f.endswith("app/__main__.py") for f in explicit["state"]["open_files"])
    assert Path(result["path"]) == ws / ".compaction" / "restore.md"
    assert result["state"]["cwd"] == str(ws.resolve()) or result["state"]["cwd"] == str(ws)


async def test_error_memory_commands(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    async with lsp_session(ws) as lc:
        added = await command(lc, "compaction.errorMemory.add", {
            "id": "ERR_TOOL_FileNotFound", "solution": "the file is src/app/main.py",
            "avoidance": "list the directory before opening guessed paths", "path": "app/main.py"})  # fmt: skip
        assert added["record"]["id"] == "ERR_TOOL_FileNotFound"
        listed = await command(lc, "compaction.errorMemory.list", {})
        assert [r["id"] for r in listed["records"]] == ["ERR_TOOL_FileNotFound"]
        checked = await command(lc, "compaction.errorMemory.check", {"text": "open app/main.py and read it"})
        assert [m["id"] for m in checked["matches"]] == ["ERR_TOOL_FileNotFound"]
        exported = await command(lc, "compaction.errorMemory.export", {})
        assert "ERR_TOOL_FileNotFound" in exported["markdown"] and "Avoidance" in exported["markdown"]
        resolved = await command(lc, "compaction.errorMemory.resolve", {"id": "ERR_TOOL_FileNotFound"})
        assert resolved["record"]["resolved"] is True
        forgotten = await command(lc, "compaction.errorMemory.forget", {"id": "ERR_TOOL_FileNotFound"})
        assert forgotten == {"id": "ERR_TOOL_FileNotFound", "forgotten": True}
        assert (await command(lc, "compaction.errorMemory.list", {}))["records"] == []
        with pytest.raises(Exception, match="id"):
            await command(lc, "compaction.errorMemory.add", {"solution": "no id"})


async def test_blocks_compress(tmp_path: Path) -> None:
    blocks = [
        {"source": "system", "priority": "CRITICAL", "content": "You are a coding assistant."},
        {"source": "history", "priority": "LOW", "content": "We talked about the weather. " * 40},
        {"source": "error_memory", "priority": "HIGH", "content": "ERR_PY_KeyError: read env vars with .get"},
    ]
    async with lsp_session(tmp_path) as lc:
        result = await command(lc, "compaction.blocks.compress",
                               {"blocks": blocks, "targetTokens": 40, "strategy": "PRIORITY_BASED"})  # fmt: skip
        with pytest.raises(Exception, match="compressionRatio or targetTokens"):
            await command(lc, "compaction.blocks.compress", {"blocks": blocks})
    assert result["tokens_after"] <= 40 < result["tokens_before"]
    kept = [b["content"] for b in result["blocks"]]
    assert "You are a coding assistant." in kept
    assert any("ERR_PY_KeyError" in k for k in kept)
    assert not any("weather" in k for k in kept)


async def test_error_check_reads_paths_in_the_workspace_only(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "proj")
    (tmp_path / "secret.txt").write_text("token\n")
    async with lsp_session(ws) as lc:
        await command(lc, "compaction.errorMemory.add", {
            "id": "ERR_PY_KeyError", "avoidance": "use os.environ.get", "path": "app/config.py"})  # fmt: skip
        # relative to the workspace root, not to the server's cwd (the repository here)
        checked = await command(lc, "compaction.errorMemory.check", {"path": "app/config.py"})
        assert [m["id"] for m in checked["matches"]] == ["ERR_PY_KeyError"]
        for escaping in ("../secret.txt", str(tmp_path / "secret.txt")):
            with pytest.raises(JsonRpcException, match="reading refused") as refused:
                await command(lc, "compaction.errorMemory.check", {"path": escaping})
            assert refused.value.code == -32602  # invalid params: the request's fault, not a crash
