"""The store's schema version and its read-only mode (issue 15, item 8).

A `.compaction/state.db` can be shipped by a repository or left by another version: each wrong
shape must give one line naming the file and what to do, never a traceback. A store that cannot be
written still serves reading commands. As root, chmod does not stop writes, so the read-only tests
replace `compaction.store.writable` (the access(2) seam) and, where `unshare -m` works, also run the
CLI under a real read-only bind mount."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from compaction import store
from compaction.errors import ErrorMemory
from compaction.store import APPLICATION_ID, SCHEMA_VERSION, StoreError, db_path, open_store
from tests.conftest import REPO

CLI = [sys.executable, "-c", "import sys; from compaction.cli import main; sys.exit(main())"]


def _cli(ws: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args, "--workspace", str(ws)], capture_output=True, text=True, cwd=REPO)


def _raw(ws: Path) -> sqlite3.Connection:
    (ws / ".compaction").mkdir(parents=True, exist_ok=True)
    return sqlite3.connect(db_path(ws), isolation_level=None)


def _pragma(ws: Path, name: str) -> int:
    conn = sqlite3.connect(db_path(ws))
    try:
        return conn.execute(f"PRAGMA {name}").fetchone()[0]
    finally:
        conn.close()


def test_a_new_store_carries_the_schema_version(tmp_path: Path) -> None:
    with ErrorMemory(tmp_path) as mem:
        mem.add("ERR_LOGIC_Versioned", solution="s")
    assert _pragma(tmp_path, "user_version") == SCHEMA_VERSION == 1
    assert _pragma(tmp_path, "application_id") == APPLICATION_ID


def test_an_unversioned_store_of_ours_is_migrated_with_its_rows(tmp_path: Path) -> None:
    with ErrorMemory(tmp_path) as mem:
        mem.add("ERR_LOGIC_Old", solution="kept")
    raw = _raw(tmp_path)
    raw.execute("PRAGMA user_version=0")
    raw.execute("PRAGMA application_id=0")
    raw.execute("ALTER TABLE errors_records DROP COLUMN target_override")  # an older shape: nullable column
    raw.close()
    with ErrorMemory(tmp_path) as mem:
        assert [r.id for r in mem.list()] == ["ERR_LOGIC_Old"]
        mem.add("ERR_LOGIC_New", solution="written after the migration")
    assert _pragma(tmp_path, "user_version") == SCHEMA_VERSION


def test_a_newer_store_is_refused_with_what_to_do(tmp_path: Path) -> None:
    with ErrorMemory(tmp_path):
        pass
    raw = _raw(tmp_path)
    raw.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    raw.close()
    with pytest.raises(StoreError) as err:
        ErrorMemory(tmp_path)
    msg = str(err.value)
    assert str(db_path(tmp_path)) in msg and "newer" in msg and "upgrade compaction" in msg
    run = _cli(tmp_path, "errors", "list")
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stderr.count("\n") == 1 and "newer" in run.stderr and str(db_path(tmp_path)) in run.stderr


@pytest.mark.parametrize("shape", ["view", "wrong_columns", "foreign"])
def test_a_wrong_shape_under_our_name_is_one_clear_line(tmp_path: Path, shape: str) -> None:
    raw = _raw(tmp_path)
    if shape == "view":
        raw.execute("CREATE VIEW errors_records AS SELECT 1 AS id")
    elif shape == "wrong_columns":
        raw.execute("CREATE TABLE errors_occurrences (x INTEGER PRIMARY KEY, transcript TEXT)")
    else:
        raw.execute("CREATE TABLE invoices (n INTEGER)")
    raw.close()
    run = _cli(tmp_path, "errors", "list")
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr and run.stderr.count("\n") == 1
    assert str(db_path(tmp_path)) in run.stderr and "move it aside" in run.stderr
    expected = {"view": "`errors_records` is a view", "wrong_columns": "`errors_occurrences` lacks column",
                "foreign": "not a compaction store (it holds invoices)"}[shape]
    assert expected in run.stderr


def test_mcp_tool_error_names_the_reason(tmp_path: Path) -> None:
    """The MCP tools run under `_guard`, which turns a StoreError into the client's tool error."""
    from compaction.mcp_server import ToolFailure, _guard

    raw = _raw(tmp_path)
    raw.execute("CREATE VIEW errors_records AS SELECT 1 AS id")
    raw.close()

    def list_errors() -> None:
        ErrorMemory(tmp_path)

    with pytest.raises(ToolFailure, match="is a view, not the table"):
        _guard(list_errors)()


