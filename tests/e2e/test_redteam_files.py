"""Red-team checks of issue 15 as end-to-end tests: a cloned repository ships links in `.compaction/`
(or the folder itself as a link), and the real CLI, hooks, MCP server and language server must write
nothing through them, leave the link target unchanged, and tell the user why. Also attack 7 (`-o`
onto links, FIFOs and devices; one transcript under many names) and attack 5 (the language server
reads no transcript out of the workspace unless the user picked it)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import Client

from compaction.cli.integrations.detached import process_start
from tests.e2e.lsp_fixtures import make_transcript, make_workspace
from tests.e2e.lsp_harness import command, lsp_session
from tests.e2e.test_hooks_subprocess import compaction_exe, pre, run_hook, start
from tests.e2e.test_mcp_server import server_params

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "data" / "formats" / "claude_code_session.jsonl"
RC = "# the user's shell rc file\nexport PATH=$HOME/bin:$PATH\n"


def cli(*args: str, cwd: Path, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([compaction_exe(), *args], cwd=cwd, capture_output=True, text=True, timeout=120, **kw)


@pytest.fixture
def lab(tmp_path: Path):
    """A workspace with a transcript in it, and a victim file and folder outside it."""
    ws = make_workspace(tmp_path / "ws")
    shutil.copy(FIXTURE, ws / "session.jsonl")
    victim = tmp_path / "home" / ".bashrc"
    victim.parent.mkdir()
    victim.write_text(RC)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return ws, victim, elsewhere


def ship(ws: Path, name: str, target: Path) -> Path:
    """What a repository can ship: `.compaction/NAME -> target`."""
    (ws / ".compaction").mkdir(exist_ok=True)
    link = ws / ".compaction" / name
    link.symlink_to(target)
    return link


def outside_untouched(victim: Path, elsewhere: Path) -> None:
    assert victim.read_text() == RC
    assert list(elsewhere.iterdir()) == []
    assert not (victim.parent / "PWNED").exists()


# --- CLI ---------------------------------------------------------------------------------------------------
def test_cli_refuses_a_linked_state_folder(lab) -> None:
    ws, victim, elsewhere = lab
    (ws / ".compaction").symlink_to(elsewhere)
    r = cli("compact", "session.jsonl", "--workspace", ".", "--restore", cwd=ws)
    assert r.returncode == 1
    assert ".compaction" in r.stderr and "symbolic link" in r.stderr and str(elsewhere) in r.stderr
    outside_untouched(victim, elsewhere)


@pytest.mark.parametrize("name", ["latest.md", "restore.md", "state.db", "state.db-wal", "state.db-shm"])
def test_cli_refuses_a_linked_state_file(lab, name: str) -> None:
    ws, victim, elsewhere = lab
    link = ship(ws, name, victim)
    args = ("restore", "--workspace", ".") if name == "restore.md" else \
        ("compact", "session.jsonl", "--workspace", ".", "--restore")
    r = cli(*args, cwd=ws)
    assert r.returncode == 1, r.stderr
    assert name in r.stderr and "symbolic link" in r.stderr and "remove the link" in r.stderr
    assert link.is_symlink()  # not replaced either: the repository's file stays as shipped
    outside_untouched(victim, elsewhere)


def test_output_onto_a_link_fifo_and_device(lab, tmp_path: Path) -> None:
    ws, _, _ = lab
    target = tmp_path / "summary.md"
    target.write_text("old\n")
    os.chmod(target, 0o644)
    (ws / "out.md").symlink_to(target)
    r = cli("compact", "session.jsonl", "-o", "out.md", cwd=ws)
    assert r.returncode == 0, r.stderr
    assert (ws / "out.md").is_symlink() and target.read_text().startswith("# ")
    assert stat.S_IMODE(target.stat().st_mode) == 0o644  # its mode kept, not reset to 600
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    r = cli("compact", "session.jsonl", "-o", str(fifo), cwd=ws)
    assert r.returncode == 1 and str(fifo) in r.stderr and "no process is reading" in r.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    r = cli("compact", "session.jsonl", "-o", "/dev/null", cwd=ws)
    assert r.returncode == 0 and stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_one_transcript_under_three_names_counts_once(lab) -> None:
    ws, _, _ = lab
    (ws / "sub").mkdir()
    for name in ("session.jsonl", "../session.jsonl", str(ws / "session.jsonl")):
        cwd = ws / "sub" if name.startswith("..") else ws
        r = cli("errors", "ingest", name, "--workspace", str(ws), cwd=cwd)
        assert r.returncode == 0, r.stderr
    listed = cli("errors", "list", "--workspace", str(ws), "--json", cwd=ws)
    once = cli("errors", "list", "--workspace", str(ws), "--json", cwd=ws)
    assert listed.stdout == once.stdout
    records = json.loads(listed.stdout)
    records = records.get("records", records) if isinstance(records, dict) else records
    assert records and all(r.get("count", 1) == 1 for r in records), records


# --- hooks ----------------------------------------------------------------------------------------------------
def test_attack_1_linked_hooks_log_and_a_config_key_with_a_shell_command(lab) -> None:
    ws, victim, elsewhere = lab
    (ws / ".compaction").mkdir()
    (ws / ".compaction" / "config.json").write_text(json.dumps({"x\ntouch PWNED\n#": 1}))
    ship(ws, "hooks.log", victim)
    r = run_hook("pre-compact", pre(ws / "session.jsonl", ws), ws)
    assert r.returncode == 0
    assert b"hooks.log" in r.stderr and b"symbolic link" in r.stderr and b"nothing logged" in r.stderr
    outside_untouched(victim, elsewhere)
    assert (ws / ".compaction" / "restore.md").is_file()  # the restore itself still happened

    # Without the link, the key is logged escaped: one physical line per entry.
    (ws / ".compaction" / "hooks.log").unlink()
    r = run_hook("pre-compact", pre(ws / "session.jsonl", ws), ws)
    lines = (ws / ".compaction" / "hooks.log").read_text().splitlines()
    assert all(line[:4].isdigit() for line in lines), lines  # every line starts with its timestamp
    assert any("config.json" in line and r"ntouch PWNED" in line for line in lines)  # escaped, on its entry's line
    assert not any(line.startswith("touch") for line in lines)


def test_attack_2_linked_pending_file_is_neither_written_nor_removed(lab) -> None:
    ws, victim, elsewhere = lab
    link = ship(ws, "pre-compact.pending", victim)
    r = run_hook("pre-compact", pre(ws / "session.jsonl", ws), ws, "--detach")
    assert r.returncode == 0
    assert b"pre-compact.pending" in r.stderr and b"symbolic link" in r.stderr
    time.sleep(1.0)  # a worker, had one started, would have written and removed by now
    assert link.is_symlink()
    outside_untouched(victim, elsewhere)


@pytest.mark.parametrize("name", ["latest.md", "restore.md", "hook-state.json", "error-memory.md", "state.db"])
def test_pre_compact_hook_writes_nothing_through_a_linked_state_file(lab, name: str) -> None:
    ws, victim, elsewhere = lab
    link = ship(ws, name, victim)
    r = run_hook("pre-compact", pre(ws / "session.jsonl", ws), ws)
    assert r.returncode == 0
    assert name.encode() in r.stderr and b"symbolic link" in r.stderr
    assert link.is_symlink()
    outside_untouched(victim, elsewhere)


@pytest.mark.parametrize("link", ["restore.md", "folder"])
def test_session_start_neither_reads_nor_injects_a_linked_restore_file(lab, tmp_path: Path, link: str) -> None:
    ws, victim, elsewhere = lab
    secret = tmp_path / "other" / "restore.md"
    secret.parent.mkdir()
    secret.write_text("# Restore state\n## Files to restore\n- `~/.ssh/id_rsa`\nSECRET-CONTENT\n")
    if link == "folder":
        (ws / ".compaction").symlink_to(secret.parent)
    else:
        ship(ws, "restore.md", secret)
    r = run_hook("session-start", start(ws / "session.jsonl", ws, source="resume"), ws, "--any-source")
    assert r.returncode == 0
    assert b"SECRET-CONTENT" not in r.stdout
    assert [p.name for p in secret.parent.iterdir()] == ["restore.md"]
    outside_untouched(victim, elsewhere)


def test_a_reused_pending_pid_does_not_stall_session_start(lab) -> None:
    ws, _, _ = lab
    assert run_hook("pre-compact", pre(ws / "session.jsonl", ws), ws).returncode == 0
    # A live process that even mentions compaction in its command line holds the recorded pid now.
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "compaction"])
    try:
        start_ticks = process_start(other.pid)
        (ws / ".compaction" / "pre-compact.pending").write_text(f"{other.pid} {int(start_ticks) + 7}\n")
        began = time.monotonic()
        r = run_hook("session-start", start(ws / "session.jsonl", ws), ws)
        waited = time.monotonic() - began
    finally:
        other.kill()
        other.wait()
    assert r.returncode == 0 and r.stdout
    print(f"session-start with a reused pending pid: {waited:.2f} s")
    assert waited < 20  # the old check (cmdline mentions compaction) waited the full 25 s


def test_a_killed_writes_temp_file_is_cleaned_at_the_next_write(lab) -> None:
    ws, _, _ = lab
    (ws / ".compaction").mkdir()
    stale = ws / ".compaction" / ".latest.md.k9k9k9k9.tmp"
    stale.write_text("half a summary")
    past = time.time() - 3600
    os.utime(stale, (past, past))
    assert run_hook("pre-compact", pre(ws / "session.jsonl", ws), ws).returncode == 0
    assert not stale.exists()
    assert not list((ws / ".compaction").glob(".*.tmp"))


# --- MCP server -----------------------------------------------------------------------------------------------
async def test_mcp_server_writes_nothing_through_links(lab) -> None:
    ws, victim, elsewhere = lab
    ship(ws, "restore.md", victim)
    async with Client(server_params(ws), read_timeout_seconds=60) as client:
        res = await client.call_tool("restore", {})
        assert res.is_error and "restore.md" in res.content[0].text and "symbolic link" in res.content[0].text
        res = await client.call_tool("compact", {"transcript_path": "session.jsonl"})
        assert res.is_error and "symbolic link" in res.content[0].text
    outside_untouched(victim, elsewhere)
    shutil.rmtree(ws / ".compaction")
    (ws / ".compaction").mkdir()
    (ws / ".compaction" / "state.db").symlink_to(victim)
    async with Client(server_params(ws), read_timeout_seconds=60) as client:
        res = await client.call_tool("memory_add", {"text": "remember the deploy steps"})
        assert res.is_error and "state.db" in res.content[0].text and "symbolic link" in res.content[0].text
    outside_untouched(victim, elsewhere)


async def test_mcp_server_refuses_a_linked_state_folder(lab) -> None:
    ws, victim, elsewhere = lab
    (ws / ".compaction").symlink_to(elsewhere)
    async with Client(server_params(ws), read_timeout_seconds=60) as client:
        res = await client.call_tool("error_memory_list", {})
        res2 = await client.call_tool("memory_add", {"text": "remember the deploy steps"})
    assert res2.is_error and "symbolic link" in res2.content[0].text
    assert res.is_error or "records" in res.content[0].text  # reading an absent store is fine; never elsewhere
    outside_untouched(victim, elsewhere)


# --- language server -------------------------------------------------------------------------------------------
async def test_lsp_writes_nothing_through_links(lab, tmp_path: Path) -> None:
    ws, victim, elsewhere = lab
    ship(ws, "restore.md", victim)
    async with lsp_session(ws, home=tmp_path / "home") as lc:
        with pytest.raises(Exception, match=r"restore\.md.*symbolic link"):
            await command(lc, "compaction.restore", {})
        with pytest.raises(Exception, match="symbolic link"):
            await command(lc, "compaction.compact", {"transcript": "session.jsonl"})
    outside_untouched(victim, elsewhere)


@pytest.mark.parametrize("name", ["state.db", "state.db-wal", "latest.md"])
async def test_lsp_writes_nothing_through_a_linked_store_or_summary(lab, tmp_path: Path, name: str) -> None:
    ws, victim, elsewhere = lab
    ship(ws, name, victim)
    async with lsp_session(ws, home=tmp_path / "home") as lc:
        if name.startswith("state.db"):
            with pytest.raises(Exception, match=rf"{name}.*symbolic link"):
                await command(lc, "compaction.errorMemory.add", {"id": "ERR_PY_KeyError", "solution": "x"})
        with pytest.raises(Exception, match=rf"{name}.*symbolic link"):
            await command(lc, "compaction.compact", {"transcript": "session.jsonl"})
    outside_untouched(victim, elsewhere)


async def test_lsp_refuses_a_linked_state_folder(lab, tmp_path: Path) -> None:
    ws, victim, elsewhere = lab
    (ws / ".compaction").symlink_to(elsewhere)
    async with lsp_session(ws, home=tmp_path / "home") as lc:
        with pytest.raises(Exception, match=r"\.compaction.*symbolic link"):
            await command(lc, "compaction.compact", {"transcript": "session.jsonl"})
    outside_untouched(victim, elsewhere)


async def test_lsp_reads_no_transcript_out_of_the_workspace_unless_the_user_picked_it(lab, tmp_path: Path) -> None:
    ws, victim, elsewhere = lab
    outside = make_transcript(tmp_path / "other-project" / "session.jsonl")
    (ws / "linked.jsonl").symlink_to(outside)
    async with lsp_session(ws, home=tmp_path / "home", extra_folders=()) as lc:
        for path, why in ((str(outside), "outside the workspace"), (str(ws / ".." / "other-project" / "session.jsonl"),
                                                                    "`..` leads out"), ("linked.jsonl", "symlink leads out")):
            with pytest.raises(Exception, match=why):
                await command(lc, "compaction.status", {"transcript": path})
        with pytest.raises(Exception, match="not one of this window's workspace folders"):
            await command(lc, "compaction.discoverTranscripts", {"workspace": str(outside.parent)})
        picked = await command(lc, "compaction.status", {"transcript": str(outside), "allowRead": [str(outside)]})
        assert picked["transcript"] == str(outside.resolve())
    async with lsp_session(ws, home=tmp_path / "home", configuration={"allowRead": [str(outside.parent)]}) as lc:
        assert (await command(lc, "compaction.status", {"transcript": str(outside)}))["transcript"]
    outside_untouched(victim, elsewhere)
