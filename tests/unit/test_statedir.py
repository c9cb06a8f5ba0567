"""The state folder and atomic writes never follow a link out (issue 15, attacks 1, 2, 5, 7)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compaction import statedir
from compaction.atomic import clean_stale_temps, write_text_atomic
from compaction.cli.integrations import claude_hooks as ch
from compaction.cli.integrations import detached, hook_log
from compaction.statedir import UnsafeStateError
from compaction.store import open_store


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    w = tmp_path / "ws"
    w.mkdir()
    return w


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    target = tmp_path / "bashrc"
    target.write_text("# the user's rc file\n")
    return target


def test_a_linked_state_folder_is_refused_for_reads_and_writes(ws: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (ws / ".compaction").symlink_to(elsewhere)
    with pytest.raises(UnsafeStateError, match="symbolic link"):
        statedir.write_text(ws, "latest.md", "x")
    with pytest.raises(UnsafeStateError):
        statedir.read_text(ws, "hook-state.json")
    with pytest.raises(UnsafeStateError):
        open_store(ws)
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("name", ["latest.md", "restore.md", "hook-state.json", "pre-compact.pending"])
def test_a_linked_state_file_is_refused_never_followed_nor_replaced(ws: Path, outside: Path, name: str) -> None:
    statedir.state_dir(ws)
    (ws / ".compaction" / name).symlink_to(outside)
    with pytest.raises(UnsafeStateError, match=r"symbolic link \(to .*bashrc\).*remove the link"):
        statedir.write_text(ws, name, "pwned\n")
    with pytest.raises(UnsafeStateError):
        statedir.read_text(ws, name)
    assert outside.read_text() == "# the user's rc file\n"
    assert (ws / ".compaction" / name).is_symlink()
    assert not statedir.remove(ws, name) and (ws / ".compaction" / name).is_symlink()


def test_append_refuses_a_link_and_a_fifo(ws: Path, outside: Path) -> None:
    statedir.state_dir(ws)
    (ws / ".compaction" / "hooks.log").symlink_to(outside)
    with pytest.raises(UnsafeStateError):
        statedir.append_text(ws, "hooks.log", "touch PWNED\n")
    os.mkfifo(ws / ".compaction" / "fifo.log")
    with pytest.raises(UnsafeStateError, match="FIFO"):
        statedir.append_text(ws, "fifo.log", "x\n")  # refused at once, never blocks
    assert outside.read_text() == "# the user's rc file\n"


@pytest.mark.parametrize("sidecar", ["state.db", "state.db-wal", "state.db-shm", "state.db-journal"])
def test_a_linked_database_or_sidecar_is_refused_before_sqlite_opens_it(ws: Path, tmp_path: Path, sidecar: str) -> None:
    statedir.state_dir(ws)
    target = tmp_path / "victim.db"
    target.write_bytes(b"")
    (ws / ".compaction" / sidecar).symlink_to(target)
    with pytest.raises(UnsafeStateError, match=sidecar):
        open_store(ws)
    assert target.read_bytes() == b""


def test_new_state_files_are_private_and_created_with_a_gitignore(ws: Path) -> None:
    path = statedir.write_text(ws, "latest.md", "x\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert (ws / ".compaction" / ".gitignore").read_text() == "*\n"


def test_log_escapes_control_characters_one_physical_line_per_entry(ws: Path) -> None:
    ch.log(ws, "pre-compact", 'warning: key "x\ntouch PWNED\n#" \x1b[31m\u202e\r.')
    lines = (ws / ".compaction" / "hooks.log").read_text().splitlines()
    assert len(lines) == 1
    assert r'"x\ntouch PWNED\n#" \x1b[31m\u202e\x0d' in lines[0]


def test_log_refuses_a_linked_log_and_says_so_on_stderr(ws: Path, outside: Path, capsys) -> None:
    statedir.state_dir(ws)
    (ws / ".compaction" / "hooks.log").symlink_to(outside)
    hook_log._warned_unsafe.clear()
    ch.log(ws, "pre-compact", "x\ntouch PWNED\n#")
    assert outside.read_text() == "# the user's rc file\n"
    assert "nothing logged" in capsys.readouterr().err


def test_a_pending_pid_reused_by_another_process_is_not_waited_for(ws: Path) -> None:
    # A live process whose command line even mentions compaction, as a reused pid might.
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "compaction"])
    try:
        start = detached.process_start(other.pid)
        assert start is not None
        statedir.write_text(ws, detached.PENDING, f"{other.pid} {int(start) + 1}\n")  # recorded: another process
        assert detached.pending_worker(ws) is None
        statedir.write_text(ws, detached.PENDING, f"{other.pid} {start}\n")  # the very process: wait for it
        assert detached.pending_worker(ws) == other.pid
    finally:
        other.kill()
        other.wait()


def test_the_worker_clears_only_its_own_pending_file(ws: Path) -> None:
    statedir.write_text(ws, detached.PENDING, "1 12345\n")  # a newer detached run's
    detached._clear_pending(ws)
    assert (ws / ".compaction" / detached.PENDING).exists()
    statedir.write_text(ws, detached.PENDING, f"{os.getpid()} 1\n")
    detached._clear_pending(ws)
    assert not (ws / ".compaction" / detached.PENDING).exists()


def test_stale_temp_files_of_a_killed_write_are_removed_at_the_next_write(ws: Path) -> None:
    folder = statedir.state_dir(ws)
    old, young = folder / ".latest.md.dead0001.tmp", folder / ".latest.md.live0002.tmp"
    old.write_text("half")
    young.write_text("half")
    past = time.time() - 120
    os.utime(old, (past, past))
    statedir.write_text(ws, "latest.md", "whole\n")
    assert not old.exists() and young.exists()  # a young one may be a concurrent writer's
    assert clean_stale_temps(folder, "latest.md", now=time.time() + 120) == 1


# --- `-o FILE`: write through links, never replace special files, keep the mode -------------------------
def test_output_through_a_symlink_writes_its_target_and_keeps_the_link(tmp_path: Path) -> None:
    target = tmp_path / "real.md"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    link = tmp_path / "link.md"
    link.symlink_to(target)
    write_text_atomic(link, "new\n")
    assert link.is_symlink() and target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_output_keeps_the_mode_of_an_existing_file_and_new_files_follow_the_umask(tmp_path: Path) -> None:
    existing = tmp_path / "out.md"
    existing.write_text("old\n")
    os.chmod(existing, 0o664)
    write_text_atomic(existing, "new\n")
    assert stat.S_IMODE(existing.stat().st_mode) == 0o664
    umask = os.umask(0o022)
    try:
        fresh = write_text_atomic(tmp_path / "fresh.md", "x\n")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644


def test_output_to_a_fifo_is_written_in_place_or_refused_without_a_reader(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="no process is reading"):
        write_text_atomic(fifo, "x\n")
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    time.sleep(0.2)  # let cat open the FIFO (not a timing assertion: the write retries below)
    for _ in range(50):
        try:
            write_text_atomic(fifo, "through the pipe\n")
            break
        except OSError:
            time.sleep(0.1)
    out, _ = reader.communicate(timeout=10)
    assert out == b"through the pipe\n"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_output_to_a_character_device_is_written_in_place(tmp_path: Path) -> None:
    write_text_atomic("/dev/null", "x\n")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)
    if os.path.exists("/dev/full"):
        with pytest.raises(OSError, match="/dev/full"):
            write_text_atomic("/dev/full", "x\n")
        assert stat.S_ISCHR(os.lstat("/dev/full").st_mode)


def test_a_linked_workspace_config_is_not_read(ws: Path, tmp_path: Path) -> None:
    from compaction.config import ConfigError, load_settings

    users_own = tmp_path / "user-config.json"
    users_own.write_text('{"role": "pm"}')
    statedir.state_dir(ws)
    (ws / ".compaction" / "config.json").symlink_to(users_own)
    with pytest.raises(ConfigError, match=r"config\.json: is a symbolic link.*ignoring it"):
        load_settings(ws)


def test_install_refuses_a_linked_file_in_the_state_folder(ws: Path, outside: Path) -> None:
    from compaction.cli.integrations.edits import FileChange, apply

    statedir.state_dir(ws)
    link = ws / ".compaction" / "codex-compact-prompt.md"
    link.symlink_to(outside)
    with pytest.raises(UnsafeStateError):
        apply(FileChange(path=link, before=None, after="prompt\n"))
    assert outside.read_text() == "# the user's rc file\n" and link.is_symlink()
    assert not (ws / ".compaction" / "codex-compact-prompt.md.compaction-backup").exists()


def test_texts_a_repository_controls_are_escaped_in_messages(ws: Path) -> None:
    import json

    from compaction.config import ConfigError, load_settings

    statedir.state_dir(ws)
    (ws / ".compaction" / "latest.md").symlink_to("\x1b]0;owned\x07\ntouch PWNED")
    with pytest.raises(UnsafeStateError) as info:
        statedir.write_text(ws, "latest.md", "x")
    assert "\x1b" not in str(info.value) and "\n" not in str(info.value) and r"\x1b]0;owned\x07\ntouch" in str(info.value)
    (ws / ".compaction" / "config.json").write_text(json.dumps({"x\ntouch PWNED\n#": 1}))
    with pytest.raises(ConfigError) as info:
        load_settings(ws)
    assert r"x\ntouch PWNED\n#" in str(info.value)
    assert not any(line.lstrip().startswith("touch") for line in str(info.value).splitlines())


def test_process_start_without_proc_asks_ps(monkeypatch) -> None:
    """macOS has no /proc: the start time comes from `ps -o lstart`, one token, stable per process."""
    monkeypatch.setattr(detached, "PROC_STAT", "/nonexistent/{pid}/stat")
    mine = detached.process_start(os.getpid())
    assert mine and " " not in mine and mine == detached.process_start(os.getpid())
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert detached.process_start(other.pid) is not None
    finally:
        other.kill()
        other.wait()
    assert detached.process_start(other.pid) is None


def test_hard_links_are_not_written_in_place(ws: Path, outside: Path, tmp_path: Path) -> None:
    """An archive (not a clone) can ship a hard link: appends and SQLite would change the other file."""
    statedir.state_dir(ws)
    os.link(outside, ws / ".compaction" / "hooks.log")
    with pytest.raises(UnsafeStateError, match="2 hard links"):
        statedir.append_text(ws, "hooks.log", "touch PWNED\n")
    victim_db = tmp_path / "victim.db"
    victim_db.write_bytes(b"")
    os.link(victim_db, ws / ".compaction" / "state.db")
    with pytest.raises(UnsafeStateError, match="hard links"):
        open_store(ws)
    assert outside.read_text() == "# the user's rc file\n" and victim_db.read_bytes() == b""
    statedir.write_text(ws, "hooks.log", "replaced\n")  # a whole-file write replaces the name only
    assert outside.read_text() == "# the user's rc file\n"
