"""Atomic writes: a temporary file in the target's folder, fsync, then rename over the target.

What the target already is decides how it is written (issue 15, attack 7):
- a regular file is replaced atomically and keeps its permission bits;
- a symbolic link is written *through*: the file it points to is replaced atomically next to
  itself (the user asked for that name; replacing the link by a regular file would silently
  detach it);
- a FIFO or a character/block device is written directly, without a rename (replacing
  `/dev/null` or a named pipe with a regular file would break it for everyone); a FIFO nobody reads
  is refused at once instead of blocking;
- a socket or a folder is refused with a message naming the path.

A kill between the write and the rename leaves `.NAME.*.tmp`; the next write of the same target
removes such files of ours once they are older than a minute (younger ones may be a concurrent
writer's).
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
import time
from pathlib import Path

STALE_TMP_S = 60.0
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def temp_name(name: str) -> str:
    return f".{name}.{secrets.token_hex(4)}.tmp"


def clean_stale_temps(folder: str | Path, name: str, max_age: float = STALE_TMP_S, now: float | None = None) -> int:
    """Remove our leftover temporary files for `name` in `folder` older than `max_age` seconds
    (regular files only: a link of that shape is not ours). Returns how many were removed."""
    now = time.time() if now is None else now
    prefix, removed = f".{name}.", 0
    try:
        entries = os.listdir(folder)
    except OSError:
        return 0
    for entry in entries:
        if not (entry.startswith(prefix) and entry.endswith(".tmp")) or len(entry) <= len(prefix) + 4:
            continue
        path = os.path.join(folder, entry)
        try:
            st = os.lstat(path)
            if stat.S_ISREG(st.st_mode) and now - st.st_mtime > max_age:
                os.unlink(path)
                removed += 1
        except OSError:
            pass
    return removed


def replace_in_folder(folder: Path, name: str, data: bytes, mode: int | None, *, new_mode: int = 0o666) -> Path:
    """Write `data` to `folder/name` through a new temporary file (O_EXCL, never through a link)
    renamed over it. `mode`: the permission bits to give it (an existing file's); None gives a new
    file `new_mode` less the umask."""
    clean_stale_temps(folder, name)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_BINARY", 0)
    while True:
        tmp = folder / temp_name(name)
        try:
            fd = os.open(tmp, flags, new_mode if mode is None else 0o600)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as fh:
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), mode)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, folder / name)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and exc.filename is None:  # ENOSPC, EIO: say which file was being written
            raise OSError(exc.errno, exc.strerror, str(folder / name)) from exc
        raise
    return folder / name


def write_special(path: Path, data: bytes, st: os.stat_result) -> Path:
    """Write to a FIFO or device in place (no rename); refuse a FIFO without a reader."""
    if stat.S_ISFIFO(st.st_mode):
        try:
            fd = os.open(path, os.O_WRONLY | _NONBLOCK)
        except OSError as exc:
            if exc.errno == errno.ENXIO:
                raise OSError(errno.ENXIO, "is a FIFO that no process is reading: nothing written", str(path)) from None
            raise
        os.set_blocking(fd, True)
    else:
        fd = os.open(path, os.O_WRONLY)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    finally:
        os.close(fd)
    return path


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Write `data` to `path` as the module docstring says; returns the path written."""
    target = Path(path)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        real = Path(os.path.realpath(target))
        try:
            st = os.lstat(real)
        except FileNotFoundError:
            st = None  # a dangling link: create its target
        if st is not None and stat.S_ISLNK(st.st_mode):
            raise OSError(errno.ELOOP, "a symbolic link loop: nothing written", str(path))
        target = real
    if st is None:
        target.parent.mkdir(parents=True, exist_ok=True)
        return replace_in_folder(target.parent, target.name, data, None)
    if stat.S_ISREG(st.st_mode):
        return replace_in_folder(target.parent, target.name, data, stat.S_IMODE(st.st_mode))
    if stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        return write_special(target, data, st)
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder: nothing written", str(path))
    raise OSError(errno.EINVAL, "is neither a file, a FIFO nor a device: nothing written", str(path))


def write_text_atomic(path: str | Path, text: str) -> Path:
    """UTF-8 text, written with `write_bytes_atomic` (newlines as given)."""
    return write_bytes_atomic(path, text.encode("utf-8"))
