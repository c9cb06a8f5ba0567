"""Result cache (seed 003 §5): compressed results keyed by content hash, in the workspace store.

An entry is invalid when a file it depends on changed (size, mtime or content hash differ from
when it was stored; the watcher may also call `invalidate_path`), when the task changed (the
transcript's current goal or a new session: `set_task`), or when it is 24 h old. The clock is
injectable so expiry is testable without waiting.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from compaction.store import ensure_schema, open_store, transaction

TTL_SECONDS = 24 * 3600

SCHEMA = [
    """CREATE TABLE IF NOT EXISTS cache_entries (
        key TEXT PRIMARY KEY, kind TEXT NOT NULL, value TEXT NOT NULL, created REAL NOT NULL,
        task TEXT, files TEXT NOT NULL DEFAULT '[]', hits INTEGER NOT NULL DEFAULT 0)""",
    "CREATE TABLE IF NOT EXISTS cache_meta (name TEXT PRIMARY KEY, value TEXT)",
]


def content_hash(*parts: Any) -> str:
    """sha256 of the parts (strings as UTF-8, anything else as sorted JSON)."""
    h = hashlib.sha256()
    for p in parts:
        data = p if isinstance(p, str) else json.dumps(p, sort_keys=True, default=str)
        h.update(data.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()


def task_hash(task: str | None) -> str | None:
    return None if task is None else content_hash(" ".join(task.split()))


def file_signature(path: str | Path) -> dict[str, Any]:
    """What identifies a file version: size, mtime_ns and (for files up to 8 MiB) a content hash."""
    p = Path(path)
    try:
        st = p.stat()
    except OSError:
        return {"path": str(p), "missing": True}
    sig: dict[str, Any] = {"path": str(p), "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    if st.st_size <= 8 << 20:
        try:
            sig["sha256"] = hashlib.sha256(p.read_bytes()).hexdigest()
        except OSError:
            pass
    return sig


def _changed(old: dict[str, Any]) -> bool:
    new = file_signature(old["path"])
    if old.get("missing") or new.get("missing"):
        return bool(old.get("missing")) != bool(new.get("missing"))
    if "sha256" in old and "sha256" in new:
        return old["sha256"] != new["sha256"] or old["size"] != new["size"]
    return old.get("size") != new.get("size") or old.get("mtime_ns") != new.get("mtime_ns")


class ResultCache:
    """`get`/`put` by kind + content + parameters. `stats` counts hits, misses and invalidations."""

    def __init__(self, workspace: str | Path | None = None, conn: sqlite3.Connection | None = None,
                 clock: Callable[[], float] = time.time, ttl: float = TTL_SECONDS) -> None:
        if conn is None:
            if workspace is None:
                raise ValueError("ResultCache needs a workspace or a connection")
            conn = open_store(workspace)
        self.conn = conn
        self.clock = clock
        self.ttl = ttl
        self.stats = {"hits": 0, "misses": 0, "expired": 0, "file_changed": 0, "task_changed": 0}
        ensure_schema(conn, SCHEMA)

    @staticmethod
    def key(kind: str, content: str, params: dict[str, Any] | None = None) -> str:
        return content_hash(kind, content, params or {})

    def current_task(self) -> str | None:
        row = self.conn.execute("SELECT value FROM cache_meta WHERE name='task'").fetchone()
        return row[0] if row else None

    def set_task(self, task: str | None) -> int:
        """Record the current task; a different task than before drops entries tied to other tasks.
        Returns the number of entries invalidated."""
        h = task_hash(task)
        if h == self.current_task():
            return 0
        with transaction(self.conn):
            self.conn.execute("INSERT OR REPLACE INTO cache_meta(name, value) VALUES ('task', ?)", (h,))
            n = self.conn.execute("DELETE FROM cache_entries WHERE task IS NOT NULL AND task != ?", (h,)).rowcount
        self.stats["task_changed"] += n
        return n

    def get(self, kind: str, content: str, params: dict[str, Any] | None = None, task: str | None = None) -> Any:
        """The cached value, or None when absent, expired, stale by a file change or by the task."""
        key = self.key(kind, content, params)
        row = self.conn.execute("SELECT value, created, task, files FROM cache_entries WHERE key=?", (key,)).fetchone()
        if row is None:
            self.stats["misses"] += 1
            return None
        value, created, entry_task, files = row[0], row[1], row[2], json.loads(row[3])
        reason = None
        if self.clock() - created >= self.ttl:
            reason = "expired"
        elif entry_task is not None and (
            (task is not None and task_hash(task) != entry_task)
            or (self.current_task() is not None and self.current_task() != entry_task)
        ):
            reason = "task_changed"
        elif any(_changed(f) for f in files):
            reason = "file_changed"
        if reason:
            self.stats[reason] += 1
            self.stats["misses"] += 1
            with transaction(self.conn):
                self.conn.execute("DELETE FROM cache_entries WHERE key=?", (key,))
            return None
        self.stats["hits"] += 1
        self.conn.execute("UPDATE cache_entries SET hits=hits+1 WHERE key=?", (key,))
        return json.loads(value)

    def put(self, kind: str, content: str, value: Any, params: dict[str, Any] | None = None,
            files: Iterable[str | Path] = (), task: str | None = None) -> str:
        """Store a JSON-serialisable value; `files` are the files it depends on, `task` the task it belongs to."""
        key = self.key(kind, content, params)
        sigs = [file_signature(f) for f in files]
        with transaction(self.conn):
            self.conn.execute(
                "INSERT OR REPLACE INTO cache_entries(key, kind, value, created, task, files) VALUES (?,?,?,?,?,?)",
                (key, kind, json.dumps(value), self.clock(), task_hash(task), json.dumps(sigs)))
        return key

    def get_or_compute(self, kind: str, content: str, compute: Callable[[], Any], params: dict[str, Any] | None = None,
                       files: Iterable[str | Path] = (), task: str | None = None) -> tuple[Any, bool]:
        """(value, hit)."""
        files = list(files)
        value = self.get(kind, content, params, task)
        if value is not None:
            return value, True
        value = compute()
        self.put(kind, content, value, params, files, task)
        return value, False

    def invalidate_path(self, path: str | Path) -> int:
        """Drop entries that depend on `path` (the file watcher calls this on a change event)."""
        target = os.path.abspath(str(path))
        doomed = []
        for key, files in self.conn.execute("SELECT key, files FROM cache_entries").fetchall():
            if any(os.path.abspath(f["path"]) == target for f in json.loads(files)):
                doomed.append((key,))
        if doomed:
            with transaction(self.conn):
                self.conn.executemany("DELETE FROM cache_entries WHERE key=?", doomed)
        self.stats["file_changed"] += len(doomed)
        return len(doomed)

    def purge_expired(self) -> int:
        with transaction(self.conn):
            return self.conn.execute("DELETE FROM cache_entries WHERE created <= ?", (self.clock() - self.ttl,)).rowcount

    def clear(self) -> None:
        with transaction(self.conn):
            self.conn.execute("DELETE FROM cache_entries")

    def __len__(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM cache_entries").fetchone()[0]
