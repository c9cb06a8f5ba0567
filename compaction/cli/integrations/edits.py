"""Planned file changes: what `compaction install` would write, shown as a diff before it writes.

Why plans: `--check` must preview exactly what a real run writes, and a real run must be
idempotent (no write, no backup when nothing changes). Our text inside files users own lives in a
delimited block, so uninstall removes only what we added.
"""

from __future__ import annotations

import difflib
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from compaction import statedir
from compaction.atomic import write_text_atomic
from compaction.statedir import STATE_DIR

BEGIN = "compaction:begin"
END = "compaction:end"


class InstallError(ValueError):
    """A file we would change cannot be read safely (invalid JSON, a conflicting key); names the file."""


@dataclass
class FileChange:
    """One file's content before (None: absent) and after (None: delete it)."""

    path: Path
    before: str | None
    after: str | None
    note: str = ""
    warnings: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        a = (self.before or "").splitlines(keepends=True)
        b = (self.after or "").splitlines(keepends=True)
        name = str(self.path)
        text = "".join(difflib.unified_diff(a, b, f"a/{name}" if self.before is not None else "/dev/null",
                                            f"b/{name}" if self.after is not None else "/dev/null"))
        return text if text.endswith("\n") or not text else text + "\n"


def read_or_none(path: Path) -> str | None:
    try:
        if path.parent.name == STATE_DIR:  # never through a link a repository shipped (compaction.statedir)
            data = statedir.read_bytes(path.parent.parent, path.name)
            return None if data is None else data.decode("utf-8")
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise InstallError(f"{path}: invalid UTF-8 at byte {exc.start}; not touching it") from None


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + ".compaction-backup")


def apply(change: FileChange) -> Path | None:
    """Write (or delete) the file atomically, keeping its permissions; back up the previous content
    first when it had content of the user's. Returns the backup path (None: nothing backed up).
    A file is deleted only when everything in it was ours, so that case needs no backup."""
    if not change.changed:
        return None
    path = change.path
    if change.after is None:
        os.unlink(path)
        return None
    backup = None
    mode = None
    if path.parent.name == STATE_DIR:
        statedir.state_file(path.parent.parent, path.name)  # a link or special file there: refused before anything
    if change.before is not None and path.exists():
        backup = backup_path(path)
        shutil.copy2(path, backup)
        mode = stat.S_IMODE(path.stat().st_mode)
    if path.parent.name == STATE_DIR:  # verified folder, a link there refused (compaction.statedir)
        statedir.write_text(path.parent.parent, path.name, change.after)
    else:
        write_text_atomic(path, change.after)
    if mode is None:  # a new file: the usual permissions (mkstemp makes it 0600)
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(path, mode)
    return backup


def markers(comment: str) -> tuple[str, str]:
    """The begin/end lines for a comment syntax: `#` or `<!--`."""
    if comment == "<!--":
        return f"<!-- {BEGIN} (managed by `compaction install`; edit outside this block) -->", f"<!-- {END} -->"
    return f"{comment} {BEGIN} (managed by `compaction install`)", f"{comment} {END}"


def _find(text: str, comment: str) -> tuple[int, int] | None:
    begin, end = markers(comment)
    b_tag = begin.split(" (")[0]
    lines = text.splitlines(keepends=True)
    start = next((i for i, ln in enumerate(lines) if ln.strip().startswith(b_tag)), None)
    if start is None:
        return None
    stop = next((i for i in range(start, len(lines)) if lines[i].strip() == end), None)
    if stop is None:
        return None
    return sum(len(x) for x in lines[:start]), sum(len(x) for x in lines[: stop + 1])


def upsert_block(text: str | None, body: str, comment: str, *, top: bool = False) -> str:
    """`text` with our block holding `body` (replacing an earlier block of ours in place, else added at
    the end, or at the top when `top` — TOML root keys must come before any table)."""
    begin, end = markers(comment)
    block = f"{begin}\n{body.rstrip()}\n{end}\n"
    text = text or ""
    span = _find(text, comment)
    if span:
        return text[: span[0]] + block + text[span[1]:]
    if not text.strip():
        return block
    if top:
        return block + "\n" + text
    return text.rstrip("\n") + "\n\n" + block


def remove_block(text: str | None, comment: str) -> str | None:
    """`text` without our block (and the blank line we added next to it); None when nothing remains."""
    if text is None:
        return None
    span = _find(text, comment)
    if not span:
        return text
    head, tail = text[: span[0]], text[span[1]:]
    if head.endswith("\n\n"):
        head = head[:-1]
    elif not head and tail.startswith("\n"):
        tail = tail[1:]
    out = head + tail
    return out if out.strip() else None


def has_block(text: str | None, comment: str) -> bool:
    return bool(text) and _find(text, comment) is not None
