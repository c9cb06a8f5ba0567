"""The state folder `<workspace>/.compaction/`: the one way to create it and read or write in it.

Why: a cloned repository can ship `.compaction/` with links in it (`hooks.log -> ~/.bashrc`,
`state.db -> ~/other/state.db`, or the folder itself pointing elsewhere), and the hooks, the CLI
and both servers write there unattended (issue 15, attacks 1, 2, 5). So:
- the folder must be a real folder (not a link) whose real path is inside the workspace's;
- a file in it is opened with O_NOFOLLOW and used only when it is a regular file;
- a link (or FIFO, device, folder) found where we read or write is **refused**, never followed and
  never replaced or removed. We never make links there, so one is the repository's: replacing it
  would change a tracked file under the user, and following it is the attack. The error names the
  file, says where the link leads and how to clear it, so the user sees why nothing was written.
- whole-file writes are atomic (a temporary file created with O_EXCL in the verified folder,
  renamed over the target); appends open O_APPEND|O_NOFOLLOW|O_CREAT and check the open file.

The checks are path-based (lstat, then O_NOFOLLOW): the threat is content a repository ships, not
a concurrent local attacker racing us between two system calls.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from compaction.atomic import replace_in_folder
from compaction.escape import escape_control

STATE_DIR = ".compaction"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


class UnsafeStateError(PermissionError):
    """Something under `.compaction/` is a link or not a regular file: nothing was read or written."""

    def __init__(self, path: str | Path, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(errno.EPERM, reason, str(path))

    def __str__(self) -> str:
        return f"{escape_control(self.path)}: {self.reason}"


def _refusal(path: Path, st: os.stat_result, what: str) -> UnsafeStateError:
    if stat.S_ISLNK(st.st_mode):
        try:
            to = escape_control(os.readlink(path))  # the repository chose this text
        except OSError:
            to = "?"
        return UnsafeStateError(path, f"is a symbolic link (to {to}): compaction neither {what} through it nor "
                                      f"replaces it; remove the link if this workspace is yours")
    kind = ("a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
            else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "not a regular file")
    return UnsafeStateError(path, f"is {kind}, not a regular file: compaction does not {what} it here")


def _shared_inode(path: Path, st: os.stat_result) -> UnsafeStateError:
    """A hard link (an archive can ship one, a clone cannot): writing in place would change the
    other file too. Whole-file writes replace the name and are unaffected."""
    return UnsafeStateError(path, f"has {st.st_nlink} hard links: writing to it in place would change another "
                                  "file too; compaction does not write it (remove it if this workspace is yours)")


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def state_dir(workspace: str | Path, *, create: bool = True) -> Path:
    """`<workspace>/.compaction/`, verified (and created, with a `.gitignore` ignoring everything
    in it, unless `create` is false: then a missing folder is returned as is)."""
    path = Path(workspace) / STATE_DIR
    st = _lstat(path)
    if st is None:
        if not create:
            return path
        Path(workspace).mkdir(parents=True, exist_ok=True)
        try:
            os.mkdir(path)  # never follows: a dangling link in the way gives EEXIST
        except FileExistsError:
            pass
        st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeStateError(path, f"is a symbolic link (to {escape_control(os.readlink(path))}), not a folder of "
                                     "this workspace: "
                                     "compaction does not read or write its state through it; remove the link "
                                     "if this workspace is yours")
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeStateError(path, "is not a folder: compaction cannot keep its state here")
    real, ws_real = Path(os.path.realpath(path)), Path(os.path.realpath(workspace))
    if real.parent != ws_real:
        raise UnsafeStateError(path, f"resolves to {escape_control(str(real))}, outside the workspace "
                                     f"{escape_control(str(ws_real))}")
    if create and _lstat(path / ".gitignore") is None:
        try:
            fd = os.open(path / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write("*\n")
        except FileExistsError:
            pass
    return path


def state_file(workspace: str | Path, name: str, *, create_dir: bool = True, what: str = "writes") -> Path:
    """The path of `name` in the verified state folder: absent or a regular file, else refused."""
    if not name or "/" in name or os.sep in name or name in (".", ".."):
        raise ValueError(f"not a file name inside {STATE_DIR}/: {name!r}")
    path = state_dir(workspace, create=create_dir) / name
    st = _lstat(path)
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise _refusal(path, st, what)
    return path


def exists(workspace: str | Path, name: str) -> bool:
    """Whether `name` is in the state folder as anything at all (a link counts: the store refuses it
    later with a reason, rather than acting as if there were no store)."""
    return _lstat(Path(workspace) / STATE_DIR / name) is not None


def _open_regular(path: Path, flags: int, what: str, mode: int = 0o666) -> int:
    try:
        fd = os.open(path, flags | _NOFOLLOW | _NONBLOCK, mode)
    except OSError:
        st = _lstat(path)
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise _refusal(path, st, what) from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise _refusal(path, st, what)
    if flags & (os.O_WRONLY | os.O_RDWR) and st.st_nlink > 1:
        os.close(fd)
        raise _shared_inode(path, st)
    if _NONBLOCK:
        os.set_blocking(fd, True)
    return fd


def read_bytes(workspace: str | Path, name: str) -> bytes | None:
    """The bytes of a state file (None when absent or when there is no state folder)."""
    try:
        path = state_file(workspace, name, create_dir=False, what="reads")
        fd = _open_regular(path, os.O_RDONLY, "reads")
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def read_text(workspace: str | Path, name: str) -> str | None:
    """The text of a state file, undecodable bytes replaced (None when absent)."""
    data = read_bytes(workspace, name)
    return None if data is None else data.decode("utf-8", errors="replace")


def write_text(workspace: str | Path, name: str, text: str, *, mode: int | None = None) -> Path:
    """Write a state file atomically. New files are private (0600: they quote the conversation);
    an existing one keeps its permission bits."""
    path = state_file(workspace, name)
    st = _lstat(path)
    keep = stat.S_IMODE(st.st_mode) if st is not None else mode
    return replace_in_folder(path.parent, name, text.encode("utf-8"), keep, new_mode=0o600)


def append_text(workspace: str | Path, name: str, text: str) -> Path:
    """Append to a state file (created if absent), never through a link."""
    path = state_file(workspace, name)
    fd = _open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, "writes", 0o600)
    with os.fdopen(fd, "ab") as fh:
        fh.write(text.encode("utf-8"))
    return path


def size(workspace: str | Path, name: str) -> int:
    """Size of a regular state file (0 when absent; refused when it is a link)."""
    path = state_file(workspace, name, create_dir=False, what="reads")
    st = _lstat(path)
    return st.st_size if st is not None else 0


def rotate(workspace: str | Path, name: str, to: str) -> None:
    """Rename a regular state file to `to` (replacing a regular file there; a link there is refused)."""
    src, dst = state_file(workspace, name), state_file(workspace, to)
    os.replace(src, dst)


def remove(workspace: str | Path, name: str) -> bool:
    """Remove a state file if it is a regular file of ours; a link is left alone (it is not ours).
    Returns whether something was removed."""
    path = Path(workspace) / STATE_DIR / name
    st = _lstat(path)
    if st is None or not stat.S_ISREG(st.st_mode):
        return False
    try:
        state_dir(workspace, create=False)
        os.unlink(path)
    except (FileNotFoundError, UnsafeStateError):
        return False
    return True


def check_sqlite_files(workspace: str | Path, db_name: str, *, create: bool = True) -> Path:
    """The database path, after checking that it and its sidecars (-wal, -shm, -journal) are absent
    or regular files with one name: SQLite follows links and writes in place, so a linked (or hard
    linked) database or sidecar is refused before it opens anything. `create`: false for a store
    opened read-only (the folder is verified, never created)."""
    path = state_file(workspace, db_name, create_dir=create)
    for name in (db_name, *(db_name + suffix for suffix in ("-wal", "-shm", "-journal"))):
        st = _lstat(state_file(workspace, name, create_dir=create))
        if st is not None and st.st_nlink > 1:  # SQLite writes in place
            raise _shared_inode(path.parent / name, st)
    return path
