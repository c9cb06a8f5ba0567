"""The workspace store: one SQLite database in `<workspace>/.compaction/state.db`, WAL mode.

Each subsystem (error memory, memories, cache) owns its tables and creates them with
`ensure_schema`; this module opens the database the same way everywhere and guards its shape.

Why a schema version: `.compaction/` is a folder a repository can ship, and an old or foreign
`state.db` must give one clear line naming the file, never a traceback from the first query.
`PRAGMA user_version` holds SCHEMA_VERSION and `PRAGMA application_id` marks the file as ours;
a store written before versioning (user_version 0, only our tables) is the current schema and is
stamped on open. A store that cannot be written (read-only folder or file, read-only mount) is
opened read-only, so that reading commands still work and writing ones fail with a clear message.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from pathlib import Path
from urllib.parse import quote

from compaction import statedir
from compaction.statedir import STATE_DIR, UnsafeStateError  # noqa: F401 - re-exported for the store's callers

DB_NAME = "state.db"
SCHEMA_VERSION = 1  # the shape of errors_*, memory_* and cache_* tables as of the first versioned release
APPLICATION_ID = 0x434D5054  # "CMPT": marks a SQLite file as a compaction store
OWN_PREFIXES = ("errors_", "memory_", "cache_")
_MOVE_ASIDE = "move it aside (or delete it) and compaction will create a new store"


class StoreError(Exception):
    """The store cannot be opened or written (locked, disk full, corrupt): recoverable by the caller."""


class StoreConnection(sqlite3.Connection):
    """A store connection that knows its file and whether it was opened read-only (and why)."""

    store_path: str = "the store"
    readonly_reason: str | None = None


def writable(path: Path) -> bool:
    """Whether this process may write `path` (access(2) also answers EROFS on a read-only mount).
    A seam for tests: as root, chmod does not stop writes, so tests replace this function."""
    return os.access(path, os.W_OK)


def state_dir(workspace: str | Path) -> Path:
    """`.compaction/` in the workspace, verified and created (see compaction.statedir); in a folder
    this process cannot write, verified only (no `.gitignore` written: the store opens read-only)."""
    folder = Path(workspace) / STATE_DIR
    return statedir.state_dir(workspace, create=not folder.is_dir() or writable(folder))


def db_path(workspace: str | Path) -> Path:
    return Path(workspace) / STATE_DIR / DB_NAME


def open_store(workspace: str | Path, timeout: float = 10.0) -> StoreConnection:
    """Open (and create) the workspace database in WAL mode with a busy timeout; read-only when
    the folder or the file cannot be written; a StoreError when it is not a store of our schema.
    A linked database or sidecar file is refused (UnsafeStateError) before SQLite, which follows
    links, sees it (read-only or not)."""
    folder = Path(workspace) / STATE_DIR
    reason = _readonly_reason(folder, folder / DB_NAME)
    path = statedir.check_sqlite_files(workspace, DB_NAME, create=reason is None)
    conn = None
    try:
        if reason is None:
            conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False,
                                   factory=StoreConnection)
        else:
            conn = _connect_readonly(folder, path, timeout)
            conn.readonly_reason = reason
        conn.store_path = str(path)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
        if reason is None:
            _switch_to_wal(conn, timeout)
            conn.execute("PRAGMA synchronous=NORMAL")
        check_version(conn)
    except sqlite3.Error as exc:
        if conn is not None:
            conn.close()
        raise StoreError(f"{path}: cannot open the store: {exc}") from exc
    except StoreError:
        if conn is not None:
            conn.close()
        raise
    return conn


def _readonly_reason(folder: Path, path: Path) -> str | None:
    """Why the store must be opened read-only, or None when it can be written (or created)."""
    if folder.is_dir() and not writable(folder):
        return f"{folder} is not writable"
    if path.exists() and not writable(path):
        return f"{path} is not writable"
    if not folder.exists() and folder.parent.is_dir() and not writable(folder.parent):
        return f"{folder.parent} is not writable (no {STATE_DIR}/ can be created)"
    return None


def _connect_readonly(folder: Path, path: Path, timeout: float) -> StoreConnection:
    """`mode=ro`, plus `immutable=1` when SQLite could not create the WAL's -shm beside the file
    (a read-only folder); a store that does not exist yet reads as an empty in-memory one."""
    if not path.exists():
        return sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False, factory=StoreConnection)
    shm = folder / f"{DB_NAME}-shm"
    immutable = not writable(folder) and not shm.exists()
    uri = f"file:{quote(str(path.resolve()))}?mode=ro" + ("&immutable=1" if immutable else "")
    return sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None, check_same_thread=False,
                           factory=StoreConnection)


def _where(conn: sqlite3.Connection) -> str:
    return getattr(conn, "store_path", None) or "the store"


def check_version(conn: sqlite3.Connection) -> None:
    """Refuse a foreign or newer store with one line naming the file; stamp an unversioned one of ours."""
    where = _where(conn)
    # Both header fields in one statement, one snapshot: read apart, another process's stamp (both in
    # one transaction) could fall between them and a store being created would read as foreign.
    app_id, version = conn.execute("SELECT a.application_id, v.user_version "
                                   "FROM pragma_application_id() AS a, pragma_user_version() AS v").fetchone()
    names = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%'")]
    foreign = sorted(n for n in names if not n.startswith(OWN_PREFIXES))
    if app_id not in (0, APPLICATION_ID) or version < 0 or (app_id == 0 and version != 0) or (
            app_id == 0 and foreign):
        held = f" (it holds {', '.join(foreign[:5])})" if foreign else ""
        raise StoreError(f"{where}: not a compaction store{held}; {_MOVE_ASIDE}")
    if version > SCHEMA_VERSION:
        raise StoreError(f"{where}: store schema version {version} is newer than this compaction's "
                         f"({SCHEMA_VERSION}); upgrade compaction, or {_MOVE_ASIDE}")
    if version < SCHEMA_VERSION and not getattr(conn, "readonly_reason", None):
        _migrate(conn, version)


def _migrate(conn: sqlite3.Connection, version: int) -> None:
    """Bring an older store of ours to SCHEMA_VERSION. Version 0 (unversioned) has the shape of
    version 1; columns a table lacks are added by `ensure_schema` where that is safe."""
    try:
        with transaction(conn):
            if conn.execute("PRAGMA user_version").fetchone()[0] == version:  # not stamped meanwhile
                conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    except StoreError as exc:
        raise StoreError(f"cannot stamp the schema version: {exc}") from exc


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
    """Run CREATE ... IF NOT EXISTS statements in one transaction, then check that every table has
    the shape they describe (a view or a table of another shape under our name is refused; a
    column an older store lacks is added when it can be: nullable or with a default).
    On a read-only store, missing tables are created empty in the connection's TEMP schema."""
    readonly = bool(getattr(conn, "readonly_reason", None))
    try:
        _check_shapes(conn, statements, readonly)  # before creating: an index on a wrong table would fail
        if readonly:
            for stmt in statements:
                match = _CREATE_TABLE.match(stmt)
                if match and not _object_type(conn, match.group(1)):
                    conn.execute(_CREATE_TABLE.sub(r"CREATE TEMP TABLE IF NOT EXISTS \1", stmt, count=1))
        else:
            with transaction(conn):
                for stmt in statements:
                    conn.execute(stmt)
    except sqlite3.Error as exc:
        raise StoreError(f"{_where(conn)}: cannot create tables: {exc}") from exc


