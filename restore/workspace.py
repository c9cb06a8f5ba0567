"""WorkspaceIndex: one scan of the workspace, kept fresh path by path.

Why an index: the restore state is asked for after every compaction and the language server's
watcher reports changes one file at a time, so we scan once (git's own file list when the root
is in a git repository, else an os.scandir walk with our .gitignore matcher), keep per-file
class, size and mtime, and let `invalidate(paths)` update only what changed. Never follows a
symlink out of the root; skips dependency folders, virtual environments, build output, binaries
and huge files.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from restore.globs import IgnoreMatcher
from restore.ranking import Classifier, CoreClass, package_json_targets

SKIP_DIRS = frozenset(
    "node_modules .git .hg .svn __pycache__ .venv venv .virtualenv virtualenv .tox .nox .mypy_cache "
    ".pytest_cache .ruff_cache .cache dist build target .next .nuxt .svelte-kit .turbo .parcel-cache "
    "coverage htmlcov .gradle .idea .compaction bower_components .terraform .eggs .bundle .pnpm-store "
    ".yarn vendor Pods DerivedData .dart_tool .angular out".split()
)
SKIP_DIR_SUFFIXES = (".egg-info", ".dist-info")
BINARY_EXTS = frozenset(
    ".png .jpg .jpeg .gif .bmp .ico .icns .webp .tiff .psd .svgz .pdf .zip .gz .tgz .bz2 .xz .7z .rar .tar .jar .war "
    ".ear .class .pyc .pyo .pyd .so .dylib .dll .exe .bin .o .a .lib .obj .wasm .woff .woff2 .ttf .otf .eot "
    ".mp3 .mp4 .mov .avi .mkv .wav .flac .ogg .webm .db .sqlite .sqlite3 .pkl .npy .npz .h5 .parquet .onnx "
    ".pt .pth .ckpt .safetensors .whl .egg .dmg .iso .node .lockb".split()
)
MAX_FILE_BYTES = 2_000_000


@dataclass(slots=True)
class FileEntry:
    rel: str  # workspace-relative POSIX path
    cls: CoreClass | None
    mtime: float
    size: int
    touched: float = 0.0  # latest time reported by touch() (watcher events, transcript edits)
    dirty: bool = False  # modified against git's index

    @property
    def recency(self) -> float:
        return max(self.mtime, self.touched)


def _ext(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def _git_toplevel(root: Path) -> bool:
    for p in (root, *root.parents):
        if (p / ".git").exists():
            return True
    return False


class WorkspaceIndex:
    """Files of one workspace root with their core class and times. Thread-safe."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        core_globs: dict[str, list[str]] | None = None,
        use_git: bool | None = None,
        max_file_bytes: int = MAX_FILE_BYTES,
    ) -> None:
        self.root = Path(os.path.realpath(root))
        if not self.root.is_dir():
            raise NotADirectoryError(f"{root}: workspace is not a directory")
        self._root_s = str(self.root)
        self.classifier = Classifier(core_globs)
        # use_git: True = list files with `git ls-files` (git's exact ignore rules); None (default) = our
        # walk and .gitignore matcher, with git asked only which files are modified; False = no git.
        self.in_git = _git_toplevel(self.root) and shutil.which("git") is not None
        self.use_git = self.in_git if use_git is True else (None if use_git is None else False)
        self.max_file_bytes = max_file_bytes
        self.entries: dict[str, FileEntry] = {}
        self.ignore = IgnoreMatcher()
        self.tracked: set[str] = set()
        self.git_used = False
        self.version = 0  # bumped on every change; caches key on it
        self.members_version = 0  # bumped when files appear, disappear or change class
        self.active: set[str] = set()  # files with a recency signal beyond their mtime: git-dirty or touched
        self._class_cache: tuple[int, dict[CoreClass | None, list[str]]] | None = None
        self.scanned = False
        self.scan_ms = 0.0
        self._pkg_targets: dict[str, list[str]] = {}
        self._entry_targets: set[str] = set()
        self._lock = threading.RLock()
        self.cache: dict[tuple, object] = {}  # excerpt cache, keyed by (rel, mtime, size, budget)

    # ------------------------------------------------------------------ paths
    def rel(self, path: str | os.PathLike[str]) -> str | None:
        """Workspace-relative POSIX path for an absolute or root-relative path; None outside the root
        (also when a symlink on the way resolves outside it)."""
        p = os.fspath(path)
        if not os.path.isabs(p):
            p = os.path.join(self._root_s, p)
        p = os.path.normpath(p)
        if p == self._root_s:
            return ""
        if not p.startswith(self._root_s + os.sep):
            real = os.path.realpath(p)
            if not real.startswith(self._root_s + os.sep):
                return None
            p = real
        rel = p[len(self._root_s) + 1 :].replace(os.sep, "/")
        return rel if self.inside(rel) else None

    def inside(self, rel: str) -> bool:
        """True when `rel` resolves (symlinks followed) inside the root."""
        real = os.path.realpath(os.path.join(self._root_s, rel))
        return real == self._root_s or real.startswith(self._root_s + os.sep)

    def abspath(self, rel: str) -> Path:
        return self.root / rel

    def read_text(self, rel: str, limit: int | None = None) -> str | None:
        """File text (UTF-8, replacement on errors), or None when outside the root, binary or unreadable."""
        if not self.inside(rel):
            return None
        try:
            with open(os.path.join(self._root_s, rel), "rb") as fh:
                data = fh.read(limit) if limit else fh.read()
        except OSError:
            return None
        if b"\0" in data[:8192]:
            return None
        return data.decode("utf-8", errors="replace")

    # ------------------------------------------------------------------ scanning
    def ensure_scanned(self) -> WorkspaceIndex:
        if not self.scanned:
            self.scan()
        return self

    def scan(self) -> None:
        """Full (re)scan. Normally once; `invalidate` keeps it fresh afterwards."""
        t0 = time.perf_counter()
        with self._lock:
            self.entries = {}
            self.ignore = IgnoreMatcher()
            self.tracked = set()
            self._pkg_targets = {}
            self._entry_targets = set()
            self.cache.clear()
            self.git_used = False
            packages: list[str] = []
            if self.use_git is True:
                self.git_used = self._scan_git(packages)
            if not self.git_used:
                # git's view of tracked/modified files runs beside our walk (2 processes, ~same time)
                status: dict[str, set[str]] = {}
                worker = None
                if self.use_git is None and self.in_git:
                    worker = threading.Thread(target=self._git_status, args=(status,), daemon=True)
                    worker.start()
                self._walk("", packages)
                if worker is not None:
                    worker.join(30)
                    self.tracked = status.get("tracked", set())
                    for rel in status.get("modified", ()):
                        entry = self.entries.get(rel)
                        if entry is not None:
                            entry.dirty = True
            for pkg in packages:
                self._load_package(pkg)
            for target in self._entry_targets:
                entry = self.entries.get(target)
                if entry is not None:
                    entry.cls = self._class_of(target)
            self.active = {rel for rel, e in self.entries.items() if e.dirty}
            self.scanned = True
            self.version += 1
            self.members_version += 1
        self.scan_ms = (time.perf_counter() - t0) * 1000

    def _class_of(self, rel: str) -> CoreClass | None:
        if rel in self._entry_targets and not self.classifier.overridden(rel):
            return CoreClass.ENTRY
        return self.classifier(rel)

    def _admit(self, rel: str, name: str, st: os.stat_result) -> None:
        if not stat.S_ISREG(st.st_mode) or st.st_size > self.max_file_bytes:
            return
        self.entries[rel] = FileEntry(rel, self._class_of(rel), st.st_mtime, st.st_size)

    def _walk(self, start: str, packages: list[str]) -> None:
        """Iterative os.scandir walk below `start` (a folder already known not to be ignored)."""
        stack = [start]
        ignore = self.ignore
        root = self._root_s
        entries = self.entries
        classify = self._class_of
        while stack:
            folder = stack.pop()
            path = os.path.join(root, folder) if folder else root
            try:
                with os.scandir(path) as it:
                    items = list(it)
            except OSError:
                continue
            names = {e.name for e in items}
            if folder and "pyvenv.cfg" in names:
                continue  # a virtual environment, whatever its name
            if ".gitignore" in names:
                self._load_ignore(folder)
            if not folder and os.path.isfile(os.path.join(root, ".git", "info", "exclude")):
                self._load_ignore("", info_exclude=True)
            prefix = folder + "/" if folder else ""
            chain = ignore.chain_for(folder)
            ignored_in = ignore.ignored_in
            for e in items:
                name = e.name
                rel = prefix + name
                try:
                    if e.is_dir(follow_symlinks=False):
                        if name in SKIP_DIRS or name.endswith(SKIP_DIR_SUFFIXES):
                            continue
                        if chain and ignored_in(chain, rel, True):
                            continue
                        stack.append(rel)
                        continue
                    dot = name.rfind(".")
                    if dot > 0 and name[dot:].lower() in BINARY_EXTS:
                        continue
                    if chain and ignored_in(chain, rel, False):
                        continue
                    if e.is_symlink():
                        # never follow a symlink out of the root; symlinked folders are not walked
                        if not self.inside(rel) or e.is_dir():
                            continue
                        st = e.stat()
                    else:
                        st = e.stat(follow_symlinks=False)
                    if name == "package.json":
                        packages.append(rel)
                    if st.st_size <= self.max_file_bytes and stat.S_ISREG(st.st_mode):
                        entries[rel] = FileEntry(rel, classify(rel), st.st_mtime, st.st_size)
                except OSError:
                    continue

    def _git_status(self, out: dict[str, set[str]]) -> None:
        try:
            proc = subprocess.run(["git", "-C", self._root_s, "ls-files", "-t", "-c", "-m", "-z"],
                                  capture_output=True, timeout=30, check=False)
        except (OSError, subprocess.SubprocessError):
            return
        if proc.returncode != 0:
            return
        tracked: set[str] = set()
        modified: set[str] = set()
        for item in proc.stdout.decode("utf-8", errors="surrogateescape").split("\0"):
            if len(item) < 3:
                continue
            (modified if item[0] == "C" else tracked).add(item[2:])
        out["tracked"], out["modified"] = tracked, modified

    def _scan_git(self, packages: list[str]) -> bool:
        """Use git's own view of tracked + untracked-not-ignored files (exact .gitignore semantics)."""
        try:
            proc = subprocess.run(
                ["git", "-C", self._root_s, "ls-files", "-t", "-c", "-o", "-m", "--exclude-standard", "-z"],
                capture_output=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return False
        if proc.returncode != 0:
            return False
        root = self._root_s
        listed: list[str] = []
        modified: set[str] = set()
        venvs: list[str] = []
        for item in proc.stdout.decode("utf-8", errors="surrogateescape").split("\0"):
            if len(item) < 3:
                continue
            tag, rel = item[0], item[2:]
            if tag == "C":
                modified.add(rel)
                continue
            if tag != "?":
                self.tracked.add(rel)
            listed.append(rel)
            if rel.endswith("/pyvenv.cfg"):
                venvs.append(rel[: -len("pyvenv.cfg")])
        venv_prefixes = tuple(venvs)
        for rel in listed:
            parts = rel.split("/")
            name = parts[-1]
            if any(p in SKIP_DIRS or p.endswith(SKIP_DIR_SUFFIXES) for p in parts[:-1]):
                continue
            if venv_prefixes and rel.startswith(venv_prefixes):
                continue
            if name == ".gitignore":
                self._load_ignore(rel[: -len(".gitignore")].rstrip("/"))
            if _ext(name) in BINARY_EXTS:
                continue
            full = os.path.join(root, rel)
            try:
                st = os.lstat(full)
                if stat.S_ISLNK(st.st_mode):
                    if not self.inside(rel):
                        continue
                    st = os.stat(full)
            except OSError:
                continue  # tracked but deleted
            if name == "package.json":
                packages.append(rel)
            self._admit(rel, name, st)
            entry = self.entries.get(rel)
            if entry is not None and rel in modified:
                entry.dirty = True
        if os.path.isfile(os.path.join(root, ".git", "info", "exclude")):
            self._load_ignore("", info_exclude=True)
        return True

    def _load_ignore(self, folder: str, info_exclude: bool = False) -> None:
        rel = ".git/info/exclude" if info_exclude else (f"{folder}/.gitignore" if folder else ".gitignore")
        text = self.read_text(rel, 1_000_000) or ""
        if info_exclude:
            # info/exclude applies at the root together with the root .gitignore
            root_text = self.read_text(".gitignore", 1_000_000) or ""
            text = text + "\n" + root_text
        self.ignore.add(folder, text)

    def _load_package(self, pkg_rel: str) -> None:
        old = self._pkg_targets.pop(pkg_rel, [])
        folder = pkg_rel.rpartition("/")[0]
        text = self.read_text(pkg_rel, 1_000_000) if pkg_rel in self.entries else None
        new = package_json_targets(text, folder) if text else []
        if new:
            self._pkg_targets[pkg_rel] = new
        self._entry_targets = {t for targets in self._pkg_targets.values() for t in targets}
        for target in (*old, *new):
            entry = self.entries.get(target)
            if entry is not None:
                entry.cls = self._class_of(target)
        self.members_version += 1

    # ------------------------------------------------------------------ freshness
    def _skipped(self, rel: str, is_dir: bool) -> bool:
        parts = rel.split("/")
        dirs = parts if is_dir else parts[:-1]
        if any(p in SKIP_DIRS or p.endswith(SKIP_DIR_SUFFIXES) for p in dirs):
            return True
        for i in range(1, len(dirs) + 1):
            if os.path.exists(os.path.join(self._root_s, *dirs[:i], "pyvenv.cfg")):
                return True
        if not is_dir and _ext(parts[-1]) in BINARY_EXTS:
            return True
        return self.ignore.ignored_path(rel, is_dir)

    def invalidate(self, paths: Iterable[str | os.PathLike[str]]) -> list[str]:
        """Re-read only these paths (created, changed or deleted files or folders). Returns the
        workspace-relative paths whose entries changed. A changed .gitignore triggers a rescan."""
        if not self.scanned:
            self.scan()
            return []
        changed: list[str] = []
        with self._lock:
            for path in paths:
                rel = self.rel(path)
                if not rel or rel.startswith(".git/"):
                    continue
                name = rel.rpartition("/")[2]
                if name == ".gitignore" or rel == ".git/info/exclude":
                    self.scan()
                    return [rel]
                changed.extend(self._refresh(rel))
            if changed:
                self.version += 1
        return changed

    def _refresh(self, rel: str) -> list[str]:
        full = os.path.join(self._root_s, rel)
        try:
            st = os.lstat(full)
        except OSError:
            st = None
        if st is None or self._skipped(rel, stat.S_ISDIR(st.st_mode)):
            prefix = rel + "/"
            gone = [k for k in self.entries if k == rel or k.startswith(prefix)]
            for k in gone:
                del self.entries[k]
                self.active.discard(k)
            if gone:
                self.members_version += 1
            for k in gone:
                if k in self._pkg_targets:
                    self._load_package(k)
            return gone
        if stat.S_ISDIR(st.st_mode):
            before = {k: (e.mtime, e.size) for k, e in self.entries.items() if k.startswith(rel + "/")}
            for k in before:
                del self.entries[k]
            packages: list[str] = []
            self._walk(rel, packages)
            for pkg in packages:
                self._load_package(pkg)
            self.members_version += 1
            after = {k: (e.mtime, e.size) for k, e in self.entries.items() if k.startswith(rel + "/")}
            return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        if stat.S_ISLNK(st.st_mode):
            if not self.inside(rel):
                return [rel] if self.entries.pop(rel, None) is not None else []
            try:
                st = os.stat(full)
            except OSError:
                return []
            if stat.S_ISDIR(st.st_mode):
                return []
        old = self.entries.get(rel)
        touched = old.touched if old else 0.0
        self.entries.pop(rel, None)
        self._admit(rel, rel.rpartition("/")[2], st)
        entry = self.entries.get(rel)
        if entry is not None:
            entry.touched = touched
            entry.dirty = (old.dirty if old else False) or rel in self.tracked
            if entry.dirty or entry.touched:
                self.active.add(rel)
        if old is None or entry is None or old.cls != entry.cls:
            self.members_version += 1
        if rel.endswith("package.json"):
            self._load_package(rel)
        return [rel]

    def touch(self, path: str | os.PathLike[str], when: float | None = None) -> bool:
        """Record activity on a file (watcher event, transcript edit) at `when` (default now)."""
        rel = self.rel(path)
        if rel is None:
            return False
        with self._lock:
            entry = self.entries.get(rel)
            if entry is None:
                return False
            entry.touched = max(entry.touched, time.time() if when is None else when)
            self.active.add(rel)
            self.version += 1
            return True

    # ------------------------------------------------------------------ queries
    def get(self, rel: str) -> FileEntry | None:
        return self.entries.get(rel)

    def __contains__(self, rel: object) -> bool:
        return rel in self.entries

    def __len__(self) -> int:
        return len(self.entries)

    def class_index(self) -> dict[CoreClass | None, list[str]]:
        """Paths by class, recomputed only when files appear, disappear or change class (a changed
        mtime does not), so a warm restore does not re-walk 10,000 entries."""
        with self._lock:
            cached = self._class_cache
            if cached is not None and cached[0] == self.members_version:
                return cached[1]
            by: dict[CoreClass | None, list[str]] = {}
            for rel, e in self.entries.items():
                if e.cls is not None:
                    by.setdefault(e.cls, []).append(rel)
            self._class_cache = (self.members_version, by)
            return by

    def of_class(self, *classes: CoreClass) -> Iterator[FileEntry]:
        by = self.class_index()
        for cls in classes:
            for rel in by.get(cls, ()):
                entry = self.entries.get(rel)
                if entry is not None and entry.cls is cls:
                    yield entry

    def core(self) -> Iterator[FileEntry]:
        for entry in list(self.entries.values()):
            if entry.cls is not None:
                yield entry
