"""The workspace store: one SQLite database in `<workspace>/.compaction/state.db`, WAL mode.

Each subsystem (error memory, memories, cache) owns its tables and creates them with
`ensure_schema`; this module only opens the database the same way everywhere.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from compaction import statedir
from compaction.statedir import STATE_DIR, UnsafeStateError  # noqa: F401 - re-exported for the store's callers

DB_NAME = "state.db"


class StoreError(Exception):
    """The store cannot be opened or written (locked, disk full, corrupt): recoverable by the caller."""


def state_dir(workspace: str | Path) -> Path:
    """`.compaction/` in the workspace, verified and created (see compaction.statedir)."""
    return statedir.state_dir(workspace)


def db_path(workspace: str | Path) -> Path:
    return Path(workspace) / STATE_DIR / DB_NAME


def open_store(workspace: str | Path, timeout: float = 10.0) -> sqlite3.Connection:
    """Open (and create) the workspace database in WAL mode with a busy timeout. A linked database
    or sidecar file is refused (UnsafeStateError) before SQLite, which follows links, sees it."""
    path = statedir.check_sqlite_files(workspace, DB_NAME)
    conn = None
    try:
        conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
        _switch_to_wal(conn, timeout)
        conn.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.Error as exc:
        if conn is not None:
            conn.close()
        raise StoreError(f"{path}: cannot open the store: {exc}") from exc
    return conn


def _switch_to_wal(conn: sqlite3.Connection, timeout: float) -> None:
    """Set WAL mode, retrying while another process creates or converts the same database.

    Changing the journal mode upgrades a shared lock to an exclusive one; when two connections do
    that at once SQLite answers BUSY at once instead of waiting (it would deadlock), so the busy
    timeout never applies and the retry has to be ours."""
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return  # WAL, or the file system's own mode where WAL is impossible: retrying cannot help
        except sqlite3.OperationalError as exc:
            text = str(exc)
            if ("locked" not in text and "busy" not in text) or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def ensure_schema(conn: sqlite3.Connection, statements: list[str]) -> None:
    """Run CREATE ... IF NOT EXISTS statements in one transaction."""
    try:
        with transaction(conn):
            for stmt in statements:
                conn.execute(stmt)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot create tables: {exc}") from exc


def store_error(conn: sqlite3.Connection, exc: sqlite3.Error, doing: str) -> StoreError:
    """A StoreError that says what happened in words a user can act on (wait and retry, free space)."""
    try:
        where = conn.execute("PRAGMA database_list").fetchone()[2] or "the store"
    except sqlite3.Error:
        where = "the store"
    text = str(exc)
    if "locked" in text or "busy" in text:
        hint = "another process holds the store (waited for the busy timeout); retry when it is done"
    elif "full" in text:
        hint = "the disk is full; free some space and retry (nothing was changed)"
    elif "readonly" in text or "read-only" in text:
        hint = "the store is read-only"
    else:
        hint = text
    return StoreError(f"{where}: cannot {doing}: {hint} ({text})")


class transaction:
    """`with transaction(conn):` BEGIN IMMEDIATE … COMMIT, ROLLBACK on error (autocommit connections).

    SQLite failures (locked past the busy timeout, disk full) come out as StoreError, the store's one
    documented error type; the transaction is rolled back first, so nothing is half-written."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise store_error(self.conn, exc, "start a write") from exc
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            try:
                self.conn.execute("COMMIT")
            except sqlite3.Error as err:
                self._rollback()
                raise store_error(self.conn, err, "commit") from err
            return
        self._rollback()
        if isinstance(exc, sqlite3.Error):
            raise store_error(self.conn, exc, "write") from exc

    def _rollback(self) -> None:
        try:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # SQLite already rolled back (e.g. after SQLITE_FULL)


def data_version(conn: sqlite3.Connection) -> int:
    """SQLite's data_version: changes when another connection commits (for change watching)."""
    return conn.execute("PRAGMA data_version").fetchone()[0]