# --- read-only stores ---------------------------------------------------------------------------

@pytest.fixture
def readonly_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    with ErrorMemory(tmp_path) as mem:
        mem.add("ERR_LOGIC_Stored", solution="read back from a read-only store")
    for leftover in (".compaction/state.db-shm", ".compaction/state.db-wal"):
        (tmp_path / leftover).unlink(missing_ok=True)
    folder = tmp_path / ".compaction"
    monkeypatch.setattr(store, "writable", lambda p: not Path(p).resolve().is_relative_to(folder.resolve()))
    return tmp_path


def test_a_readonly_folder_still_serves_reads(readonly_store: Path) -> None:
    with ErrorMemory(readonly_store) as mem:
        assert [r.id for r in mem.list()] == ["ERR_LOGIC_Stored"]
        assert "ERR_LOGIC_Stored" in mem.export("en")
        with pytest.raises(StoreError, match="read-only") as err:
            mem.add("ERR_LOGIC_Refused", solution="x")
    assert str(db_path(readonly_store)) in str(err.value) and "make .compaction/ writable" in str(err.value)
    assert not (readonly_store / ".compaction" / "state.db-shm").exists()  # opened immutable: nothing created


def test_a_readonly_store_missing_other_tables_reads_them_as_empty(readonly_store: Path) -> None:
    from compaction.cache import ResultCache

    conn = open_store(readonly_store)
    try:
        cache = ResultCache(conn=conn)  # the cache tables were never created in this store
        assert cache.current_task() is None
    finally:
        conn.close()


def test_no_store_and_a_readonly_workspace_reads_as_empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "writable", lambda p: False)
    with ErrorMemory(tmp_path) as mem:
        assert mem.list() == []
    assert not (tmp_path / ".compaction").exists()


def _can_bind_mount_readonly() -> bool:
    if not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount --bind /tmp /tmp && mount -o remount,bind,ro /tmp"],
                           capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _can_bind_mount_readonly(), reason="needs unshare -m and bind mounts (root)")
def test_cli_under_a_readonly_bind_mount(tmp_path: Path) -> None:
    """The real thing: `.compaction/` on a read-only mount (EROFS, which root cannot override)."""
    with ErrorMemory(tmp_path) as mem:
        mem.add("ERR_LOGIC_Mounted", solution="s")
    for leftover in ("state.db-shm", "state.db-wal"):
        (tmp_path / ".compaction" / leftover).unlink(missing_ok=True)
    folder = tmp_path / ".compaction"
    cli = " ".join(f"'{a}'" for a in CLI)

    def under_ro_mount(*args: str) -> subprocess.CompletedProcess:
        script = (f"mount --bind '{folder}' '{folder}' && mount -o remount,bind,ro '{folder}' && "
                  f"cd '{REPO}' && {cli} {' '.join(args)} --workspace '{tmp_path}'")
        return subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True)

    listed = under_ro_mount("errors", "list")
    assert listed.returncode == 0, listed.stderr
    assert "ERR_LOGIC_Mounted" in listed.stdout
    exported = under_ro_mount("errors", "export")
    assert exported.returncode == 0 and "ERR_LOGIC_Mounted" in exported.stdout
    for reading in (("errors", "show", "ERR_LOGIC_Mounted"), ("errors", "check", "'run the tests'"),
                    ("restore", "--no-write")):
        run = under_ro_mount(*reading)
        assert run.returncode == 0, (reading, run.stderr)
    added = under_ro_mount("errors", "add", "ERR_LOGIC_Refused", "--solution", "x")
    assert added.returncode == 1 and "read-only" in added.stderr and "Traceback" not in added.stderr


@pytest.mark.parametrize("name", ["state.db", "state.db-wal", "state.db-shm"])
def test_a_readonly_store_still_refuses_a_linked_database_or_sidecar(readonly_store: Path, name: str,
                                                                    tmp_path_factory: pytest.TempPathFactory) -> None:
    """The read-only path (mode=ro, immutable) must not skip statedir's link checks: SQLite follows
    links, and an immutable open of a linked file would read (and trust) another file."""
    from compaction.statedir import UnsafeStateError

    victim = tmp_path_factory.mktemp("outside") / "victim.db"
    link = readonly_store / ".compaction" / name
    if link.exists():
        link.replace(victim)
    else:
        victim.write_bytes(b"")
    before = victim.read_bytes()
    link.symlink_to(victim)
    with pytest.raises(UnsafeStateError, match=name):
        open_store(readonly_store)
    assert victim.read_bytes() == before