_CREATE_TABLE = re.compile(r"\s*CREATE TABLE IF NOT EXISTS (\w+)", re.I)


def _object_type(conn: sqlite3.Connection, name: str) -> str | None:
    row = conn.execute("SELECT type FROM sqlite_master WHERE name=? UNION ALL "
                       "SELECT type FROM sqlite_temp_master WHERE name=?", (name, name)).fetchone()
    return row[0] if row else None


_EXPECTED: dict[tuple[str, ...], dict[str, list[tuple]]] = {}


def _expected_shapes(statements: list[str]) -> dict[str, list[tuple]]:
    """Each table's columns as `PRAGMA table_info` gives them, from the statements run in memory."""
    key = tuple(statements)
    if key not in _EXPECTED:
        mem = sqlite3.connect(":memory:")
        try:
            for stmt in statements:
                mem.execute(stmt)
            tables = [m.group(1) for m in map(_CREATE_TABLE.match, statements) if m]
            _EXPECTED[key] = {t: [tuple(r) for r in mem.execute(f"PRAGMA table_info({t})")] for t in tables}
        finally:
            mem.close()
    return _EXPECTED[key]


def _check_shapes(conn: sqlite3.Connection, statements: list[str], readonly: bool) -> None:
    where = _where(conn)
    for table, columns in _expected_shapes(statements).items():
        kind = _object_type(conn, table)
        if kind is None:
            continue  # created next
        if kind != "table":
            raise StoreError(f"{where}: `{table}` is a {kind}, not the table compaction "
                             f"expects; {_MOVE_ASIDE}")
        have = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
        missing = [c for c in columns if c[1] not in have]
        unfixable = [c[1] for c in missing if c[5] or (c[3] and c[4] is None)]  # key, or NOT NULL without default
        if unfixable or (missing and readonly):
            raise StoreError(f"{where}: table `{table}` lacks column(s) {', '.join(c[1] for c in missing)} "
                             f"of schema version {SCHEMA_VERSION}; {_MOVE_ASIDE}")
        if missing:
            with transaction(conn):
                for _cid, name, decl, notnull, default, _pk in missing:
                    conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {decl}"
                                 + (" NOT NULL" if notnull else "")
                                 + (f" DEFAULT {default}" if default is not None else ""))


def store_error(conn: sqlite3.Connection, exc: sqlite3.Error, doing: str) -> StoreError:
    """A StoreError that says what happened in words a user can act on (wait and retry, free space)."""
    where = getattr(conn, "store_path", None)
    if not where:
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
        reason = getattr(self.conn, "readonly_reason", None)
        if reason:
            raise StoreError(f"{_where(self.conn)}: cannot write: the store is open read-only ({reason}); "
                             "make .compaction/ writable and retry (reading commands still work)")
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
