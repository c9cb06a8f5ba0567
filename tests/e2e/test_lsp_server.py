"""The language server as a subprocess: lifecycle, settings, discovery, transports."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lsp_harness import REPO, command, lsp_session, server_env, wait_for, within
from lsprotocol import types

COMMANDS = {
    "compaction.compact",
    "compaction.restore",
    "compaction.status",
    "compaction.discoverTranscripts",
    "compaction.errorMemory.list",
    "compaction.errorMemory.check",
    "compaction.errorMemory.add",
    "compaction.errorMemory.resolve",
    "compaction.errorMemory.forget",
    "compaction.errorMemory.export",
    "compaction.blocks.compress",
}


async def test_logs_reach_the_client(tmp_path: Path) -> None:
    async with lsp_session(tmp_path) as lc:
        result = await command(lc, "compaction.discoverTranscripts", {})
        logs = [m.message for m in lc.log_messages]
    assert result == {"transcripts": []}
    assert any(m.startswith("settings:") for m in logs)
    assert any(f"ready for {tmp_path}" in m for m in logs)


async def test_initialize_result(tmp_path: Path) -> None:
    from pytest_lsp import ClientServerConfig, client_capabilities

    config = ClientServerConfig([sys.executable, "-m", "lsp_server"], server_env=server_env(tmp_path))
    lc = await within(config.start(), "start")
    try:
        result = await within(lc.initialize_session(
            types.InitializeParams(capabilities=client_capabilities("visual-studio-code"), root_uri=tmp_path.as_uri())
        ), "initialize")  # fmt: skip
        assert result.server_info.name == "compaction-lsp"
        assert set(result.capabilities.execute_command_provider.commands) == COMMANDS
        assert result.capabilities.hover_provider
        await within(lc.shutdown_session(), "shutdown")
        assert lc._server.returncode == 0  # clean shutdown + exit
    finally:
        await lc.stop()


async def test_invalid_setting_is_reported_and_default_used(tmp_path: Path) -> None:
    async with lsp_session(
        tmp_path,
        init_options={"compaction": {"triggerRatio": 7, "keepRecent": 3}},
        configuration={"role": "astronaut", "python": {"path": "/usr/bin/python3"}},
    ) as lc:
        await wait_for(lambda: len(lc.messages) >= 2, what="two showMessage notifications")
        texts = [m.message for m in lc.messages]
        assert any("triggerRatio" in t and "default" in t for t in texts), texts
        assert any("role" in t and "astronaut" in t for t in texts), texts
        assert not any("python" in t for t in texts)  # client-only keys are not errors
        # the server still works, with the default ratio and the valid keepRecent
        (tmp_path / "t.md").write_text("## User\nhello\n\n## Assistant\nhi\n")
        status = await command(lc, "compaction.status", {"transcript": str(tmp_path / "t.md")})
        assert status["triggerRatio"] == 0.7
        assert status["wouldTrigger"] is False


async def test_configuration_change_is_pulled(tmp_path: Path) -> None:
    (tmp_path / "t.md").write_text("## User\nhello\n\n## Assistant\nhi\n")
    async with lsp_session(tmp_path, configuration={"triggerRatio": 0.5}) as lc:
        status = await command(lc, "compaction.status", {"transcript": "t.md"})
        assert status["triggerRatio"] == 0.5
        lc.set_configuration({"triggerRatio": 0.9, "contextWindow": 1000}, section="compaction")
        lc.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
        deadline = time.monotonic() + 20  # the server pulls the new configuration asynchronously
        while status["triggerRatio"] != 0.9 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            status = await command(lc, "compaction.status", {"transcript": "t.md"})
        assert status["triggerRatio"] == 0.9
        assert status["contextWindow"] == 1000
        assert status["utilization"] == round(status["tokens"] / 1000, 4)


async def test_config_file_edited_while_running_is_reloaded(tmp_path: Path) -> None:
    """`.compaction/config.json` changed on disk applies without a restart; a broken one is reported
    (file and line) and the defaults apply; the editor's own values still win over the file."""
    (tmp_path / "t.md").write_text("## User\nhello\n\n## Assistant\nhi\n")
    config = tmp_path / ".compaction" / "config.json"

    async def status_until(key: str, want: object) -> dict:
        status = await command(lc, "compaction.status", {"transcript": "t.md"})
        deadline = time.monotonic() + 20
        while status[key] != want and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            status = await command(lc, "compaction.status", {"transcript": "t.md"})
        return status

    async with lsp_session(tmp_path, configuration={"contextWindow": 2000}) as lc:
        assert (await command(lc, "compaction.status", {"transcript": "t.md"}))["triggerRatio"] == 0.7
        config.parent.mkdir(exist_ok=True)
        config.write_text(json.dumps({"triggerRatio": 0.55, "contextWindow": 9999}))
        status = await status_until("triggerRatio", 0.55)
        assert status["triggerRatio"] == 0.55
        assert status["contextWindow"] == 2000  # the editor's setting wins over the file's
        config.write_text('{"triggerRatio": 0.6,\n  oops}\n')
        await wait_for(lambda: any("config.json:2" in m.message for m in lc.messages), 20,
                       what="a showMessage naming the broken file and line")
        status = await status_until("triggerRatio", 0.7)
        assert status["triggerRatio"] == 0.7  # the broken file is ignored: defaults again
        assert any("changed: settings reloaded" in m.message for m in lc.log_messages)


