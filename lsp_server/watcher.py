"""File watching for the server: workspace changes (watchdog), store and config changes (polling).

Why two mechanisms: source files change through editors, git and build tools, and watchdog's
inotify/FSEvents observers see them cheaply. The store (`.compaction/state.db`) is written by
other processes too (the CLI, agent hooks); SQLite in WAL mode touches `state.db-wal` on every
commit, so polling the two files' (size, mtime) every quarter second notices another process's
change without holding a connection or a watch inside `.compaction/` (which we ignore).

Ignored: VCS folders, `node_modules`, virtual environments (by name or by `pyvenv.cfg`), caches
and `.compaction`. Top-level folders are watched recursively one by one (the root itself
non-recursively), so ignored top-level folders — the big ones — cost no inotify watches at all.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

log = logging.getLogger(__name__)

IGNORED_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", "node_modules", ".venv", "venv", ".env", "env", "__pycache__", ".compaction",
        ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".idea", ".eggs", ".cache",
    }
)  # fmt: skip
RECENCY_LIMIT = 10_000


def is_venv(path: Path) -> bool:
    return (path / "pyvenv.cfg").is_file()


class WorkspaceWatcher:
    """Watch workspace folders; call `on_change(paths)` once per burst of events (debounced).

    `recency` maps each changed file to the time of its last event (newest last), bounded, so
    that core-file ranking can prefer what the user is touching now."""

    def __init__(
        self,
        roots: Iterable[str | Path],
        on_change: Callable[[set[Path]], None],
        debounce_s: float = 0.1,
        exclude: Iterable[str] = (),
        max_wait_s: float | None = None,
    ) -> None:
        self.roots = [Path(r).absolute() for r in roots]
        self.on_change = on_change
        self.debounce_s = debounce_s
        self.max_wait_s = max_wait_s if max_wait_s is not None else max(1.0, 5 * debounce_s)
        self.ignored = IGNORED_DIRS | set(exclude)
        self.recency: OrderedDict[str, float] = OrderedDict()
        self._pending: set[Path] = set()
        self._first_pending = 0.0
        self._last_event = 0.0
        self._cond = threading.Condition()
        self._stopped = False
        self._observer = Observer()
        self._observer.daemon = True
        self._scheduled: set[Path] = set()
        self._flusher = threading.Thread(target=self._run, name="compaction-watch-debounce", daemon=True)

    # ---- set-up -------------------------------------------------------------------------
    def start(self) -> None:
        handler = _Handler(self)
        for root in self.roots:
            if not root.is_dir():
                continue
            self._observer.schedule(handler, str(root), recursive=False)
            for child in _subdirs(root):
                self._schedule_dir(child, handler)
        self._handler = handler
        self._observer.start()
        self._flusher.start()
        log.info("watching %s (%d top-level folders)", ", ".join(map(str, self.roots)), len(self._scheduled))

    def _schedule_dir(self, path: Path, handler: FileSystemEventHandler) -> None:
        if path.name in self.ignored or is_venv(path) or path in self._scheduled:
            return
        try:
            self._observer.schedule(handler, str(path), recursive=True)
            self._scheduled.add(path)
        except OSError as exc:  # e.g. inotify watch limit reached
            log.warning("cannot watch %s: %s", path, exc)

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        try:
            self._observer.stop()
            self._observer.join(timeout=2)
        except RuntimeError:
            pass

    # ---- events ---------------------------------------------------------------------------
    def ignored_path(self, path: Path) -> bool:
        for root in self.roots:
            try:
                rel = path.relative_to(root)
            except ValueError:
                continue
            return any(part in self.ignored for part in rel.parts)
        return True

    def feed(self, path: Path) -> None:
        """Record one changed path (called from the observer thread, or directly by tests)."""
        if self.ignored_path(path):
            return
        now = time.monotonic()
        with self._cond:
            if not self._pending:
                self._first_pending = now
            self._pending.add(path)
            self._last_event = now
            self.recency[str(path)] = time.time()
            self.recency.move_to_end(str(path))
            while len(self.recency) > RECENCY_LIMIT:
                self.recency.popitem(last=False)
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._stopped:
                    self._cond.wait()
                if self._stopped:
                    return
                now = time.monotonic()
                due = min(self._last_event + self.debounce_s, self._first_pending + self.max_wait_s)
                if now < due:
                    self._cond.wait(due - now)
                    continue
                batch, self._pending = self._pending, set()
            try:
                self.on_change(batch)
            except Exception:  # a failing consumer must not kill the watcher
                log.exception("watch callback failed")

    def recent(self, limit: int = 50) -> list[tuple[str, float]]:
        """The most recently changed files, newest first."""
        with self._cond:
            items = list(self.recency.items())
        return items[::-1][:limit]


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: WorkspaceWatcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        paths = [event.src_path, getattr(event, "dest_path", "")]
        for raw in paths:
            if not raw:
                continue
            path = Path(os.fsdecode(raw))
            if event.is_directory:
                if event.event_type == "modified":
                    continue  # a child changed: its own event follows
                if event.event_type in ("created", "moved") and path.parent in self.watcher.roots:
                    self.watcher._schedule_dir(path, self)
                # the index re-reads a folder whole: covers files created before its watch existed
            self.watcher.feed(path)


def _subdirs(root: Path) -> list[Path]:
    try:
        return [p for p in root.iterdir() if p.is_dir() and not p.is_symlink()]
    except OSError:
        return []


class FilePoller:
    """Poll a few files for changes made by any process; call `on_change()` when their (size,
    mtime) signature moves (a file appearing or disappearing counts)."""

    def __init__(self, files: list[Path], on_change: Callable[[], None], interval_s: float = 0.25,
                 name: str = "compaction-poll") -> None:
        self.files = files
        self.on_change = on_change
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._sig = self.signature()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def signature(self) -> tuple:
        sig = []
        for f in self.files:
            try:
                st = f.stat()
                sig.append((st.st_size, st.st_mtime_ns))
            except OSError:
                sig.append(None)
        return tuple(sig)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            sig = self.signature()
            if sig != self._sig:
                self._sig = sig
                try:
                    self.on_change()
                except Exception:
                    log.exception("%s: change callback failed", self._thread.name)


class StoreWatcher(FilePoller):
    """`.compaction/state.db` and its WAL, written by the CLI and agent hooks as well as by us."""

    def __init__(self, workspace: str | Path, on_change: Callable[[], None], interval_s: float = 0.25) -> None:
        base = Path(workspace) / ".compaction"
        super().__init__([base / "state.db", base / "state.db-wal"], on_change, interval_s, "compaction-store-watch")


class ConfigWatcher(FilePoller):
    """`.compaction/config.json`: edited by hand or by `compaction` commands while the server runs."""

    def __init__(self, workspace: str | Path, on_change: Callable[[], None], interval_s: float = 0.25) -> None:
        super().__init__([Path(workspace) / ".compaction" / "config.json"], on_change, interval_s,
                         "compaction-config-watch")