async def test_core_globs_change_rebuilds_the_index(tmp_path: Path) -> None:
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "boot.py").write_text("print('hi')\n")

    def scans() -> list[str]:
        return [m.message for m in lc.log_messages if m.message.startswith("workspace index:")]

    async with lsp_session(tmp_path) as lc:
        await wait_for(lambda: len(scans()) == 1, 20, what="the first index scan")
        before = await command(lc, "compaction.restore", {})
        lc.set_configuration({"restore": {"coreGlobs": {"entry": ["gen/boot.py"]}}}, section="compaction")
        lc.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
        await wait_for(lambda: len(scans()) == 2, 20, what="a rescan after restore.coreGlobs changed")
        after = await command(lc, "compaction.restore", {})
    def classes(result: dict) -> dict[str, str]:
        return {c["path"]: c["cls"] for c in result["state"]["core_files"]}

    assert classes(before).get("gen/boot.py") != "entry"
    assert classes(after).get("gen/boot.py") == "entry", classes(after)  # the new index uses the new globs


async def test_discover_transcripts_command(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "my.proj"
    ws.mkdir()
    project = home / ".claude" / "projects" / str(ws).replace("/", "-").replace(".", "-")
    project.mkdir(parents=True)
    (project / "s1.jsonl").write_text('{"type":"user"}\n')
    (ws / ".aider.chat.history.md").write_text("# aider chat started\n")
    async with lsp_session(ws, home=home) as lc:
        result = await command(lc, "compaction.discoverTranscripts", {})
    agents = sorted(t["agent"] for t in result["transcripts"])
    assert agents == ["aider", "claude-code"]
    assert all({"path", "agent", "mtime", "size"} <= set(t) for t in result["transcripts"])


async def test_bad_arguments_are_an_error(tmp_path: Path) -> None:
    async with lsp_session(tmp_path) as lc:
        with pytest.raises(Exception, match="targetTokens"):
            await command(lc, "compaction.compact", {"transcript": "x", "targetTokens": -5})
        with pytest.raises(Exception, match="no transcript given"):
            await command(lc, "compaction.compact", {})


def _listening_addresses(port: int) -> set[str]:
    """Local addresses (kernel hex, e.g. 0100007F = 127.0.0.1) of the sockets listening on `port`,
    from /proc/net/tcp and /proc/net/tcp6 (state 0A = LISTEN)."""
    found = set()
    for table in (Path("/proc/net/tcp"), Path("/proc/net/tcp6")):
        if not table.exists():
            continue
        for row in table.read_text().splitlines()[1:]:
            fields = row.split()
            address, _, hex_port = fields[1].rpartition(":")
            if fields[3] == "0A" and int(hex_port, 16) == port:
                found.add(address)
    return found


def test_tcp_binds_loopback_only(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "lsp_server", "--tcp", "--port", str(port)],
        env=server_env(tmp_path), cwd=REPO, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 15
        conn = None
        while time.monotonic() < deadline:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        assert conn is not None, "server did not listen on 127.0.0.1"
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}})  # fmt: skip
        conn.sendall(f"Content-Length: {len(body)}\r\n\r\n{body}".encode())
        conn.settimeout(10)
        data = b""
        while b"serverInfo" not in data:
            chunk = conn.recv(65536)
            assert chunk, "connection closed"
            data += chunk
        assert b"compaction-lsp" in data
        # read while connected: the server stops listening when its one client disconnects
        if not Path("/proc/net/tcp").exists():
            pytest.skip("no /proc/net/tcp: cannot read the listening socket's local address here")
        assert _listening_addresses(port) == {"0100007F"}  # 127.0.0.1 only: no 0.0.0.0, no IPv6 socket
        conn.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
